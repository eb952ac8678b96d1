using Dedup.Core.Linking.Journal;

namespace Dedup.Core.Linking.Execution;

/// <summary>
/// Applies a plan action by action: re-check, verify, then act; never throws for one file. Linux runs the
/// linkers on <see cref="LinkContext"/>; Windows and macOS run Delete and Trash in <c>PlanExecutor.Portable.cs</c>.
/// </summary>
internal static partial class PlanExecutor
{
    public static DuplicateActionReport Apply(DuplicateActionPlan plan, IProgress<ApplyProgress>? progress, CancellationToken cancellationToken) =>
        OperatingSystem.IsLinux() ? ApplyLinux(plan, progress, cancellationToken) : ApplyPortableTracked(plan, MoveToSystemTrash, cancellationToken, progress);

    /// <summary>
    /// Linux: every root is opened and checked once for the run (<see cref="RootHandles"/>), leftovers and actions share
    /// it; the folders below are kept open for the actions after (<see cref="FolderCache"/>).
    /// </summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static DuplicateActionReport ApplyLinux(DuplicateActionPlan plan, IProgress<ApplyProgress>? progress, CancellationToken cancellationToken)
    {
        using var roots = new RootHandles();
        using var folders = new FolderCache(roots);
        LinkingLog.ApplyStarting(plan.Logger, plan.Actions.Count, plan.Linker.Description);
        var run = StartJournal(plan);
        return Apply(plan, run, action => ApplyLinux(plan.Linker, action, plan.Faults, folders, run), cancellationToken, progress, LeftoverCleaner.Remove(plan, roots));
    }

    /// <summary>
    /// The journal run the plan's actions write to: a folder plan's run in progress, or a new run whose line is written
    /// and synced now, before the first action; <see langword="null"/> without a journal (or without actions).
    /// </summary>
    internal static JournalRun? StartJournal(DuplicateActionPlan plan) =>
        plan.JournalRun ?? (plan.Journal is { } journal && plan.Actions.Count > 0
            ? JournalRun.Start(journal, plan.Linker.Kind, plan.Actions.SelectMany(a => a.Group.Roots))
            : null);

    private static DuplicateActionReport Apply(
        DuplicateActionPlan plan,
        JournalRun? run,
        Action<DuplicateAction> act,
        CancellationToken cancellationToken,
        IProgress<ApplyProgress>? progress,
        (int Removed, IReadOnlyList<string> LeftAlone) leftovers = default)
    {
        var (removed, leftAlone) = (leftovers.Removed, leftovers.LeftAlone ?? []);
        var outcomes = new List<DuplicateActionOutcome>(plan.Actions.Count);
        var tally = new ProgressTally(plan.Actions.Count);
        foreach (var action in plan.Actions)
        {
            // Checked between actions only: one in progress completes or rolls back. The rest are not started, and
            // neither reported nor logged one by one (a count and a list on the report instead).
            if (cancellationToken.IsCancellationRequested)
            {
                break;
            }

            run?.StartAction();
            var outcome = ApplyOne(action, act);
            outcomes.Add(outcome);
            run?.Outcome(outcome);
            LinkingLog.Outcome(plan.Logger, outcome);
            var snapshot = tally.Add(outcome);
            progress?.Report(snapshot);
        }

        var report = new DuplicateActionReport(outcomes, removed) { TemporaryFilesLeftAlone = leftAlone, NotStarted = NotStarted(plan.Actions, outcomes.Count) };
        if (report.NotStarted.Count > 0)
        {
            if (plan.JournalRun is null)
            {
                run?.Interrupted(report.Done, report.NotStarted.Count); // a folder's files: the folder run says it once
            }

            LinkingLog.ApplyCancelled(plan.Logger, report.Done, report.NotStarted.Count, report.Skipped, report.Failed, report.ReclaimedBytes);
            throw new ActionsCancelledException(report, cancellationToken);
        }

        LinkingLog.ApplyCompleted(plan.Logger, report.Done, report.Skipped, report.Failed, report.ReclaimedBytes);
        return report;
    }

    /// <summary>A run cancelled before it started: nothing done, every action not started, nothing logged.</summary>
    public static ActionsCancelledException CancelledBeforeStart(DuplicateActionPlan plan, CancellationToken cancellationToken) =>
        new(new DuplicateActionReport([], 0) { NotStarted = plan.Actions }, cancellationToken);

    /// <summary>The actions after the first <paramref name="started"/>, in plan order.</summary>
    // Stryker disable once Conditional : an empty array either way; spares an allocation per completed run
    internal static IReadOnlyList<T> NotStarted<T>(IReadOnlyList<T> actions, int started) =>
        started == actions.Count ? [] : actions.Skip(started).ToArray();

    private static DuplicateActionOutcome ApplyOne(DuplicateAction action, Action<DuplicateAction> act)
    {
        if (action.Refusal is not null)
        {
            return new DuplicateActionOutcome(action, DuplicateActionStatus.Skipped, action.Refusal);
        }

        try
        {
            act(action);
            return new DuplicateActionOutcome(action, DuplicateActionStatus.Done, null);
        }
        catch (ActionStoppedException stopped)
        {
            return new DuplicateActionOutcome(action, stopped.Status, stopped.Message);
        }
        catch (Exception ex)
        {
            return new DuplicateActionOutcome(action, DuplicateActionStatus.Failed, ex.Message);
        }
    }

    private static void ApplyLinux(Linker linker, DuplicateAction action, LinkerFaults? faults, FolderCache folders, JournalRun? run)
    {
        if (!OperatingSystem.IsLinux())
        {
            // Stryker disable once Statement : unreachable, Apply calls this on Linux only
            throw new PlatformNotSupportedException(); // Apply dispatches here on Linux only
        }

        using var context = new LinkContext(action, faults, folders: folders) { Journal = run };
        context.CheckKeptUnchanged();
        context.CheckDuplicateUnchanged();
        var capabilities = LinkerCapabilities.Of(linker);
        if (capabilities.SharesKeptMetadata)
        {
            // From the statuses the checks just took, before reading either file (the operations check again).
            context.RequireSameOwnerAndMode();
        }

        // Only a built-in that compares the bytes itself (dedupe: the kernel, under lock) skips the comparison. Any
        // other linker, a user's included, acts on files whose bytes were just found equal.
        if (!capabilities.VerifiesContentItself)
        {
            context.VerifyContent();
        }

        Run(linker, new LinkerContext(action, new LinuxBackend(context)));
    }

    /// <summary>Runs the linker; one that returned without an operation changed nothing.</summary>
    internal static void Run(Linker linker, LinkerContext context)
    {
        linker.Apply(context);
        if (!context.Performed)
        {
            throw ActionStoppedException.Skip($"the linker ({linker.Description}) returned without acting; nothing done");
        }
    }
}
