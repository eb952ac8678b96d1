namespace Dedup.Core.Linking;

/// <summary>Applies a plan action by action: re-check, verify, then let the linker act; never throws for one file.</summary>
internal static class PlanExecutor
{
    public static DuplicateActionReport Apply(DuplicateActionPlan plan, CancellationToken cancellationToken)
    {
        var removed = TemporaryFiles.RemoveLeftovers(plan.LeftoverTemporaryFiles);
        var outcomes = new List<DuplicateActionOutcome>(plan.Actions.Count);
        foreach (var action in plan.Actions)
        {
            outcomes.Add(cancellationToken.IsCancellationRequested
                ? new DuplicateActionOutcome(action, DuplicateActionStatus.Skipped, "cancelled before this action")
                : ApplyOne(plan.Linker, action, plan.Faults));
        }

        return new DuplicateActionReport(outcomes, removed);
    }

    private static DuplicateActionOutcome ApplyOne(ILinker linker, DuplicateAction action, LinkerFaults? faults)
    {
        if (action.Refusal is not null)
        {
            return new DuplicateActionOutcome(action, DuplicateActionStatus.Skipped, action.Refusal);
        }

        try
        {
            using var context = new LinkContext(action, faults);
            context.CheckKeptUnchanged();
            context.CheckDuplicateUnchanged();
            if (!linker.KernelVerifiesContent)
            {
                context.VerifyContent();
            }

            linker.Apply(context);
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
}
