using Dedup.Core.Linking.Prediction;
using Microsoft.Extensions.Logging;

namespace Dedup.Core.Linking;

/// <summary>
/// What planning and applying log (<see cref="DuplicateActionPlanBuilder.UseLogger"/>), through the LoggerMessage source
/// generator. Event ids are stable (docs/linking.md lists them): 100–105 are the scan's (Diagnostics/ScanLog), 201–206 applying, 301–303 planning. Paths are written
/// with <see cref="Paths.AbsolutePath.ToDisplayString"/> and reasons with <see cref="Paths.PathText.EscapeMessage"/>, so one
/// entry is one line whatever a name holds. Nothing is formatted when the level is off.
/// </summary>
internal static partial class LinkingLog
{
    public static void PlanCreated(ILogger logger, DuplicateActionPlan plan, int refused)
    {
        if (logger.IsEnabled(LogLevel.Information))
        {
            PlanCreated(logger, plan.Actions.Count, plan.Linker.Description, refused, plan.ReclaimableBytes, plan.UndecidedGroups.Count);
        }
    }

    /// <summary>A refusal known at plan time: Information, since applying logs the same action as Skipped (Warning).</summary>
    public static void RefusedAtPlanTime(ILogger logger, DuplicateAction action)
    {
        if (logger.IsEnabled(LogLevel.Information))
        {
            // Stryker disable once String : only refused actions are logged here, so Refusal is never null
            RefusedAtPlanTime(logger, action.Kind, action.Path.ToDisplayString(), action.Kept.Path.ToDisplayString(), Paths.PathText.EscapeMessage(action.Refusal ?? string.Empty));
        }
    }

    public static void CapabilityProbed(ILogger logger, DuplicateActionKind kind, ulong device, ProbeOutcome outcome, string detail)
    {
        if (logger.IsEnabled(LogLevel.Debug))
        {
            CapabilityProbedCore(logger, kind, device, outcome, detail);
        }
    }

    public static void Outcome(ILogger logger, DuplicateActionOutcome outcome)
    {
        var level = outcome.Status switch
        {
            DuplicateActionStatus.Done => LogLevel.Information,
            DuplicateActionStatus.Skipped => LogLevel.Warning,
            _ => LogLevel.Error,
        };
        // Stryker disable once Statement,Block : spares the formatting only; the generated methods check the level again
        if (!logger.IsEnabled(level))
        {
            return;
        }

        var (kind, path, kept) = (outcome.Action.Kind, outcome.Action.Path.ToDisplayString(), outcome.Action.Kept.Path.ToDisplayString());
        // Stryker disable once String : only Done outcomes lack a reason, and ActionDone logs none
        var reason = Paths.PathText.EscapeMessage(outcome.Reason ?? string.Empty);
        switch (outcome.Status)
        {
            case DuplicateActionStatus.Done:
                ActionDone(logger, kind, path, kept);
                break;
            case DuplicateActionStatus.Skipped:
                ActionSkipped(logger, kind, path, kept, reason);
                break;
            default:
                ActionFailed(logger, kind, path, kept, reason);
                break;
        }
    }

    [LoggerMessage(EventId = 301, EventName = "PlanCreated", Level = LogLevel.Information,
        Message = "Planned {Actions} actions ({Linker}): {Refused} refused at plan time, {ReclaimableBytes} bytes reclaimable, {Undecided} groups left undecided")]
    private static partial void PlanCreated(ILogger logger, int actions, string linker, int refused, long reclaimableBytes, int undecided);

    [LoggerMessage(EventId = 302, EventName = "ActionRefusedAtPlanTime", Level = LogLevel.Information,
        Message = "Refused at plan time: {Kind} {Path} -> {Kept}: {Reason}")]
    private static partial void RefusedAtPlanTime(ILogger logger, DuplicateActionKind kind, string path, string kept, string reason);

    [LoggerMessage(EventId = 303, EventName = "CapabilityProbed", Level = LogLevel.Debug,
        Message = "Probed {Kind} on device {Device}: {Outcome} ({Detail})")]
    private static partial void CapabilityProbedCore(ILogger logger, DuplicateActionKind kind, ulong device, ProbeOutcome outcome, string detail);

    [LoggerMessage(EventId = 201, EventName = "ApplyStarting", Level = LogLevel.Information,
        Message = "Applying {Actions} actions ({Linker})")]
    public static partial void ApplyStarting(ILogger logger, int actions, string linker);

    [LoggerMessage(EventId = 202, EventName = "ActionDone", Level = LogLevel.Information,
        Message = "Done: {Kind} {Path} -> {Kept}")]
    private static partial void ActionDone(ILogger logger, DuplicateActionKind kind, string path, string kept);

    [LoggerMessage(EventId = 203, EventName = "ActionSkipped", Level = LogLevel.Warning,
        Message = "Skipped: {Kind} {Path} -> {Kept}: {Reason}")]
    private static partial void ActionSkipped(ILogger logger, DuplicateActionKind kind, string path, string kept, string reason);

    [LoggerMessage(EventId = 204, EventName = "ActionFailed", Level = LogLevel.Error,
        Message = "Failed: {Kind} {Path} -> {Kept}: {Reason}")]
    private static partial void ActionFailed(ILogger logger, DuplicateActionKind kind, string path, string kept, string reason);

    [LoggerMessage(EventId = 205, EventName = "ApplyCompleted", Level = LogLevel.Information,
        Message = "Applied: {Done} done, {Skipped} skipped, {Failed} failed, {ReclaimedBytes} bytes reclaimed")]
    public static partial void ApplyCompleted(ILogger logger, int done, int skipped, int failed, long reclaimedBytes);

    [LoggerMessage(EventId = 206, EventName = "ApplyCancelled", Level = LogLevel.Warning,
        Message = "Cancelled: {Done} done, {NotStarted} not started ({Skipped} skipped, {Failed} failed), {ReclaimedBytes} bytes reclaimed")]
    public static partial void ApplyCancelled(ILogger logger, int done, int notStarted, int skipped, int failed, long reclaimedBytes);
}
