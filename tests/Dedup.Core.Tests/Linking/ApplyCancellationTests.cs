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

    [LinuxFact]
    public async Task A_cancel_after_the_last_action_is_a_completed_run()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink, KeepRule.PathOrder);
        using var cancellation = new CancellationTokenSource();

        var report = await plan.ApplyAsync(new Synchronous(_ => cancellation.Cancel()), cancellation.Token);

        Assert.Equal(1, report.Done);
        Assert.Empty(report.NotStarted);
    }

    [Fact]
    public void The_standard_constructors_carry_no_report()
    {
        var plain = new ActionsCancelledException();
        Assert.Equal("Applying the plan was cancelled.", plain.Message);
        Assert.Equal((null, null), (plain.Report, plain.FolderReport));
        var inner = new IOException("disk");
        var wrapped = new ActionsCancelledException("stopped", inner);
        Assert.Equal(("stopped", inner), (wrapped.Message, wrapped.InnerException));
        Assert.Equal("stopped", new ActionsCancelledException("stopped").Message);
    }

    /// <summary>A synchronous <see cref="IProgress{T}"/>: the callback runs before the next action starts.</summary>
    private sealed class Synchronous(Action<ApplyProgress> then) : IProgress<ApplyProgress>
    {
        public void Report(ApplyProgress value) => then(value);
    }
}
