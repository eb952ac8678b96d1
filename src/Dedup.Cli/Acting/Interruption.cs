using Dedup.Core.Linking;

namespace Dedup.Cli.Acting;

/// <summary>
/// What an interrupted <c>link</c> or <c>delete</c> left, counted in per-name actions across the folder plan and the
/// file plan: those done (they stay done) and those not started. The command says it in one line, and the
/// <c>--log</c> gets one entry, however many actions were not started.
/// </summary>
/// <param name="Done">Actions carried out before the interrupt.</param>
/// <param name="NotStarted">Actions the interrupt kept from starting.</param>
internal sealed record Interruption(int Done, int NotStarted)
{
    /// <summary>The line on standard error (after <c>dedup: </c>) and the log entry's reason.</summary>
    public string Message => $"interrupted: {Done} done, {NotStarted} not started; run the same command again to finish";

    /// <summary>
    /// From the cancelled run's partial report: the folder plan's (then the file plan was not started) or the file
    /// plan's (then <paramref name="folders"/> is what the folder plan did before it, if there was one).
    /// </summary>
    public static Interruption Of(ActionsCancelledException cancelled, DuplicateActionPlan plan, DuplicateFolderActionReport? folders)
    {
        var folderReport = cancelled.FolderReport ?? folders;
        var done = folderReport?.Outcomes.Sum(o => o.Files.Count(f => f.Status == DuplicateActionStatus.Done)) ?? 0;
        if (cancelled.FolderReport is { } stopped)
        {
            var notStarted = stopped.NotStarted.Sum(a => a.FileActions.Count) + stopped.Outcomes.Sum(o => o.NotStarted.Count);
            return new(done, notStarted + plan.Actions.Count);
        }

        var report = cancelled.Report!;
        return new(done + report.Done, report.NotStarted.Count);
    }
}
