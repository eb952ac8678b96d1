using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Folders;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The library's awaits never resume on the caller's <see cref="SynchronizationContext"/> (a UI thread blocked on
/// the result would otherwise deadlock): each call starts under a context that counts what is posted to it, and
/// completes while it is pending, so a resumption on the context would be counted.
/// </summary>
public sealed class CallerContextTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(4000, 71);

    [LinuxFact]
    public async Task Planning_a_stream_of_groups_does_not_resume_on_the_callers_context()
    {
        var gate = new TaskCompletionSource();
        var planner = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build();
        var context = new CountingContext();

        var pending = Under(context, () => planner.PlanAsync(After(gate.Task)).AsTask());
        Assert.False(pending.IsCompleted);
        gate.SetResult(); // the iterator and the planner go on here, on this thread, unless posted elsewhere
        var plan = await pending;

        Assert.Single(plan.Actions);
        Assert.Equal(0, context.Posts);
    }

    [LinuxFact]
    public async Task Applying_a_file_plan_does_not_resume_on_the_callers_context()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Delete);
        using var gate = new ManualResetEventSlim();
        var context = new CountingContext();

        var pending = Under(context, () => plan.ApplyAsync(new Blocking(gate)).AsTask());
        gate.Set();
        var report = await pending;

        Assert.Equal(1, report.Done);
        Assert.Equal(0, context.Posts);
    }

    [LinuxFact]
    public async Task Applying_a_folder_plan_does_not_resume_on_the_callers_context()
    {
        using var tree = new TempTree();
        tree.Write("a_kept/one.bin", Content);
        tree.Write("b_copy/one.bin", Content);
        var (_, _, scan) = await FolderScanRun.RunAsync(tree);
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().PlanFolders(scan.FolderGroups);
        using var gate = new ManualResetEventSlim();
        var context = new CountingContext();

        var pending = Under(context, () => plan.ApplyAsync(new Blocking(gate)).AsTask());
        gate.Set();
        var report = await pending;

        Assert.Equal(DuplicateActionStatus.Done, Assert.Single(report.Outcomes).Status);
        Assert.Equal(0, context.Posts);
    }

    /// <summary>Starts <paramref name="start"/> with <paramref name="context"/> current, and puts the test's own back.</summary>
    private static Task<T> Under<T>(SynchronizationContext context, Func<Task<T>> start)
    {
        var previous = SynchronizationContext.Current;
        SynchronizationContext.SetSynchronizationContext(context);
        try
        {
            return start();
        }
        finally
        {
            SynchronizationContext.SetSynchronizationContext(previous);
        }
    }

    private static async IAsyncEnumerable<DuplicateGroup> After(Task gate)
    {
        await gate.ConfigureAwait(false);
        var time = new DateTime(2022, 5, 1, 0, 0, 0, DateTimeKind.Utc);
        yield return new DuplicateGroup(
            10,
            [new DuplicateFile(AbsolutePath.Parse("/s/a.bin"), [], new FileIdentity(1, 1), 10, 1, time), new DuplicateFile(AbsolutePath.Parse("/s/b.bin"), [], new FileIdentity(1, 2), 10, 1, time)],
            verifiedByBytes: true);
    }

    /// <summary>Counts the continuations posted to it and runs them on the thread pool.</summary>
    private sealed class CountingContext : SynchronizationContext
    {
        private int _posts;

        public int Posts => Volatile.Read(ref _posts);

        public override void Post(SendOrPostCallback d, object? state)
        {
            Interlocked.Increment(ref _posts);
            ThreadPool.QueueUserWorkItem(_ => d(state));
        }
    }

    /// <summary>Holds the applying thread at the first file until the test lets it go (the call is then still pending).</summary>
    private sealed class Blocking(ManualResetEventSlim gate) : IProgress<ApplyProgress>
    {
        public void Report(ApplyProgress value) => gate.Wait();
    }
}
