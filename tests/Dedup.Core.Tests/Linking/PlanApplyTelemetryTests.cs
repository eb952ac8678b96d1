using System.Collections.Concurrent;
using System.Diagnostics;
using Dedup.Core.Diagnostics;
using Dedup.Core.Linking;
using Dedup.Core.Tests.Hosting;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Applying a plan as an observer sees it: one <c>dedup.apply</c> activity tagged with the plan's counts, and a token
/// cancelled before the start that stops everything. In the telemetry collection, so every activity seen is ours.
/// </summary>
[Collection(nameof(TelemetryTests))]
public sealed class PlanApplyTelemetryTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(2000, 31);

    [LinuxFact]
    public async Task Applying_is_one_activity_tagged_with_the_actions_and_their_outcomes()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        tree.Write("c.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Delete);
        await File.AppendAllTextAsync(tree.PathOf("c.bin"), "changed"); // skipped when applied
        var stopped = new ConcurrentQueue<Activity>();
        using var listener = new ActivityListener
        {
            ShouldListenTo = source => source.Name == DedupDiagnostics.ActivitySourceName,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = stopped.Enqueue,
        };
        ActivitySource.AddActivityListener(listener);

        var report = await plan.ApplyAsync();

        Assert.Equal((1, 1, 0), (report.Done, report.Skipped, report.Failed));
        var activity = Assert.Single(stopped, a => a.OperationName == DedupDiagnostics.ApplyActivityName);
        Assert.Equal(2, activity.GetTagItem("dedup.actions"));
        Assert.Equal(1, activity.GetTagItem("dedup.done"));
        Assert.Equal(1, activity.GetTagItem("dedup.skipped"));
        Assert.Equal(0, activity.GetTagItem("dedup.failed"));
        Assert.Equal("completed", activity.GetTagItem("dedup.outcome"));
        Assert.Equal(0, activity.GetTagItem("dedup.not_started"));
    }

    [LinuxFact]
    public async Task A_cancelled_apply_is_tagged_cancelled_with_what_was_not_started()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        tree.Write("c.bin", Content);
        tree.Write("d.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Delete, KeepRule.PathOrder);
        var stopped = new ConcurrentQueue<Activity>();
        using var listener = new ActivityListener
        {
            ShouldListenTo = source => source.Name == DedupDiagnostics.ActivitySourceName,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = stopped.Enqueue,
        };
        ActivitySource.AddActivityListener(listener);
        using var cancel = new CancellationTokenSource();

        await Assert.ThrowsAsync<ActionsCancelledException>(async () => await plan.ApplyAsync(new CancelAtFirst(cancel), cancel.Token));

        var activity = Assert.Single(stopped, a => a.OperationName == DedupDiagnostics.ApplyActivityName);
        Assert.Equal("cancelled", activity.GetTagItem("dedup.outcome"));
        Assert.Equal(3, activity.GetTagItem("dedup.actions"));
        Assert.Equal(1, activity.GetTagItem("dedup.done"));
        Assert.Equal(0, activity.GetTagItem("dedup.skipped"));
        Assert.Equal(0, activity.GetTagItem("dedup.failed"));
        Assert.Equal(2, activity.GetTagItem("dedup.not_started"));
    }

    private sealed class CancelAtFirst(CancellationTokenSource cancel) : IProgress<ApplyProgress>
    {
        public void Report(ApplyProgress value) => cancel.Cancel();
    }

    [LinuxFact]
    public async Task A_token_cancelled_before_applying_throws_at_once_and_touches_nothing()
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var leftover = tree.PathOf(".dedup-tmp-" + new string('3', 32)); // removed first by a run that starts
        TempTree.Run("ln", a, leftover);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Delete);
        Assert.Equal([leftover], plan.LeftoverTemporaryFiles);
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();

        // The run's own exception with its (empty) report, not a task cancelled on its way.
        var first = await Assert.ThrowsAsync<ActionsCancelledException>(async () => await plan.ApplyAsync(cancelled.Token));
        Assert.Equal(plan.Actions, first.Report!.NotStarted);
        Assert.Empty(first.Report.Outcomes);
        await Assert.ThrowsAsync<ActionsCancelledException>(async () => await plan.ApplyAsync(null, cancelled.Token));
        Assert.True(File.Exists(b));
        Assert.True(File.Exists(leftover));

        using var folders = new TempTree();
        folders.Write("a_kept/x.bin", Content);
        var copy = folders.Write("b_copy/x.bin", Content);
        var folderLeftover = folders.Write("b_copy/.dedup-tmp-" + new string('4', 32), []);
        var folderScan = (await Folders.FolderScanRun.RunAsync(folders)).Scan;
        var folderPlan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().PlanFolders(folderScan.FolderGroups);
        Assert.Single(folderPlan.Actions);
        var stopped = await Assert.ThrowsAsync<ActionsCancelledException>(async () => await folderPlan.ApplyAsync(cancelled.Token));
        Assert.Equal(folderPlan.Actions, stopped.FolderReport!.NotStarted);
        Assert.Null(stopped.Report);
        Assert.True(File.Exists(copy));
        Assert.True(File.Exists(folderLeftover));
    }
}
