using System.Diagnostics;
using Dedup.Core;
using Dedup.Core.Enumeration;

namespace Dedup.Benchmarks;

/// <summary>
/// Managed bytes per scanned file: `dotnet run -c Release --project benchmarks/Dedup.Benchmarks -- memory TREE`.
/// The heap is measured after full collections when enumeration ends (the scan's file table holds every file found)
/// and after the size barrier (unique sizes dropped), minus the heap before the scan.
/// </summary>
internal static class MemoryPerFile
{
    public static async Task<int> RunAsync(string root)
    {
        var before = GC.GetTotalMemory(forceFullCollection: true);
        var finder = new DuplicateFinderBuilder().AddRoot(root).Build();
        var stopwatch = Stopwatch.StartNew();
        var context = Dedup.Core.Scanning.EnumerationContexts.Create(((BuiltDuplicateFinder)finder).Options, new Dedup.Core.Diagnostics.ScanErrorSink());
        long files = 0;
        var table = new FileTable(filesAdded: n => Interlocked.Add(ref files, n));
        await new ParallelFileEnumerator().FillAsync(context, table, CancellationToken.None);
        var enumerated = GC.GetTotalMemory(forceFullCollection: true) - before;
        var sets = Dedup.Core.Scanning.SizeBarrier.Split(table, keepSingles: false);
        var split = GC.GetTotalMemory(forceFullCollection: true) - before;
        Console.WriteLine($"files: {files:N0} in {table.FolderCount:N0} folders, candidate sets: {sets.Count:N0}, rows kept: {table.Count:N0}, elapsed: {stopwatch.Elapsed.TotalSeconds:0.00} s");
        Console.WriteLine($"managed heap at end of enumeration: {enumerated / 1048576.0:0.0} MiB => {(double)enumerated / files:0} bytes per file (names: {table.Names.ChunkBytes / 1048576.0:0.0} MiB)");
        Console.WriteLine($"after the size barrier: {split / 1048576.0:0.0} MiB => {(double)split / files:0} bytes per file");
        Console.WriteLine($"peak working set: {Process.GetCurrentProcess().PeakWorkingSet64 / 1048576.0:0.0} MiB");
        GC.KeepAlive(sets);
        return 0;
    }

}
