using System.Globalization;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Dedup.Core.Linking;

/// <summary>
/// Every operation a run would perform and the bytes it would free. Print it for a dry run
/// (<see cref="WriteTo"/>) or carry it out with <see cref="ApplyAsync(CancellationToken)"/>.
/// </summary>
public sealed class DuplicateActionPlan
{
    internal DuplicateActionPlan(Linker linker, IReadOnlyList<DuplicateAction> actions, IReadOnlyList<string> leftoverTemporaryFiles)
    {
        Linker = linker;
        Actions = actions;
        LeftoverTemporaryFiles = leftoverTemporaryFiles;
        ReclaimableBytes = actions.Where(a => a.Refusal is null).Sum(a => a.ReclaimableBytes);
    }

    /// <summary>What happens to each duplicate.</summary>
    public Linker Linker { get; }

    /// <summary>The operations, group by group, in scan order.</summary>
    public IReadOnlyList<DuplicateAction> Actions { get; }

    /// <summary>Bytes freed if every action succeeds (for the trash: once the trash is emptied).</summary>
    public long ReclaimableBytes { get; }

    /// <summary>
    /// Temporary files (<c>.dedup-tmp-…</c>) left by an interrupted earlier run in the folders acted on; removed
    /// first when applied. Always empty on Windows and macOS, where no linker creates temporary files.
    /// </summary>
    public IReadOnlyList<string> LeftoverTemporaryFiles { get; }

    /// <summary>
    /// Groups left alone because the keep rules leave several copies tied for the one to keep (nothing is guessed;
    /// add <see cref="KeepRule.PathOrder"/> last to decide every group).
    /// </summary>
    public IReadOnlyList<DuplicateGroup> UndecidedGroups { get; internal init; } = [];

    /// <summary>
    /// Groups left alone because none of their copies lies under a reference folder
    /// (<see cref="DuplicateActionPlanBuilder.Reference"/>); always empty without reference folders.
    /// </summary>
    public IReadOnlyList<DuplicateGroup> UnreferencedGroups { get; internal init; } = [];

    /// <summary>
    /// Refusals the plan predicts for every file of a file system (it cannot clone, or cannot dedupe, at all), one per
    /// file system, to be said once rather than once per action; each of their actions is still refused and skipped.
    /// </summary>
    public IReadOnlyList<FileSystemRefusal> FileSystemRefusals { get; internal init; } = [];

    /// <summary>Where planning logged, and where applying logs (<see cref="DuplicateActionPlanBuilder.UseLogger"/>).</summary>
    internal ILogger Logger { get; init; } = NullLogger.Instance;

    /// <summary>Where applying writes ahead what undo needs (<see cref="DuplicateActionPlanBuilder.UseJournal"/>), or <see langword="null"/>.</summary>
    internal Journal.ActionJournal? Journal { get; init; }

    /// <summary>A folder plan's run in progress, when this plan holds one folder's files: their lines join that run.</summary>
    internal Journal.JournalRun? JournalRun { get; init; }

    /// <summary>Capability probes the planner ran for this plan (for tests).</summary>
    internal int ProbesRun { get; init; }

    /// <summary>Test seam: called at fixed points of each action (between creating the temporary link and the rename).</summary>
    internal LinkerFaults? Faults { get; set; }

    /// <summary>
    /// Writes the plan, one line per action, and the total (a dry run). Paths are shown with
    /// <see cref="AbsolutePath.ToDisplayString"/> (control and invisible characters escaped), so every action is one
    /// line and no name can pass for another; refusals are escaped with <see cref="PathText.EscapeMessage"/>.
    /// </summary>
    /// <param name="writer">Where to write.</param>
    public void WriteTo(TextWriter writer)
    {
        ArgumentNullException.ThrowIfNull(writer);
        foreach (var path in LeftoverTemporaryFiles)
        {
            writer.WriteLine($"remove leftover temporary file {PathText.Escape(path)}");
        }

        var verb = LinkerCapabilities.VerbOf(Linker);
        DuplicateFile? lastKept = null;
        foreach (var action in Actions)
        {
            if (!ReferenceEquals(action.Kept, lastKept))
            {
                writer.WriteLine(string.Create(CultureInfo.InvariantCulture, $"keep {action.Kept.Path.ToDisplayString()} ({action.Group.Size} bytes)"));
                lastKept = action.Kept;
            }

            var line = action.Refusal is not null
                ? $"  skip {action.Path.ToDisplayString()}: {PathText.EscapeMessage(action.Refusal)}"
                : string.Create(CultureInfo.InvariantCulture, $"  {verb} {action.Path.ToDisplayString()}{(action.ReclaimableBytes > 0 ? $" (frees {action.ReclaimableBytes} bytes)" : string.Empty)}");
            writer.WriteLine(line);
        }

        foreach (var group in UndecidedGroups)
        {
            writer.WriteLine(string.Create(CultureInfo.InvariantCulture, $"leave {group.Files.Count} copies ({group.Size} bytes): no keep rule decides which one stays"));
            foreach (var file in group.Files)
            {
                writer.WriteLine($"  leave {file.Path.ToDisplayString()}");
            }
        }

        if (UnreferencedGroups.Count > 0)
        {
            writer.WriteLine(string.Create(CultureInfo.InvariantCulture, $"leave {UnreferencedGroups.Count} groups ({UnreferencedGroups.Sum(g => (long)g.Files.Count)} copies): none under a reference folder"));
        }

        // What a link loses of the duplicate's own metadata (a clone keeps it): said once per plan.
        if (Actions.Count > 0 && LinkerCapabilities.Of(Linker).PlanNote is { } note)
        {
            writer.WriteLine(note);
        }

        writer.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{Actions.Count} actions, {Reporting.ByteCount.Format(ReclaimableBytes)} ({ReclaimableBytes} bytes) to reclaim"));
    }

