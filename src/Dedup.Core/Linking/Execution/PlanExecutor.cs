namespace Dedup.Core.Linking.Execution;

/// <summary>
/// Applies a plan action by action: re-check, verify, then act; never throws for one file. Linux runs the
/// linkers on <see cref="LinkContext"/>; Windows and macOS run Delete and Trash in <c>PlanExecutor.Portable.cs</c>.
/// </summary>
internal static partial class PlanExecutor
{
    public static DuplicateActionReport Apply(DuplicateActionPlan plan, CancellationToken cancellationToken) =>
        OperatingSystem.IsLinux() ? ApplyLinux(plan, cancellationToken) : ApplyPortable(plan, MoveToSystemTrash, cancellationToken);

    /// <summary>Linux: every root is opened and checked once for the run (<see cref="RootHandles"/>), leftovers and actions share it.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static DuplicateActionReport ApplyLinux(DuplicateActionPlan plan, CancellationToken cancellationToken)
    {
        using var roots = new RootHandles();
        return Apply(plan, action => ApplyLinux(plan.Linker, action, plan.Faults, roots), cancellationToken, LeftoverCleaner.Remove(plan, roots));
    }

    private static DuplicateActionReport Apply(DuplicateActionPlan plan, Action<DuplicateAction> act, CancellationToken cancellationToken, (int Removed, IReadOnlyList<string> LeftAlone) leftovers = default)
    {
        var (removed, leftAlone) = (leftovers.Removed, leftovers.LeftAlone ?? []);
        var outcomes = new List<DuplicateActionOutcome>(plan.Actions.Count);
        foreach (var action in plan.Actions)
        {
            outcomes.Add(cancellationToken.IsCancellationRequested
                ? new DuplicateActionOutcome(action, DuplicateActionStatus.Skipped, "cancelled before this action")
                : ApplyOne(action, act));
        }

        return new DuplicateActionReport(outcomes, removed) { TemporaryFilesLeftAlone = leftAlone };
    }

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

    private static void ApplyLinux(ILinker linker, DuplicateAction action, LinkerFaults? faults, RootHandles roots)
    {
        if (!OperatingSystem.IsLinux())
        {
            throw new PlatformNotSupportedException(); // Apply dispatches here on Linux only
        }

        using var context = new LinkContext(action, faults, roots);
        context.CheckKeptUnchanged();
        context.CheckDuplicateUnchanged();
        if (linker.Kind is DuplicateActionKind.HardLink or DuplicateActionKind.SymbolicLink)
        {
            // From the statuses the checks just took, before reading either file (the operations check again).
            context.RequireSameOwnerAndMode();
        }

        // Only the built-in dedupe skips the byte comparison: the kernel compares under lock. Any other linker,
        // a user's included, acts on files whose bytes were just found equal.
        if (linker is not BuiltIn.DedupeLinker)
        {
            context.VerifyContent();
        }

        Run(linker, new LinkerContext(action, context));
    }

    /// <summary>Runs the linker; one that returned without an operation changed nothing.</summary>
    internal static void Run(ILinker linker, LinkerContext context)
    {
        linker.Apply(context);
        if (!context.Performed)
        {
            throw ActionStoppedException.Skip($"the linker ({linker.Description}) returned without acting; nothing done");
        }
    }
}
