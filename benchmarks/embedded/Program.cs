// The README's library example, embedded in a plain .NET app (#17 baseline): JIT, default GC settings, no
// forced collections. Usage: dotnet bin/.../Dedup.Embedded.dll TREE [--min-size N] [--gc-info]
// Differences from the README: one root (TREE), no exclusion, no minimum size unless --min-size is given, so
// that it does the same work as `dedup find TREE` and `jdupes -r TREE`. --gc-info prints, after the scan and to
// stderr, what the GC saw (GC.GetGCMemoryInfo, no collection is forced before the scan ends).
using System.Diagnostics;
using Dedup.Core;

var builder = new DuplicateFinderBuilder().AddRoot(args[0]);
var minSize = Array.IndexOf(args, "--min-size");
if (minSize >= 0)
{
    builder.WithMinSize(long.Parse(args[minSize + 1], System.Globalization.CultureInfo.InvariantCulture));
}

var finder = builder.Build();
var scan = finder.FindAsync(CancellationToken.None);
await foreach (DuplicateGroup group in scan)
    Console.WriteLine($"{group.Files.Count} × {group.Size} B: {string.Join(", ", group.Files)}");
Console.WriteLine($"{scan.Summary.WastedBytes} bytes wasted, {scan.Summary.Errors.Count} errors");

if (Array.IndexOf(args, "--gc-info") >= 0)
{
    var info = GC.GetGCMemoryInfo(GCKind.Any);
    var p = Process.GetCurrentProcess();
    Console.Error.WriteLine(
        $"peak working set {p.PeakWorkingSet64 / 1048576.0:0.0} MiB; allocated in total {GC.GetTotalAllocatedBytes() / 1048576.0:0.0} MiB; " +
        $"GCs gen0/1/2 {GC.CollectionCount(0)}/{GC.CollectionCount(1)}/{GC.CollectionCount(2)}; " +
        $"last GC (gen{info.Generation}, #{info.Index}): heap {info.HeapSizeBytes / 1048576.0:0.0} MiB, fragmented {info.FragmentedBytes / 1048576.0:0.0} MiB, " +
        $"committed {info.TotalCommittedBytes / 1048576.0:0.0} MiB, promoted {info.PromotedBytes / 1048576.0:0.0} MiB; " +
        $"gen sizes after last GC: " + string.Join(" / ", info.GenerationInfo.ToArray().Select(g => $"{g.SizeAfterBytes / 1048576.0:0.0}")) + " MiB (gen0/1/2/LOH/POH)");
    var all = GC.GetGCMemoryInfo(GCKind.FullBlocking);
    Console.Error.WriteLine($"last full blocking GC: #{all.Index}, heap {all.HeapSizeBytes / 1048576.0:0.0} MiB, promoted {all.PromotedBytes / 1048576.0:0.0} MiB");
}
