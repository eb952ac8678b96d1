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
    }

    [LinuxFact]
    public async Task A_token_cancelled_before_applying_throws_at_once_and_touches_nothing()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Delete);
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();

        // The run's own exception with its (empty) report, not a task cancelled on its way.
        var first = await Assert.ThrowsAsync<ActionsCancelledException>(async () => await plan.ApplyAsync(cancelled.Token));
        Assert.Equal(plan.Actions, first.Report!.NotStarted);
        Assert.Empty(first.Report.Outcomes);
        await Assert.ThrowsAsync<ActionsCancelledException>(async () => await plan.ApplyAsync(null, cancelled.Token));
        Assert.True(File.Exists(b));

        using var folders = new TempTree();
        folders.Write("a_kept/x.bin", Content);
        var copy = folders.Write("b_copy/x.bin", Content);
        var folderScan = (await Folders.FolderScanRun.RunAsync(folders)).Scan;
        var folderPlan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().PlanFolders(folderScan.FolderGroups);
        Assert.Single(folderPlan.Actions);
        var stopped = await Assert.ThrowsAsync<ActionsCancelledException>(async () => await folderPlan.ApplyAsync(cancelled.Token));
        Assert.Equal(folderPlan.Actions, stopped.FolderReport!.NotStarted);
        Assert.Null(stopped.Report);
        Assert.True(File.Exists(copy));
    }
}
