using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Issue #36 point 3: a cancelled <c>ApplyAsync</c> throws, as a cancelled scan does, with the partial report on the
/// exception: the actions started (done, on disk), and those not started (untouched, listed, not one "skipped" each).
/// </summary>
public sealed class ApplyCancellationTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, 361);

    [LinuxFact]
    public async Task Cancelling_after_the_third_of_ten_actions_throws_with_three_done_and_seven_not_started()
    {
        using var tree = new LinkTree();
        var kept = tree.Write("a.bin", Content);
        var copies = Enumerable.Range(0, 10).Select(i => tree.Write($"copy{i:D2}.bin", Content)).ToArray();
        var inodes = copies.Select(TestNative.Inode).ToArray();
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink, KeepRule.PathOrder);
        Assert.Equal(copies, plan.Actions.Select(a => a.Path.ToString()));
        using var cancellation = new CancellationTokenSource();
        var reports = 0;
        var progress = new Synchronous(p =>
        {
            reports++;
            if (p.Completed == 3)
            {
                cancellation.Cancel();
            }
        });

        var cancelled = await Assert.ThrowsAsync<ActionsCancelledException>(async () => await plan.ApplyAsync(progress, cancellation.Token));

        Assert.Equal(cancellation.Token, cancelled.CancellationToken);
        Assert.Null(cancelled.FolderReport);
        var report = cancelled.Report!;
        Assert.Equal((3, 0, 0), (report.Done, report.Skipped, report.Failed));
        Assert.Equal(plan.Actions.Take(3), report.Outcomes.Select(o => o.Action));
        Assert.Equal(plan.Actions.Skip(3), report.NotStarted);
        Assert.Equal(3L * Content.Length, report.ReclaimedBytes);
        Assert.Equal(3, reports); // the actions not started are not reported as progress either
        Assert.Equal("Applying the plan was cancelled: 3 actions done, 7 not started.", cancelled.Message);

        // On disk: the first three are now the kept file, the other seven the files they were.
        var keptInode = TestNative.Inode(kept);
        Assert.All(copies.Take(3), c => Assert.Equal(keptInode, TestNative.Inode(c)));
        Assert.Equal(inodes.Skip(3), copies.Skip(3).Select(TestNative.Inode));
        Assert.All(copies, c => Assert.Equal(Content, File.ReadAllBytes(c)));
    }

    /// <summary>
    /// A token cancelled while the last action reports its progress finds nothing left to stop: that plan's run is
    /// complete and returns its report. The same token, still cancelled, stops the next plan before its first action.
    /// </summary>
    [LinuxFact]
    public async Task A_cancel_after_the_last_action_is_a_completed_run_and_stops_the_next_plan_before_it_starts()
    {
        using var tree = new LinkTree();
        var kept = tree.Write("first/a.bin", Content);
        var copies = new[] { tree.Write("first/b.bin", Content), tree.Write("first/c.bin", Content) };
        var other = TempTree.RandomBytes(7000, 362);
        var nextFiles = new[] { tree.Write("next/a.bin", other), tree.Write("next/b.bin", other) };
        var nextInodes = nextFiles.Select(TestNative.Inode).ToArray();
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("first")), Linkers.HardLink, KeepRule.PathOrder);
        var next = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("next")), Linkers.HardLink, KeepRule.PathOrder);
        using var cancellation = new CancellationTokenSource();

        var report = await plan.ApplyAsync(new Synchronous(p =>
        {
            if (p.Completed == 2)
            {
                cancellation.Cancel();
            }
        }), cancellation.Token);

        Assert.True(cancellation.IsCancellationRequested);
        Assert.Equal((2, 0, 0), (report.Done, report.Skipped, report.Failed));
        Assert.Empty(report.NotStarted);
        Assert.All(copies, c => Assert.Equal(TestNative.Inode(kept), TestNative.Inode(c)));

        var stopped = await Assert.ThrowsAsync<ActionsCancelledException>(async () => await next.ApplyAsync(new Synchronous(_ => { }), cancellation.Token));

        Assert.Equal((0, 0, 0), (stopped.Report!.Done, stopped.Report.Skipped, stopped.Report.Failed));
        Assert.Equal(next.Actions, stopped.Report.NotStarted);
        Assert.Equal("Applying the plan was cancelled: 0 actions done, 1 not started.", stopped.Message);
        Assert.Equal(nextInodes, nextFiles.Select(TestNative.Inode));
    }

    /// <summary>A synchronous <see cref="IProgress{T}"/>: the callback runs before the next action starts.</summary>
    private sealed class Synchronous(Action<ApplyProgress> then) : IProgress<ApplyProgress>
    {
        public void Report(ApplyProgress value) => then(value);
    }
}
