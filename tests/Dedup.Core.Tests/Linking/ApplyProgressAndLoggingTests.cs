using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;
using Microsoft.Extensions.Logging;

namespace Dedup.Core.Tests.Linking;

/// <summary>ApplyAsync's progress (one report per action, the last one the report's totals) and the linking log events.</summary>
public sealed class ApplyProgressAndLoggingTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(30_000, 141);

    [LinuxFact]
    public async Task Progress_is_reported_after_every_action_and_ends_at_the_reports_totals()
    {
        using var tree = MixedTree(out _);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink);
        var progress = new Collecting<ApplyProgress>();

        var report = await plan.ApplyAsync(progress);

        Assert.Equal(plan.Actions.Count, progress.Items.Count);
        Assert.Equal(Enumerable.Range(1, plan.Actions.Count), progress.Items.Select(p => p.Completed));
        Assert.Equal(plan.Actions.Select(a => a.Path), progress.Items.Select(p => p.LastPath));
        Assert.All(progress.Items, p => Assert.Equal(plan.Actions.Count, p.Total));
        var last = progress.Items[^1];
        Assert.Equal((report.Done, report.Skipped, report.Failed, report.ReclaimedBytes), (last.Done, last.Skipped, last.Failed, last.ReclaimedBytes));
        Assert.Equal((3, 1), (report.Done, report.Skipped)); // the test must see both kinds of outcome
        Assert.True(report.ReclaimedBytes > 0);
    }

    [LinuxFact]
    public async Task Bytes_of_a_duplicate_with_a_name_not_done_are_not_counted_as_progress()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        TempTree.Run("ln", b, tree.PathOf("b2.bin")); // two names: the bytes ride on the second
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink);
        File.Delete(plan.Actions[0].Path.ToString()); // the first name's action is skipped
        var progress = new Collecting<ApplyProgress>();

        var report = await plan.ApplyAsync(progress);

        Assert.Equal(2, progress.Items.Count);
        Assert.Equal(Content.Length, plan.ReclaimableBytes);
        Assert.Equal(0, report.ReclaimedBytes);
        Assert.Equal(0, progress.Items[^1].ReclaimedBytes);
        Assert.Equal((1, 1), (progress.Items[^1].Done, progress.Items[^1].Skipped));
    }

    [LinuxFact]
    public async Task Actions_not_started_after_a_cancel_are_neither_reported_nor_logged_one_by_one()
    {
        using var tree = MixedTree(out _);
        var logger = new CollectingLogger();
        var planner = new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).UseLogger(logger).Build();
        var plan = planner.Plan(await tree.ScanAsync());
        _ = logger.Take();
        using var cancellation = new CancellationTokenSource();
        var progress = new Collecting<ApplyProgress>(_ => cancellation.Cancel()); // cancel after the first action

        var cancelled = await Assert.ThrowsAsync<ActionsCancelledException>(async () => await plan.ApplyAsync(progress, cancellation.Token));

        Assert.Single(progress.Items);
        Assert.Equal(cancellation.Token, cancelled.CancellationToken);
        var report = cancelled.Report!;
        Assert.Equal(plan.Actions[0], Assert.Single(report.Outcomes).Action);
        Assert.Equal(plan.Actions.Skip(1), report.NotStarted);
        var applied = logger.Take();
        Assert.Single(applied, e => e.Id.Id == 202);
        Assert.DoesNotContain(applied, e => e.Id.Id is 203 or 204 or 205);
        var stop = Assert.Single(applied, e => e.Id.Id == 206);
        Assert.Equal(LogLevel.Warning, stop.Level);
        Assert.Equal($"Cancelled: 1 done, {plan.Actions.Count - 1} not started (0 skipped, 0 failed), {report.ReclaimedBytes} bytes reclaimed", stop.Message);
    }

    [LinuxFact]
    public async Task The_log_sees_the_plan_its_refusals_each_outcome_and_the_summary()
    {
        using var tree = MixedTree(out var odd);
        var logger = new CollectingLogger();
        var planner = new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).UseLogger(logger).Build();
        var plan = planner.Plan(await tree.ScanAsync());

        var planned = logger.Take();
        var refusal = Assert.Single(planned, e => e.Id.Id == 302);
        Assert.Equal(LogLevel.Information, refusal.Level);
        Assert.Contains(odd, refusal.Message, StringComparison.Ordinal);
        Assert.Contains("owner, group or permissions differ", refusal.Message, StringComparison.Ordinal);
        var made = Assert.Single(planned, e => e.Id.Id == 301);
        Assert.Contains($"Planned {plan.Actions.Count} actions (hard link): 1 refused at plan time, {plan.ReclaimableBytes} bytes reclaimable", made.Message, StringComparison.Ordinal);

        var report = await plan.ApplyAsync();

        var applied = logger.Take();
        Assert.Single(applied, e => e.Id.Id == 201);
        var done = applied.Where(e => e.Id.Id == 202).ToList();
        Assert.Equal(report.Done, done.Count);
        Assert.All(done, e => Assert.Equal(LogLevel.Information, e.Level));
        var skipped = Assert.Single(applied, e => e.Id.Id == 203);
        Assert.Equal(LogLevel.Warning, skipped.Level);
        Assert.Contains(odd, skipped.Message, StringComparison.Ordinal);
        Assert.Equal("ActionSkipped", skipped.Id.Name);
        var summary = Assert.Single(applied, e => e.Id.Id == 205);
        Assert.Equal($"Applied: {report.Done} done, 1 skipped, 0 failed, {report.ReclaimedBytes} bytes reclaimed", summary.Message);
    }

    [LinuxFact]
    public async Task A_failed_action_is_logged_as_an_error()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        var logger = new CollectingLogger();
        var planner = new DuplicateActionPlanBuilder().UseLinker(new ThrowingLinker()).UseLogger(logger).Build();

        var report = await planner.Plan(await tree.ScanAsync()).ApplyAsync();

        Assert.Equal(1, report.Failed);
        var failed = Assert.Single(logger.Take(), e => e.Id.Id == 204);
        Assert.Equal(LogLevel.Error, failed.Level);
        Assert.Contains("the backup store is offline", failed.Message, StringComparison.Ordinal);
    }

    /// <summary>a.bin kept; b.bin, d.bin and e.bin hard-linkable; c.bin (returned) with other permissions, refused.</summary>
    private static LinkTree MixedTree(out string odd)
    {
        var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        odd = tree.Write("c.bin", Content);
        tree.Write("d.bin", Content);
        tree.Write("e.bin", Content);
        File.SetUnixFileMode(odd, UnixFileMode.UserRead);
        return tree;
    }

    /// <summary>A synchronous <see cref="IProgress{T}"/> (<see cref="Progress{T}"/> would post reports to the thread pool).</summary>
    private sealed class Collecting<T>(Action<T>? then = null) : IProgress<T>
    {
        public List<T> Items { get; } = [];

        public void Report(T value)
        {
            Items.Add(value);
            then?.Invoke(value);
        }
    }

    private sealed class ThrowingLinker : Linker
    {
        public override string Description => "throwing";

        public override void Apply(LinkerContext context) => throw new IOException("the backup store is offline");
    }
}

/// <summary>A logger that keeps every entry, formatted, with its level and event id.</summary>
internal sealed class CollectingLogger : ILogger
{
    private readonly List<(LogLevel Level, EventId Id, string Message)> _entries = [];

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        lock (_entries)
        {
            _entries.Add((logLevel, eventId, formatter(state, exception)));
        }
    }

    /// <summary>The entries so far, and forgets them.</summary>
    public List<(LogLevel Level, EventId Id, string Message)> Take()
    {
        lock (_entries)
        {
            var taken = _entries.ToList();
            _entries.Clear();
            return taken;
        }
    }
}
