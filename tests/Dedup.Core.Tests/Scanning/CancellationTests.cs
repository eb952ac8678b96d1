using System.Diagnostics;
using Dedup.Core.Comparison;
using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// Cancelling or abandoning a scan stops it promptly and closes its files. The trees are made slow on
/// purpose: each candidate set waits <see cref="Delay"/> before the real Hybrid strategy runs (a slow disk,
/// simulated), so an uncancelled scan provably takes far longer than the bound the tests allow.
/// </summary>
public sealed class CancellationTests
{
    private const int Sets = 600;
    private const int Parallelism = 2;
    private static readonly TimeSpan Delay = TimeSpan.FromMilliseconds(100);
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    [LinuxFact]
    public async Task Cancelling_after_the_first_group_stops_promptly_and_leaves_no_file_open()
    {
        using var tree = SlowTree();
        var strategy = new SlowStrategy(Delay);
        using var cts = new CancellationTokenSource();
        var scan = Finder(tree, strategy).FindAsync(cts.Token);
        var stopwatch = new Stopwatch();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () =>
        {
            await foreach (var group in scan)
            {
                if (!stopwatch.IsRunning)
                {
                    stopwatch.Start();
                    await cts.CancelAsync();
                }
            }
        });
        stopwatch.Stop();

        Assert.True(stopwatch.Elapsed < Bound, $"Cancellation took {stopwatch.Elapsed}.");
        Assert.True(strategy.Started < Sets, "The scan ran to the end.");
        await AssertNoFileOpenUnderAsync(tree.Root, strategy);
    }

    [LinuxFact]
    public async Task Cancelling_from_a_progress_report_stops_promptly_and_leaves_no_file_open()
    {
        using var tree = SlowTree();
        var strategy = new SlowStrategy(Delay);
        using var cts = new CancellationTokenSource();
        var stopwatch = new Stopwatch();
        var progress = new InlineProgress(p =>
        {
            if (p.Phase == ScanPhase.Comparing && !stopwatch.IsRunning)
            {
                stopwatch.Start();
                cts.Cancel();
            }
        });
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).UseComparer(strategy).WithMaxDegreeOfParallelism(Parallelism).ReportProgress(progress).Build();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => Scan.RunAsync(finder, cts.Token));
        stopwatch.Stop();

        Assert.True(stopwatch.Elapsed < Bound, $"Cancellation took {stopwatch.Elapsed}.");
        Assert.True(strategy.Started < Sets, "The scan ran to the end.");
        await AssertNoFileOpenUnderAsync(tree.Root, strategy);
    }

    [LinuxFact]
    public async Task When_cancellation_reaches_the_caller_no_comparison_is_still_running()
    {
        // After the OperationCanceledException the scan is over for the caller: nothing may still read its files.
        using var tree = SlowTree();
        var strategy = new SlowStrategy(Delay);
        using var cts = new CancellationTokenSource();
        var activeWhenThrown = -1;
        try
        {
            await foreach (var group in Finder(tree, strategy).FindAsync(cts.Token))
            {
                await cts.CancelAsync();
            }
        }
        catch (OperationCanceledException)
        {
            activeWhenThrown = strategy.Active;
        }

        Assert.Equal(0, activeWhenThrown);
    }

    [LinuxFact]
    public async Task Leaving_the_enumeration_early_stops_the_scan()
    {
        // A consumer that breaks out after the first group must not leave the scan reading in the background.
        using var tree = SlowTree();
        var strategy = new SlowStrategy(Delay);
        var received = false;
        await foreach (var group in Finder(tree, strategy).FindAsync())
        {
            received = true;
            break;
        }

        var startedAtBreak = strategy.Started;
        Assert.True(received, "the scan yielded no group, so the consumer never left early");
        await Task.Delay(TimeSpan.FromSeconds(1));

        Assert.True(strategy.Started <= startedAtBreak + Parallelism, $"{strategy.Started - startedAtBreak} comparisons started after the consumer left.");
        await AssertNoFileOpenUnderAsync(tree.Root, strategy, wait: TimeSpan.FromSeconds(2));
    }

    [LinuxFact]
    public async Task The_slow_tree_would_take_longer_than_the_bound_without_cancellation()
    {
        // Guards the premise of the tests above by measuring it on a slice of the tree, run to the end: every set
        // goes to the strategy, at most Parallelism at a time, so the whole tree would take far longer than Bound.
        const int Slice = 20;
        using var tree = SlowTree(Slice);
        var strategy = new SlowStrategy(Delay);
        var stopwatch = Stopwatch.StartNew();

        var (groups, _) = await Scan.RunAsync(Finder(tree, strategy));
        stopwatch.Stop();

        Assert.Equal(Slice, groups.Count);
        Assert.Equal(Slice, strategy.Started);
        Assert.InRange(strategy.MaxActive, 1, Parallelism);
        Assert.True(stopwatch.Elapsed >= Slice * Delay / Parallelism, $"{Slice} sets took only {stopwatch.Elapsed}.");
        var wholeTree = stopwatch.Elapsed * Sets / Slice;
        Assert.True(wholeTree > 2 * Bound, $"The whole tree would take about {wholeTree}, not far above {Bound}.");
    }

    private static DuplicateFinder Finder(TempTree tree, SlowStrategy strategy) =>
        new DuplicateFinderBuilder().AddRoot(tree.Root).UseComparer(strategy).WithMaxDegreeOfParallelism(Parallelism).Build();

    /// <summary><paramref name="sets"/> duplicate pairs, each of its own size above the whole-read limit, so each goes to the strategy.</summary>
    private static TempTree SlowTree(int sets = Sets)
    {
        var tree = new TempTree();
        for (var i = 0; i < sets; i++)
        {
            var content = TempTree.RandomBytes(9000 + i, i);
            tree.Write($"d{i % 20}/a{i}.bin", content);
            tree.Write($"e{i % 17}/b{i}.bin", content);
        }

        return tree;
    }

    /// <summary>Waits (up to a limit) for in-flight work to end, then requires no descriptor of this process to point into the tree.</summary>
    private static async Task AssertNoFileOpenUnderAsync(string root, SlowStrategy strategy, TimeSpan? wait = null)
    {
        var deadline = DateTime.UtcNow + (wait ?? Bound);
        while ((strategy.Active > 0 || OpenDescriptors.Under(root, includeRoot: false).Count > 0) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(50);
        }

        Assert.Empty(OpenDescriptors.Under(root, includeRoot: false));
    }

    /// <summary>Reports synchronously on the reporting thread (no synchronization context in between).</summary>
    private sealed class InlineProgress(Action<ScanProgress> report) : IProgress<ScanProgress>
    {
        public void Report(ScanProgress value) => report(value);
    }

    /// <summary>The real Hybrid strategy after a fixed wait that ignores the token, as a slow disk would.</summary>
    private sealed class SlowStrategy(TimeSpan delay) : IComparerStrategy
    {
        private int _started;
        private int _active;
        private int _maxActive;

        public int Started => Volatile.Read(ref _started);

        public int Active => Volatile.Read(ref _active);

        /// <summary>The most comparisons seen running at once.</summary>
        public int MaxActive => Volatile.Read(ref _maxActive);

        public string Name => "slow";

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default)
        {
            Interlocked.Increment(ref _started);
            var active = Interlocked.Increment(ref _active);
            int seen;
            while (active > (seen = Volatile.Read(ref _maxActive)) && Interlocked.CompareExchange(ref _maxActive, active, seen) != seen)
            {
            }

            try
            {
                Thread.Sleep(delay);
                ComparerStrategies.Hybrid.Partition(set, cancellationToken);
            }
            finally
            {
                Interlocked.Decrement(ref _active);
            }
        }
    }
}
