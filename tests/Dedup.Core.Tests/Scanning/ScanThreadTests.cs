using System.Collections.Concurrent;
using Dedup.Core.Comparison;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// A scan is a good guest in its host (#13): its blocking work runs on its own threads, never on thread-pool workers
/// the host's timers and continuations need, and those threads end with the scan. Nothing here is timed; the
/// lateness and cancellation figures come from <c>benchmarks/host</c> (docs/benchmarks.md).
/// </summary>
public sealed class ScanThreadTests
{
    [Fact]
    public async Task At_default_settings_comparisons_never_run_on_a_thread_pool_thread()
    {
        using var tree = PairTree(pairs: 40, firstSize: 9000); // above the whole-read limit: every set reaches the strategy
        var strategy = new RecordingStrategy();

        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseComparer(strategy));

        Assert.Equal(40, groups.Count);
        Assert.Equal(40, strategy.Calls.Count);
        Assert.All(strategy.Calls, call => Assert.False(call.PoolThread, $"Partition ran on pool thread {call.Thread.ManagedThreadId}."));
        Assert.All(strategy.Calls, call => Assert.Equal("dedup scan", call.Thread.Name));
    }

    [Fact]
    public async Task After_cancellation_no_further_group_is_yielded_even_when_more_are_ready()
    {
        using var tree = PairTree(pairs: 300, firstSize: 100); // small files: settled by the probe, many groups quickly
        var progress = new LatestProgress();
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).ReportProgress(progress).Build();
        using var cts = new CancellationTokenSource();
        await using var groups = finder.FindAsync(cts.Token).GetAsyncEnumerator();

        Assert.True(await groups.MoveNextAsync());

        // Groups are counted just before they are handed over, by at most MaxDegreeOfParallelism threads at once, so
        // once the count is that much above 2 a second group is waiting in the scan's buffer.
        var ready = 2 + Environment.ProcessorCount;
        while (progress.GroupsFound < ready && progress.Phase != ScanPhase.Completed)
        {
            await Task.Delay(10);
        }

        Assert.True(progress.GroupsFound >= ready, $"only {progress.GroupsFound} groups were found: the premise does not hold");
        await cts.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await groups.MoveNextAsync());
    }

    [Fact]
    public async Task Leaving_the_enumeration_early_cancels_the_comparisons_and_ends_the_scan_threads()
    {
        using var tree = PairTree(pairs: 60, firstSize: 9000);
        var strategy = new RecordingStrategy();
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).UseComparer(strategy).Build();

        await foreach (var group in finder.FindAsync())
        {
            break; // disposing the enumerator ends the scan
        }

        Assert.NotEmpty(strategy.Calls);
        Assert.All(strategy.Calls, call => Assert.True(call.Token.IsCancellationRequested, "a comparison's token was not cancelled when the consumer left"));

        // The enumerator's disposal waited for them; the join only guards against a hang.
        foreach (var thread in strategy.Calls.Select(c => c.Thread).Distinct())
        {
            Assert.True(thread.Join(TimeSpan.FromSeconds(30)), $"scan thread {thread.ManagedThreadId} outlived the scan");
        }
    }

    [Fact]
    public async Task ForEach_runs_each_item_once_and_reports_failures_together()
    {
        var threads = new ScanThreads(3);
        var seen = new ConcurrentBag<int>();
        Exception? failure = null;
        var shared = new InvalidOperationException("shared");
        Exception? sharedFailure = null;
        await threads.RunAsync(() =>
        {
            threads.ForEach(Enumerable.Range(0, 100).ToList(), seen.Add, CancellationToken.None);

            // Both items start before either fails, so both failures are reported.
            using var bothStarted = new CountdownEvent(2);
            failure = Assert.Throws<AggregateException>(() => threads.ForEach([1, 2], i =>
            {
                bothStarted.Signal();
                bothStarted.Wait();
                throw new InvalidOperationException($"item {i}");
            }, CancellationToken.None));

            // The same exception met by both workers is thrown as itself.
            using var bothStartedAgain = new CountdownEvent(2);
            sharedFailure = Assert.Throws<InvalidOperationException>(() => threads.ForEach([1, 2], i =>
            {
                bothStartedAgain.Signal();
                bothStartedAgain.Wait();
                throw shared;
            }, CancellationToken.None));
        });
        await threads.DisposeAsync();

        Assert.Equal(Enumerable.Range(0, 100), seen.Order());
        Assert.Equal(["item 1", "item 2"], ((AggregateException)failure!).InnerExceptions.Select(e => Assert.IsType<InvalidOperationException>(e).Message).Order(StringComparer.Ordinal));
        Assert.Same(shared, sharedFailure);
    }

    [Fact]
    public async Task ForEach_stops_handing_out_items_once_cancelled()
    {
        var threads = new ScanThreads(2);
        using var cts = new CancellationTokenSource();
        var started = 0;
        var afterCancel = 0;
        var run = threads.RunAsync(() => threads.ForEach(Enumerable.Range(0, 1000).ToList(), i =>
        {
            if (cts.IsCancellationRequested)
            {
                Interlocked.Increment(ref afterCancel);
            }

            if (Interlocked.Increment(ref started) == 10)
            {
                cts.Cancel();
            }
        }, cts.Token));

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run);
        await threads.DisposeAsync();
        // Counted from the cancel itself, not from the tenth item: the thread that took it may be preempted before it
        // cancels while the other runs on (seen in CI: 40 items). Once cancelled, the other thread may have taken one
        // more item before it looked; no more.
        Assert.InRange(started, 10, 1000);
        Assert.InRange(afterCancel, 0, 1);
    }

    [Fact]
    public async Task A_withdrawn_helper_lets_go_of_its_work_while_it_waits_in_the_queue()
    {
        // One thread, busy running this: the helper is never taken, so the caller withdraws it and it stays queued.
        var threads = new ScanThreads(1);
        var collected = false;
        var withdrawnWhileQueued = false;
        await threads.RunAsync(() =>
        {
            var (job, work) = StartHelperHolding(threads);
            threads.WithdrawOrWait(job);
            withdrawnWhileQueued = !job.IsDone;
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            collected = !work.TryGetTarget(out _);
            GC.KeepAlive(job);
        });
        await threads.DisposeAsync();

        Assert.True(withdrawnWhileQueued);
        Assert.True(collected); // before the fix, thousands of such jobs held whole candidate sets on a 3 M-file scan
    }

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static (ScanThreads.Job Job, WeakReference<byte[]> Work) StartHelperHolding(ScanThreads threads)
    {
        var work = new byte[1 << 20];
        return (threads.StartHelper(() => work[0]++), new WeakReference<byte[]>(work));
    }

    /// <summary><paramref name="pairs"/> duplicate pairs, each of its own size from <paramref name="firstSize"/>.</summary>
    private static TempTree PairTree(int pairs, int firstSize)
    {
        var tree = new TempTree();
        for (var i = 0; i < pairs; i++)
        {
            var content = TempTree.RandomBytes(firstSize + i, i);
            tree.Write($"a/{i}.bin", content);
            tree.Write($"b/{i}.bin", content);
        }

        return tree;
    }

    private sealed record Call(Thread Thread, bool PoolThread, CancellationToken Token);

    /// <summary>The real Hybrid strategy, recording the thread and token of every call.</summary>
    private sealed class RecordingStrategy : IComparerStrategy
    {
        private readonly ConcurrentQueue<Call> _calls = new();

        public IReadOnlyCollection<Call> Calls => _calls;

        public string Name => "recording";

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default)
        {
            _calls.Enqueue(new Call(Thread.CurrentThread, Thread.CurrentThread.IsThreadPoolThread, cancellationToken));
            ComparerStrategies.Hybrid.Partition(set, cancellationToken);
        }
    }

    private sealed class LatestProgress : IProgress<ScanProgress>
    {
        private readonly object _gate = new();
        private ScanProgress _latest;

        public int GroupsFound => Latest.GroupsFound;

        public ScanPhase Phase => Latest.Phase;

        private ScanProgress Latest
        {
            get
            {
                lock (_gate)
                {
                    return _latest;
                }
            }
        }

        public void Report(ScanProgress value)
        {
            lock (_gate)
            {
                _latest = value;
            }
        }
    }
}