    /// <summary>
    /// Carries out the plan, one action at a time. Each duplicate is re-checked against the scan and its bytes
    /// compared with the kept file's (the kernel compares them for <see cref="DuplicateActionKind.Dedupe"/>) before
    /// anything is changed; see <c>docs/linking.md</c>. On Windows and macOS, where the scan records no file
    /// identities, a duplicate that turns out to be the kept file under another path is skipped. Never throws for
    /// a single file: each outcome says what happened.
    /// </summary>
    /// <param name="cancellationToken">Stops before the next action; an action in progress completes or rolls back.</param>
    /// <returns>The per-action outcomes and the bytes reclaimed.</returns>
    /// <exception cref="ActionsCancelledException">
    /// The token was cancelled before every action was started; <see cref="ActionsCancelledException.Report"/> has the
    /// outcomes of those started and lists the rest (<see cref="DuplicateActionReport.NotStarted"/>).
    /// </exception>
    public ValueTask<DuplicateActionReport> ApplyAsync(CancellationToken cancellationToken = default) => ApplyAsync(null, cancellationToken);

    /// <summary>
    /// Carries out the plan as <see cref="ApplyAsync(CancellationToken)"/> does, reporting progress after every action
    /// started (refused ones included): as many reports as <see cref="Actions"/> unless cancelled, the last one with
    /// the report's counts and bytes reclaimed.
    /// </summary>
    /// <param name="progress">
    /// Receives an <see cref="ApplyProgress"/> after each action, called on the thread that applies the plan (an
    /// <see cref="IProgress{T}"/> such as <see cref="Progress{T}"/> posts it elsewhere); keep it quick, the next action
    /// waits for it. <see langword="null"/> reports nothing.
    /// </param>
    /// <param name="cancellationToken">Stops before the next action; an action in progress completes or rolls back.</param>
    /// <returns>The per-action outcomes and the bytes reclaimed.</returns>
    /// <exception cref="ActionsCancelledException">
    /// The token was cancelled before every action was started; <see cref="ActionsCancelledException.Report"/> has the
    /// outcomes of those started and lists the rest (<see cref="DuplicateActionReport.NotStarted"/>).
    /// </exception>
    /// <exception cref="IOException">The journal (<see cref="DuplicateActionPlanBuilder.UseJournal"/>) could not be written before the first action: nothing was done.</exception>
    public async ValueTask<DuplicateActionReport> ApplyAsync(IProgress<ApplyProgress>? progress, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            throw PlanExecutor.CancelledBeforeStart(this, cancellationToken);
        }

        using var activity = Diagnostics.Telemetry.Source.StartActivity(Diagnostics.DedupDiagnostics.ApplyActivityName);
        activity?.SetTag("dedup.actions", Actions.Count);

        // A thread of its own: every action is blocking file-system work, which must not hold a thread-pool worker
        // (a host's timers and requests run there) for as long as the plan takes. Not given the token: a task
        // cancelled on its way would hide the partial report the executor throws with.
        DuplicateActionReport report;
        try
        {
            report = await Task.Factory.StartNew(
                () => PlanExecutor.Apply(this, progress, cancellationToken),
                CancellationToken.None,
                TaskCreationOptions.LongRunning,
                TaskScheduler.Default).ConfigureAwait(false);
        }
        catch (ActionsCancelledException cancelled)
        {
            Tag(activity, cancelled.Report!, "cancelled");
            throw;
        }

        Tag(activity, report, "completed");
        return report;
    }

    private static void Tag(System.Diagnostics.Activity? activity, DuplicateActionReport report, string outcome)
    {
        activity?.SetTag("dedup.outcome", outcome);
        activity?.SetTag("dedup.done", report.Done);
        activity?.SetTag("dedup.skipped", report.Skipped);
        activity?.SetTag("dedup.failed", report.Failed);
        activity?.SetTag("dedup.not_started", report.NotStarted.Count);
    }
}
