using System.CommandLine;
using Dedup.Cli.Output;
using Dedup.Cli.Selection;
using Dedup.Core;
using Dedup.Core.Linking;
using Dedup.Core.Paths;

namespace Dedup.Cli.Acting;

/// <summary>
/// What <c>dedup link</c> and <c>dedup delete</c> share: PATH... or <c>--from-report</c>, <c>--keep</c> rules,
/// <c>--dry-run</c>, the confirmation prompt (<c>--yes</c>), applying the plan and reporting bytes reclaimed.
/// </summary>
internal sealed class ActingCommand
{
    private readonly Argument<string[]> _paths = new("path") { Arity = ArgumentArity.ZeroOrMore, Description = "Folders, or files (Linux), to scan (or use --files-from or --from-report)." };
    private readonly Option<string?> _filesFrom = PathList.CreateOption();
    private readonly Option<string[]> _keep = new("--keep") { Description = "Which file stays: first-root, oldest, newest, shortest-path, path-order or prefix:FOLDER (repeatable; the first rule that decides wins; a group no rule decides is left alone; default first-root then path-order).", AllowMultipleArgumentsPerToken = false };
    private readonly Option<string[]> _protect = new("--protect") { Description = "Never act on a copy under this folder: in a group with one, a protected copy is the one kept (chosen by --keep among them) and only the others are acted on (repeatable; scanned too).", AllowMultipleArgumentsPerToken = false };
    private readonly Option<string[]> _reference = new("--reference") { Description = "As --protect, and act only on groups with a copy under this folder: 'dedup delete B --reference A' deletes from B what exists in A and leaves duplicates inside B alone (repeatable; scanned too).", AllowMultipleArgumentsPerToken = false };
    private readonly Option<bool> _dryRun = new("--dry-run") { Description = "Print every planned operation and the bytes it would reclaim; change nothing." };
    private readonly Option<bool> _yes = new("--yes", "-y") { Description = "Do not ask for confirmation (required when standard input is not a terminal)." };
    private readonly Option<FileInfo?> _fromReport = ExactFileNames.Require(new Option<FileInfo?>("--from-report") { Description = "Act on the groups of a JSON report from 'dedup find --format json' (re-verified before acting) instead of scanning." });
    private readonly Option<FileInfo?> _log = ExactFileNames.Require(new Option<FileInfo?>("--log") { Description = "Keep a journal in this file (appended): before each change, what 'dedup undo' needs to take it back, synced to disk; then each action's outcome (JSON lines, docs/journal.md)." });
    private readonly Option<bool> _verbose = new("--verbose", "-v") { Description = "Print each action as it completes." };
    private readonly Option<bool> _folders = new("--folders") { Description = "Act on whole duplicate folders first (every file re-verified against the kept folder, nothing new in the folder), then on the remaining file groups; needs a scan (not --from-report)." };
    private readonly ScanSelection _selection = new();

    /// <summary>Said before a permanent delete is confirmed, and after its dry run.</summary>
    internal const string PermanentNote = "dedup: note: these deletions are permanent and cannot be undone; use 'dedup delete --trash' to be able to restore them";

    public void AddTo(Command command)
    {
        _keep.CompletionSources.Add("first-root", "oldest", "newest", "shortest-path", "path-order", "prefix:"); // shell completion offers the rules
        command.Arguments.Add(_paths);
        foreach (var option in new Option[] { _keep, _protect, _reference, _dryRun, _yes, _fromReport, _filesFrom, _log, _verbose, _folders })
        {
            command.Options.Add(option);
        }

        _selection.AddTo(command);
    }

