using BenchmarkDotNet.Running;
using Dedup.Benchmarks;

// `memory TREE` measures bytes per file; anything else goes to BenchmarkDotNet (e.g. --filter '*Compare*').
if (args.Length == 2 && args[0] == "memory")
{
    return await MemoryPerFile.RunAsync(args[1]);
}

BenchmarkSwitcher.FromAssembly(typeof(MemoryPerFile).Assembly).Run(args);
return 0;
