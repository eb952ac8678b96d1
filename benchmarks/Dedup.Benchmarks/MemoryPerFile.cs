using System.Diagnostics;
using System.Runtime.CompilerServices;
using Dedup.Core;
using Dedup.Core.Enumeration;

namespace Dedup.Benchmarks;

/// <summary>
/// Managed bytes per scanned file: `dotnet run -c Release --project benchmarks/Dedup.Benchmarks -- memory TREE`.
/// The heap is measured after a full collection at the moment enumeration ends, when the scan holds every
/// file it found (the peak of what it keeps per file), minus the heap before the scan.
/// </summary>
internal static class MemoryPerFile
{
    public static async Task<int> RunAsync(string root)
    {
        var before = GC.GetTotalMemory(forceFullCollection: true);
        var probe = new MeasuringEnumerator(new ParallelFileEnumerator());
        var finder = new DuplicateFinderBuilder().AddRoot(root).UseFileEnumerator(probe).Build();
        var stopwatch = Stopwatch.StartNew();
        var scan = finder.FindAsync();
        var groups = 0;
        await foreach (var group in scan)
        {
            groups++;
        }

        var files = scan.Summary.FilesScanned;
        var perFile = (double)(probe.HeapAtEnd - before) / files;
        Console.WriteLine($"files: {files:N0}, groups: {groups:N0}, elapsed: {stopwatch.Elapsed.TotalSeconds:0.00} s");
        Console.WriteLine($"managed heap at end of enumeration: {(probe.HeapAtEnd - before) / 1048576.0:0.0} MiB => {perFile:0} bytes per file");
        Console.WriteLine($"peak working set: {Process.GetCurrentProcess().PeakWorkingSet64 / 1048576.0:0.0} MiB");
        var info = GC.GetGCMemoryInfo(GCKind.Any);
        Console.WriteLine($"allocated in total: {GC.GetTotalAllocatedBytes() / 1048576.0:0.0} MiB; GCs gen0/1/2: {GC.CollectionCount(0)}/{GC.CollectionCount(1)}/{GC.CollectionCount(2)}; last heap size {info.HeapSizeBytes / 1048576.0:0.0} MiB, committed {info.TotalCommittedBytes / 1048576.0:0.0} MiB");
        return 0;
    }

    private sealed class MeasuringEnumerator(IFileEnumerator inner) : IFileEnumerator
    {
        public long HeapAtEnd { get; private set; }

        public async IAsyncEnumerable<ScannedFile> EnumerateAsync(FileEnumerationContext context, [EnumeratorCancellation] CancellationToken cancellationToken = default)
        {
            await foreach (var file in inner.EnumerateAsync(context, cancellationToken))
            {
                yield return file;
            }

            // Files yielded so far are all held by the scan; the last one is in flight on the consumer's side.
            HeapAtEnd = GC.GetTotalMemory(forceFullCollection: true);

            // DEDUP_PAUSE_FILE=F: wait here until F exists, so that `dotnet-gcdump collect -p PID` sees the heap at
            // the moment the scan holds every file it found (#17 breakdown).
            var pause = Environment.GetEnvironmentVariable("DEDUP_PAUSE_FILE");
            if (!string.IsNullOrEmpty(pause))
            {
                Console.Error.WriteLine($"enumeration ended; pid {Environment.ProcessId}; waiting for {pause}");
                while (!File.Exists(pause))
                {
                    await Task.Delay(200, cancellationToken);
                }
            }
        }
    }
}