    public async Task<int> RunAsync(ParseResult result, Func<Linker> linkerFactory, CancellationToken cancellationToken)
    {
        var report = result.GetValue(_fromReport);
        var list = result.GetValue(_filesFrom);
        if (report is not null && list is not null)
        {
            return await BadUsageAsync("--files-from names paths to scan; with --from-report the report's groups are acted on instead").ConfigureAwait(false);
        }

        if (PathList.Gather(result.GetValue(_paths) ?? [], list, out var listProblem) is not { } paths)
        {
            return await BadUsageAsync(listProblem!).ConfigureAwait(false);
        }

        if ((paths.Length == 0) == (report is null))
        {
            return await BadUsageAsync(list is not null ? "--files-from: the list names no path" : "give folders to scan or --from-report FILE (not both)").ConfigureAwait(false);
        }

        if (report is not null && _selection.FirstGiven(result) is { } option)
        {
            return await BadUsageAsync($"{option} selects what a scan finds; with --from-report the report's groups are acted on as they are").ConfigureAwait(false);
        }

        var protect = result.GetValue(_protect) ?? [];
        var reference = result.GetValue(_reference) ?? [];
        var folderMode = result.GetValue(_folders);
        if (folderMode && (report is not null || result.GetValue(_selection.Media)))
        {
            return await BadUsageAsync("--folders acts on the folders of a fresh scan: it cannot be combined with --from-report or --media").ConfigureAwait(false);
        }

        if (_selection.Problem(result) is { } problem)
        {
            return await BadUsageAsync(problem).ConfigureAwait(false);
        }

        // The roots first: the default keep rule (first-root) names them too, and a root that is a file or missing
        // must be reported as the root it is, not as "the keep rule's folder".
        DuplicateFinder? finder = null;
        if (report is null)
        {
            try
            {
                // --protect/--reference folders outside the PATHs are scanned too: patterns are checked against them as well.
                string[] scanned = [.. paths, .. FoldersToScan(paths, [.. protect, .. reference])];
                foreach (var warning in _selection.Warnings(result, scanned))
                {
                    await Console.Error.WriteLineAsync($"dedup: {warning}").ConfigureAwait(false);
                }

                var options = _selection.CreateOptions(result, scanned);
                options.FolderMode = folderMode;
                finder = new DuplicateFinderBuilder().Configure(options).Build();
                finder.CheckRoots();
            }
            catch (Exception ex) when (ex is ArgumentException or InvalidOperationException or IOException or UnauthorizedAccessException)
            {
                return await BadUsageAsync(CliApplication.UsageMessage(ex)).ConfigureAwait(false);
            }
        }

        DuplicateActionPlanner planner;
        DuplicateActionPlanBuilder builder;
        try
        {
            builder = new DuplicateActionPlanBuilder().UseLinker(linkerFactory()).Protect(protect).Reference(reference);
            foreach (var rule in ParseRules(result.GetValue(_keep) ?? [], paths))
            {
                builder.Keep(rule);
            }

            planner = builder.Build();
        }
        catch (Exception ex) when (ex is ArgumentException or NotSupportedException or InvalidOperationException)
        {
            return await BadUsageAsync(CliApplication.UsageMessage(ex)).ConfigureAwait(false);
        }

        List<DuplicateGroup> groups;
        IReadOnlyList<DuplicateFolderGroup> folderGroups = [];
        var problems = 0; // scan errors, or report entries left out: either makes the exit code 1
        try
        {
            if (finder is null)
            {
                (groups, problems) = await ReportReader.ReadAsync(report!, Console.Error, cancellationToken).ConfigureAwait(false);
            }
            else
            {
                (groups, folderGroups, problems) = await ScanAsync(finder, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException)
        {
            await Console.Error.WriteLineAsync("dedup: interrupted while finding duplicates; nothing was changed").ConfigureAwait(false);
            return ExitCodes.Cancelled;
        }
        catch (Exception ex) when (ex is ArgumentException or InvalidOperationException or IOException or InvalidReportException or UnauthorizedAccessException)
        {
            return await BadUsageAsync(CliApplication.UsageMessage(ex)).ConfigureAwait(false);
        }

        // The journal (--log) is opened once the scan is done (the scan never sees a file it created) and before the
        // plans, which carry it: a run writes ahead to it. A dry run opens nothing; a run that writes nothing to a
        // journal it created (declined, say) removes it again (RunJournal).
        var dryRun = result.GetValue(_dryRun);
        RunJournal? journal = null;
        if (!dryRun && result.GetValue(_log) is { } logFile)
        {
            try
            {
                journal = RunJournal.Open(logFile.FullName);
                planner = builder.UseJournal(journal.Journal).Build();
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                return await BadUsageAsync($"cannot open the log '{logFile.FullName}': {ex.Message}").ConfigureAwait(false);
            }
        }

        using (journal)
        {
            return await PlanAndApplyAsync(result, planner, groups, folderGroups, folderMode, dryRun, problems > 0, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>Plans, shows the plan (a dry run ends there), asks, applies and reports.</summary>
    private async Task<int> PlanAndApplyAsync(ParseResult result, DuplicateActionPlanner planner, List<DuplicateGroup> groups, IReadOnlyList<DuplicateFolderGroup> folderGroups, bool folderMode, bool dryRun, bool incomplete, CancellationToken cancellationToken)
    {
        var plan = planner.Plan(groups, folderGroups); // with --reference, folder groups left alone give their files back
        var folderPlan = folderMode ? planner.PlanFolders(folderGroups) : null;

        // A scan with errors and reported files left out make the exit code 1; groups the keep rules leave tied, 3.
        var undecided = plan.UndecidedGroups.Count > 0 || folderPlan?.UndecidedGroups.Count > 0;
        if (plan.UndecidedGroups.Count > 0)
        {
            await Console.Error.WriteLineAsync($"dedup: left alone {Counts.Of(plan.UndecidedGroups.Count, "group", "groups")} where no --keep rule decides which copy stays (add '--keep path-order' last to decide by path), such as: {string.Join(", ", plan.UndecidedGroups[0].Files.Select(f => f.Path.ToDisplayString()))}").ConfigureAwait(false);
        }

        var permanent = planner.Linker.Kind == DuplicateActionKind.Delete;
        if (dryRun)
        {
            folderPlan?.WriteTo(Console.Out);
            plan.WriteTo(Console.Out);
            if (permanent)
            {
                await Console.Error.WriteLineAsync(PermanentNote).ConfigureAwait(false);
            }

            return ExitCodes.Completed(incomplete, undecided);
        }

        if (await PlanPrompt.ConfirmAsync(plan, folderPlan, planner.Linker, result.GetValue(_yes), incomplete, undecided).ConfigureAwait(false) is { } exit)
        {
            return exit;
        }

        DuplicateActionReport outcome;
        DuplicateFolderActionReport? folderReport = null;
        var display = ApplyProgressDisplay.CreateIfTerminal();
        var log = new ActionLog(display, result.GetValue(_verbose) ? Console.Out : null);
        try
        {
            // Whole folders first: their files are not in the file groups, so the two never act on the same name.
            if (folderPlan is not null)
            {
                folderReport = await folderPlan.ApplyAsync(log, cancellationToken).ConfigureAwait(false);
                await ReportFoldersAsync(folderReport, display).ConfigureAwait(false);
            }

            outcome = await plan.ApplyAsync(log, cancellationToken).ConfigureAwait(false);
        }
        catch (ActionsCancelledException cancelled)
        {
            // What was started is reported as usual; what was not is one line here (the run wrote its one journal line).
            if (cancelled.FolderReport is { } folders)
            {
                await ReportFoldersAsync(folders, display).ConfigureAwait(false);
            }
            else
            {
                await ReportFilesAsync(cancelled.Report!, display, plan).ConfigureAwait(false);
            }

            var interruption = Interruption.Of(cancelled, plan, folderReport); // the journal got its line from the run
            await Console.Error.WriteLineAsync($"dedup: {interruption.Message}").ConfigureAwait(false);
            return ExitCodes.Cancelled;
        }
        catch (IOException ex)
        {
            // A run's first journal line could not be written: that run changed nothing (a folder run before it may have).
            display?.Clear();
            await Console.Error.WriteLineAsync($"dedup: cannot write the log: {ex.Message}; the run stopped before its first action").ConfigureAwait(false);
            return ExitCodes.CompletedWithErrors;
        }

        await ReportFilesAsync(outcome, display, plan).ConfigureAwait(false);
        var folderFailures = folderReport is null ? 0 : folderReport.Skipped + folderReport.Failed;
        return ExitCodes.Completed(outcome.Skipped + outcome.Failed + folderFailures > 0 || incomplete, undecided);
    }

    /// <summary>Prints the actions not done (but those of a file system refusal, said up front), the leftovers left alone and the summary line.</summary>
    private static async Task ReportFilesAsync(DuplicateActionReport report, ApplyProgressDisplay? display, DuplicateActionPlan plan)
    {
        display?.Clear();
        var saidOnce = new HashSet<DuplicateAction>(plan.FileSystemRefusals.SelectMany(r => r.Actions), ReferenceEqualityComparer.Instance);
        foreach (var item in report.Outcomes.Where(o => o.Status != DuplicateActionStatus.Done && !(o.Status == DuplicateActionStatus.Skipped && saidOnce.Contains(o.Action))))
        {
            await Console.Error.WriteLineAsync($"dedup: {item.Status.ToString().ToLowerInvariant()} {item.Action.Path.ToDisplayString()}: {PathText.EscapeMessage(item.Reason ?? string.Empty)}").ConfigureAwait(false);
        }

        foreach (var leftAlone in report.TemporaryFilesLeftAlone)
        {
            await Console.Error.WriteLineAsync($"dedup: note: {PathText.EscapeMessage(leftAlone)}").ConfigureAwait(false);
        }

        var removed = report.TemporaryFilesRemoved > 0 ? $", {Counts.Of(report.TemporaryFilesRemoved, "leftover temporary file", "leftover temporary files")} removed" : string.Empty;
        Console.WriteLine($"{report.Done} done, {report.Skipped} skipped, {report.Failed} failed{removed}; {TextReportWriter.Format(report.ReclaimedBytes)} ({report.ReclaimedBytes} bytes) reclaimed");
    }

    /// <summary>Prints the folders not done, the leftovers left alone and the folders' summary line.</summary>
    private static async Task ReportFoldersAsync(DuplicateFolderActionReport report, ApplyProgressDisplay? display)
    {
        display?.Clear();
        foreach (var item in report.Outcomes.Where(o => o.Status != DuplicateActionStatus.Done))
        {
            await Console.Error.WriteLineAsync($"dedup: {item.Status.ToString().ToLowerInvariant()} folder {item.Action.Folder.ToDisplayString()}/: {PathText.EscapeMessage(item.Reason ?? string.Empty)}").ConfigureAwait(false);
        }

        foreach (var leftAlone in report.TemporaryFilesLeftAlone)
        {
            await Console.Error.WriteLineAsync($"dedup: note: {PathText.EscapeMessage(leftAlone)}").ConfigureAwait(false);
        }

        var removed = report.TemporaryFilesRemoved > 0 ? $", {Counts.Of(report.TemporaryFilesRemoved, "leftover temporary file", "leftover temporary files")} removed" : string.Empty;
        Console.WriteLine($"folders: {report.Done} done, {report.Skipped} skipped, {report.Failed} failed{removed}; {TextReportWriter.Format(report.ReclaimedBytes)} ({report.ReclaimedBytes} bytes) reclaimed");
    }

    internal static List<KeepRule> ParseRules(string[] values, string[] roots)
    {
        var rules = new List<KeepRule>();
        // The default (no --keep) is documented: the first PATH is the reference, then path order. Rules given
        // explicitly get no implicit fallback: a group they leave tied is left alone and reported.
        foreach (var value in values.Length == 0 ? (roots.Length > 0 ? ["first-root", "path-order"] : ["path-order"]) : values)
        {
            rules.Add(value switch
            {
                "first-root" when roots.Length == 0 => throw new ArgumentException("--keep first-root needs folders to scan (it is not available with --from-report)"),
                "first-root" => FirstRootRule.Create(roots), // a PATH may be a file
                "oldest" => KeepRule.Oldest,
                "newest" => KeepRule.Newest,
                "shortest-path" => KeepRule.ShortestPath,
                "path-order" => KeepRule.PathOrder,
                _ when value.StartsWith("prefix:", StringComparison.Ordinal) && value.Length > 7 => PreferFolder(value[7..]),
                _ => throw new ArgumentException($"'--keep {value}' is not a rule (use first-root, oldest, newest, shortest-path, path-order or prefix:FOLDER)"),
            });
        }

        return rules;
    }

    /// <summary><c>prefix:FOLDER</c>: files under that folder stay; a folder that does not exist is a usage error, not a rule that silently matches nothing.</summary>
    /// <remarks>A <c>..</c> means what it means to the kernel: with <c>l -> real/deep</c>, <c>prefix:l/..</c> is <c>real</c>.</remarks>
    private static KeepRule PreferFolder(string folder)
    {
        string full;
        try
        {
            full = AbsolutePath.Resolve(folder).ToString();
        }
        catch (DirectoryNotFoundException ex)
        {
            throw new ArgumentException($"'--keep prefix:{PathText.Escape(folder)}': no folder there ({ex.Message}); a keep rule must name an existing folder", ex);
        }

        return Directory.Exists(full)
            ? KeepRule.PreferUnder(full)
            : throw new ArgumentException($"'--keep prefix:{PathText.Escape(folder)}': no folder {PathText.Escape(full)}; a keep rule must name an existing folder");
    }

    /// <summary>
    /// The --protect and --reference folders a scan of <paramref name="paths"/> would not reach, so their copies are found:
    /// those neither inside a PATH nor holding one (one that is not a folder is left to the planner to refuse). A PATH
    /// that is a file holds nothing: a folder holding it is scanned too.
    /// </summary>
    private static IEnumerable<string> FoldersToScan(string[] paths, string[] folders)
    {
        var roots = new List<AbsolutePath>();
        foreach (var path in paths)
        {
            try
            {
                var root = AbsolutePath.Resolve(path);
                if (Directory.Exists(root.ToString()))
                {
                    roots.Add(root);
                }
            }
            catch (DirectoryNotFoundException)
            {
                // the scan reports the root itself
            }
        }

        foreach (var folder in folders)
        {
            AbsolutePath resolved;
            try
            {
                resolved = AbsolutePath.Resolve(folder);
            }
            catch (DirectoryNotFoundException)
            {
                continue;
            }

            if (Directory.Exists(resolved.ToString()) && !roots.Any(r => resolved.IsUnder(r) || r.IsUnder(resolved)))
            {
                roots.Add(resolved);
                yield return folder;
            }
        }
    }

    /// <remarks>The scan checks its roots again when it starts (one may have gone since).</remarks>
    private static async Task<(List<DuplicateGroup> Groups, IReadOnlyList<DuplicateFolderGroup> Folders, int Errors)> ScanAsync(DuplicateFinder finder, CancellationToken cancellationToken)
    {
        var groups = new List<DuplicateGroup>();
        var scan = finder.FindAsync(cancellationToken);
        await foreach (var group in scan.ConfigureAwait(false))
        {
            groups.Add(group);
        }

        foreach (var error in scan.Summary.Errors.Take(20))
        {
            await Console.Error.WriteLineAsync($"dedup: {PathText.Escape(error.Path)}: {PathText.EscapeMessage(error.Message)}").ConfigureAwait(false);
        }

        return (groups, scan.FolderGroups, scan.Summary.Errors.Count);
    }

    private static async Task<int> BadUsageAsync(string reason)
    {
        await Console.Error.WriteLineAsync($"dedup: {PathText.EscapeMessage(reason)}").ConfigureAwait(false);
        return ExitCodes.BadUsage;
    }
}
