using Dedup.Cli.Output;
using Dedup.Core.Linking;
using Dedup.Core.Paths;

namespace Dedup.Cli.Acting;

/// <summary>
/// What <c>link</c> and <c>delete</c> say between planning and applying: the plan in one or two lines, the file systems
/// that refuse the action as a whole (once each), and, without <c>--yes</c>, the plan itself and the question.
/// </summary>
internal static class PlanPrompt
{
    /// <summary>
    /// Says the plan and asks; <see langword="null"/> to go on and apply, or the exit code to end with: nothing to do,
    /// no terminal to ask on (without <paramref name="yes"/>), or the answer was not yes.
    /// </summary>
    public static async Task<int?> ConfirmAsync(DuplicateActionPlan plan, DuplicateFolderActionPlan? folderPlan, Linker linker, bool yes, bool incomplete, bool undecided)
    {
        // (The dry run lists them in the plan.)
        if (plan.UnreferencedGroups.Count > 0)
        {
            Console.WriteLine($"{Counts.Of(plan.UnreferencedGroups.Count, "group", "groups")} left alone: no copy under a --reference folder");
        }

        // Refusals the plan predicts (a file system that cannot clone, owners that differ, …) are what applying will skip.
        var refused = plan.Actions.Count(a => a.Refusal is not null);
        var refusedNote = refused > 0 ? $", {refused} of them refused (see --dry-run)" : string.Empty;
        Console.WriteLine($"{Counts.Of(plan.Actions.Count, "action", "actions")} ({linker.Description}){refusedNote}, {TextReportWriter.Format(plan.ReclaimableBytes)} to reclaim");
        if (folderPlan is not null)
        {
            var refusedFolders = folderPlan.Actions.Count(a => a.Refusal is not null);
            Console.WriteLine($"{Counts.Of(folderPlan.Actions.Count, "folder action", "folder actions")}{(refusedFolders > 0 ? $", {refusedFolders} of them refused (see --dry-run)" : string.Empty)}, {TextReportWriter.Format(folderPlan.ReclaimableBytes)} to reclaim");
        }

        // A file system that cannot do the action at all is said once, up front; its actions are still skipped one by one.
        foreach (var refusal in plan.FileSystemRefusals)
        {
            var where = refusal.FirstPath.Parent ?? refusal.FirstPath;
            await Console.Error.WriteLineAsync($"dedup: skipping {Counts.Of(refusal.Actions.Count, "file", "files")} on the file system of {where.ToDisplayString()}: {PathText.EscapeMessage(refusal.Reason)}").ConfigureAwait(false);
        }

        if (plan.Actions.Count == 0 && (folderPlan is null || folderPlan.Actions.Count == 0))
        {
            return ExitCodes.Completed(incomplete, undecided);
        }

        return yes ? null : await AskAsync(plan, folderPlan, linker.Kind == DuplicateActionKind.Delete).ConfigureAwait(false);
    }

    private static async Task<int?> AskAsync(DuplicateActionPlan plan, DuplicateFolderActionPlan? folderPlan, bool permanent)
    {
        if (Console.IsInputRedirected)
        {
            await Console.Error.WriteLineAsync("dedup: refusing to change files without confirmation: standard input is not a terminal; pass --yes (or --dry-run)").ConfigureAwait(false);
            return ExitCodes.BadUsage;
        }

        // The plan itself, not just a count: what will happen to which files.
        folderPlan?.WriteTo(Console.Error);
        await Console.Error.WriteAsync(ActionLog.Preview(plan, 20)).ConfigureAwait(false);
        if (permanent)
        {
            await Console.Error.WriteLineAsync(ActingCommand.PermanentNote).ConfigureAwait(false);
        }

        await Console.Error.WriteAsync("Apply? [y/N] ").ConfigureAwait(false);
        var answer = Console.ReadLine()?.Trim();
        if (!string.Equals(answer, "y", StringComparison.OrdinalIgnoreCase) && !string.Equals(answer, "yes", StringComparison.OrdinalIgnoreCase))
        {
            await Console.Error.WriteLineAsync("dedup: nothing done").ConfigureAwait(false);
            return ExitCodes.Declined;
        }

        return null;
    }
}
