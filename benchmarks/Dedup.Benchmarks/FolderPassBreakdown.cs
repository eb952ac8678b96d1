using System.Diagnostics;
using Dedup.Core;
using Dedup.Core.Enumeration;
using Dedup.Core.Folders;
using Dedup.Core.Scanning;

namespace Dedup.Benchmarks;

/// <summary>
/// Where folder mode's time goes (#20): `dotnet run -c Release --project benchmarks/Dedup.Benchmarks -- folders TREE [RUNS]`.
/// First whole scans through the public API, plain and folder mode interleaved (median wall and process CPU), then
/// the folder pass's single-threaded steps timed one by one on one enumerated tree, in FolderScan's order.
/// </summary>
internal static class FolderPassBreakdown
{
    public static async Task<int> RunAsync(string root, int runs)
    {
        Console.WriteLine($"# {root}; {Environment.ProcessorCount} cores; load {File.ReadAllText("/proc/loadavg").Trim()}");
        var plain = new List<(double Wall, double Cpu)>();
        var folders = new List<(double Wall, double Cpu)>();
        for (var run = 0; run < runs + 1; run++)
        {
            var p = await TimeScanAsync(new DuplicateFinderBuilder().AddRoot(root));
            var f = await TimeScanAsync(new DuplicateFinderBuilder().AddRoot(root).UseFolderMode());
            if (run > 0)
            {
                plain.Add(p); // the first round warms the JIT and the page cache
                folders.Add(f);
            }
        }

        static double Median(IEnumerable<double> xs) => xs.OrderBy(x => x).ElementAt(xs.Count() / 2);
        var (pw, pc, fw, fc) = (Median(plain.Select(x => x.Wall)), Median(plain.Select(x => x.Cpu)), Median(folders.Select(x => x.Wall)), Median(folders.Select(x => x.Cpu)));
        Console.WriteLine($"whole scans, median of {runs}: plain {pw:0.000} s wall / {pc:0.000} s CPU; folders {fw:0.000} s / {fc:0.000} s => {fw / pw:0.00}x wall, {fc / pc:0.00}x CPU");

        // The folder pass's steps, each timed alone (median of the runs) on one enumerated tree.
        var finder = (BuiltDuplicateFinder)new DuplicateFinderBuilder().AddRoot(root).UseFolderMode().Build();
        var options = finder.Options;
        var scan = ScanComposition.Compose(options, finder.Stores, callbacks: null);
        var context = EnumerationContexts.Create(options, scan.Context.Errors);
        var table = new FileTable(true, scan.AddFilesScanned) { TracksFolders = true };
        await new ParallelFileEnumerator().FillAsync(context, table, CancellationToken.None);
        var sets = SizeBarrier.Split(table, keepSingles: true);
        var contents = new ContentClasses(table.Count);
        var wholeFile = new WholeFileStage(scan.Context);
        var watch = Stopwatch.StartNew();
        foreach (var set in sets)
        {
            contents.Assign(set, set.Count < 2 || set.Size == 0 ? null : wholeFile.Compare(set, CancellationToken.None), allEqual: set.Size == 0);
        }

        Console.WriteLine($"files {table.Count:N0}, folders {table.FolderCount:N0}, sets {sets.Count:N0}; settling the sets (all threads in a scan, one here): {watch.Elapsed.TotalMilliseconds:0} ms");
        var steps = new Dictionary<string, List<double>>();
        for (var run = 0; run < Math.Max(runs, 3); run++)
        {
            FolderTree tree = null!;
            int[] classOf = null!;
            List<int[]> classes = null!;
            (List<int[]> Groups, bool[] InsideCopy) top = ([], []);
            Time(steps, "FolderTree.Build", () => tree = FolderTree.Build(table));
            Time(steps, "ExactFolders.ByNames", () => classes = ExactFolders.ByNames(tree, contents, out classOf));
            FolderStorage storage = null!;
            Time(steps, "FolderStorage", () => storage = new FolderStorage(tree));
            Time(steps, "ExactFolders.Topmost", () => top = ExactFolders.Topmost(tree, classes, f => tree.SubtreeEntries[f], storage));
            Time(steps, "FolderSnapshot.Take (all groups)", () => top.Groups.SelectMany(g => g.Select(f => FolderSnapshots.Take(tree, contents, f, false))).ToList());
            Time(steps, "FolderOverlap.Find", () => new FolderOverlap(tree, contents, classOf, top.InsideCopy, storage).Find(CancellationToken.None));
            Time(steps, "ExactFolders.ByContents (ignore names)", () => classes = ExactFolders.ByContents(tree, contents));
        }

        foreach (var (step, times) in steps)
        {
            Console.WriteLine($"  {step}: {Median(times):0.0} ms");
        }

        return 0;
    }

    private static void Time(Dictionary<string, List<double>> steps, string step, Action action)
    {
        var watch = Stopwatch.StartNew();
        action();
        if (!steps.TryGetValue(step, out var times))
        {
            steps[step] = times = [];
        }

        times.Add(watch.Elapsed.TotalMilliseconds);
    }

    private static async Task<(double Wall, double Cpu)> TimeScanAsync(DuplicateFinderBuilder builder)
    {
        var process = Process.GetCurrentProcess();
        var cpu = process.TotalProcessorTime;
        var watch = Stopwatch.StartNew();
        var scan = builder.Build().FindAsync();
        await foreach (var _ in scan)
        {
        }

        _ = scan.FolderGroups.Count;
        process.Refresh();
        return (watch.Elapsed.TotalSeconds, (process.TotalProcessorTime - cpu).TotalSeconds);
    }
}
