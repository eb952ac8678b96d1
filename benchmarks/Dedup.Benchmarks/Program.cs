using BenchmarkDotNet.Running;
using Dedup.Benchmarks;

// `memory TREE` measures bytes per file; anything else goes to BenchmarkDotNet (e.g. --filter '*Compare*').
if (args.Length == 2 && args[0] == "memory")
{
    return await MemoryPerFile.RunAsync(args[1]);
}

// `folders TREE [RUNS]` times folder mode against a plain scan and breaks the folder pass down (#20).
if (args.Length is 2 or 3 && args[0] == "folders")
{
    return await FolderPassBreakdown.RunAsync(args[1], args.Length == 3 ? int.Parse(args[2], System.Globalization.CultureInfo.InvariantCulture) : 5);
}

BenchmarkSwitcher.FromAssembly(typeof(MemoryPerFile).Assembly).Run(args);
return 0;
