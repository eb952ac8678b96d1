using System.CommandLine;
using Dedup.Cli.Acting;
using Dedup.Cli.Output;
using Dedup.Cli.Selection;
using Dedup.Core;
using Dedup.Core.Caching.Sqlite;
using Dedup.Core.Linking;
using Dedup.Core.PostgreSql;
using Dedup.Core.Paths;

namespace Dedup.Cli;

/// <summary><c>dedup find PATH...</c>: scans and writes the groups in the chosen format.</summary>
internal static class FindCommand
{
    public static Command Create()
    {
        var paths = new Argument<string[]>("path") { Arity = ArgumentArity.ZeroOrMore, Description = "Folders, or files (Linux), to scan (or --files-from)." };
        var filesFrom = PathList.CreateOption();
        var format = new Option<string>("--format") { Description = "Output format: text, json, csv, html (one self-contained page to open in a browser: totals, wasted space by folder, the groups with the copy kept and a delete command for each) or paths0 (every name of every duplicate, exact bytes, each ended by a NUL byte, for xargs -0).", DefaultValueFactory = _ => "text" };
        format.AcceptOnlyFromAmong("text", "json", "csv", "html", "paths0");
        var output = ExactFileNames.Require(new Option<FileInfo?>("--output", "-o") { Description = "Write the report to this file instead of standard output: replaced only once the report is complete, keeping its owner and mode; '-', or a file already open as standard output or error (/dev/stdout, a shell's >> log), is written through that descriptor; a symbolic link is refused." });
        var sort = new Option<string>("--sort") { Description = "Group order: wasted (bytes a group wastes, largest first; the default), size (file size, largest first), count (most copies first) or path (first path); ties by first path.", DefaultValueFactory = _ => "wasted" };
        sort.AcceptOnlyFromAmong("wasted", "size", "count", "path");
        var summaryOnly = new Option<bool>("--summary") { Description = "Write the totals only, no groups (like jdupes -m)." };
        var folders = new Option<bool>("--folders") { Description = "Also find duplicate folders (whole subtrees equal: same names, same contents) and report each copied folder once; file groups then leave out the files inside the copies. Lists folders equal but for a few files too." };
        var ignoreNames = new Option<bool>("--folders-ignore-names") { Description = "With --folders: folders are equal when they hold the same multiset of file contents, whatever the names and layout (rmlint -D's default)." };
        var cache = CacheOption.Require(ExactFileNames.Require(new Option<FileInfo?>("--cache") { Description = "Keep what the scan learns in this SQLite file (created if missing), so that a rescan reads only files whose stamp changed; results stay exact. A bad cache file is a warning, not an error." }));
        var catalog = new Option<string?>("--catalog") { Description = "Match the files with those of other machines in this PostgreSQL catalog (an Npgsql connection string, e.g. \"Host=db;Database=dedup;Username=dedup;Password=...\"): this scan replaces the machine's files there, and groups with files of other machines (as of their last scans, matched by size and SHA-256) are reported after the local ones." };
        var machine = new Option<string?>("--machine") { Description = "With --catalog: this machine's name in the catalog (default: the host name)." };
        var keep = new Option<string[]>("--keep") { Description = "With --format paths0: write only the names these rules would remove, as 'dedup delete --keep' decides (rules as for delete; a group no rule decides writes nothing).", AllowMultipleArgumentsPerToken = false };
        var stats = new Option<bool>("--stats") { Description = "Also write what the run cost in the summary: bytes read and the cache's counters. They vary from run to run; without --stats an unchanged tree gives byte-identical reports." };
        var selection = new ScanSelection();

        var command = new Command("find", "Find duplicate files under the given folders (and among the given files).")
        {
            paths, format, output, sort, summaryOnly, folders, ignoreNames, cache, catalog, machine, keep, stats, filesFrom,
        };
        selection.AddTo(command);

        command.SetAction(async (result, cancellationToken) =>
        {
            if (selection.Problem(result) is { } problem)
            {
                await Console.Error.WriteLineAsync($"dedup: {problem}").ConfigureAwait(false);
                return ExitCodes.BadUsage;
            }

            var folderMode = result.GetValue(folders) || result.GetValue(ignoreNames);
            if (folderMode && result.GetValue(selection.Media))
            {
                await Console.Error.WriteLineAsync("dedup: --folders cannot be combined with --media").ConfigureAwait(false);
                return ExitCodes.BadUsage;
            }

            if (PathList.Gather(result.GetValue(paths) ?? [], result.GetValue(filesFrom), out var listProblem) is not { } roots)
            {
                await Console.Error.WriteLineAsync($"dedup: {listProblem}").ConfigureAwait(false);
                return ExitCodes.BadUsage;
            }

            if (roots.Length == 0)
            {
                await Console.Error.WriteLineAsync(result.GetValue(filesFrom) is null ? "dedup: give the folders to scan (or --files-from FILE)" : "dedup: --files-from: the list names no path").ConfigureAwait(false);
                return ExitCodes.BadUsage;
            }

            foreach (var warning in selection.Warnings(result, roots))
            {
                await Console.Error.WriteLineAsync($"dedup: {warning}").ConfigureAwait(false);
            }

            var options = selection.CreateOptions(result, roots);
            options.FolderMode = folderMode;
            options.IgnoreFolderNames = folderMode && result.GetValue(ignoreNames);
            var builder = new DuplicateFinderBuilder().Configure(options);

            if (result.GetValue(cache) is { } cacheFile && await CacheOption.OpenAsync(cacheFile).ConfigureAwait(false) is { } hashCache)
            {
                builder.UseCache(hashCache);
            }

            var report = new ReportOptions(result.GetValue(format)!, result.GetValue(sort)!, result.GetValue(summaryOnly), folderMode, Statistics: result.GetValue(stats));
            if (PathsProblem(report, result.GetValue(keep), result.GetValue(catalog) is not null) is { } pathsProblem)
            {
                await Console.Error.WriteLineAsync($"dedup: {pathsProblem}").ConfigureAwait(false);
                return ExitCodes.BadUsage;
            }

            if (result.GetValue(keep) is { Length: > 0 } rules)
            {
                try
                {
                    report = report with { Keep = RemovalPlanner(rules, roots) };
                }
                catch (Exception ex) when (ex is ArgumentException or NotSupportedException or InvalidOperationException)
                {
                    await Console.Error.WriteLineAsync($"dedup: {PathText.EscapeMessage(CliApplication.UsageMessage(ex))}").ConfigureAwait(false);
                    return ExitCodes.BadUsage;
                }
            }

            if (result.GetValue(catalog) is { } && result.GetValue(format) == "csv")
            {
                // CSV rows have no column for the machine: other machines' paths would read as this machine's.
                await Console.Error.WriteLineAsync("dedup: --catalog is written as text or json (CSV has no column for the machine)").ConfigureAwait(false);
                return ExitCodes.BadUsage;
            }

            if (result.GetValue(catalog) is not { } connectionString)
            {
                if (result.GetValue(machine) is not null)
                {
                    await Console.Error.WriteLineAsync("dedup: --machine names this machine in a catalog: give --catalog too").ConfigureAwait(false);
                    return ExitCodes.BadUsage;
                }

                return await RunAsync(builder, report, result.GetValue(output), cancellationToken).ConfigureAwait(false);
            }

            var name = result.GetValue(machine) ?? Environment.MachineName;
            if (CatalogOption.MachineProblem(name) is { } badName)
            {
                await Console.Error.WriteLineAsync($"dedup: {badName}").ConfigureAwait(false);
                return ExitCodes.BadUsage;
            }

            var store = await CatalogOption.OpenAsync(connectionString, cancellationToken).ConfigureAwait(false);
            if (store is null)
            {
                return ExitCodes.BadUsage;
            }

            await using (store.ConfigureAwait(false))
            {
                builder.UseCatalog(store, name);
                return await RunAsync(builder, report, result.GetValue(output), cancellationToken).ConfigureAwait(false);
            }
        });
        return command;
    }

    private static async Task<int> RunAsync(DuplicateFinderBuilder builder, ReportOptions report, FileInfo? output, CancellationToken cancellationToken)
    {
        using var progress = ProgressDisplay.CreateIfTerminal();
        if (progress is not null)
        {
            builder.ReportProgress(progress);
        }

        DuplicateFinder finder;
        try
        {
            finder = builder.Build();
            finder.CheckRoots(); // before any output is opened
        }
        catch (Exception ex) when (ex is ArgumentException or InvalidOperationException or IOException)
        {
            await Console.Error.WriteLineAsync($"dedup: {PathText.EscapeMessage(CliApplication.UsageMessage(ex))}").ConfigureAwait(false);
            return ExitCodes.BadUsage;
        }

        // Where the report goes is settled before the scan: a report that cannot be written costs no scan.
        if (ReportTarget.Resolve(output, out var problem) is not { } target)
        {
            await Console.Error.WriteLineAsync($"dedup: {problem}").ConfigureAwait(false);
            return ExitCodes.BadUsage;
        }

        // The whole scan first: the report is written in a stable order (ReportOrder), so the same tree gives the same
        // bytes run after run, and nothing is written (or replaced) if the run is interrupted.
        var groups = new HeldGroups();
        var scan = finder.FindAsync(cancellationToken);
        try
        {
            await foreach (var group in scan.ConfigureAwait(false))
            {
                groups.Add(group);
            }
        }
        catch (OperationCanceledException)
        {
            var kept = target.Path is null ? string.Empty : $"; {target.Display} left as it was";
            await Console.Error.WriteLineAsync($"dedup: interrupted after {groups.Count} groups had been found; no report written{kept}").ConfigureAwait(false);
            return ExitCodes.Cancelled;
        }

        progress?.Complete(scan.Summary);
        var removal = report.Keep?.Plan(groups.InOrder(report.Order)); // --format paths0 --keep: the names to write
        try
        {
            await ReportFile.WriteAsync(target, stream => Write(stream, report, groups, scan, removal), cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            var kept = target.Path is null ? string.Empty : $"; {target.Display} left as it was";
            await Console.Error.WriteLineAsync($"dedup: interrupted while writing the report of {groups.Count} groups{kept}").ConfigureAwait(false);
            return ExitCodes.Cancelled;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            await Console.Error.WriteLineAsync($"dedup: cannot write {target.Display}: {PathText.EscapeMessage(ex.Message)}").ConfigureAwait(false);
            return ExitCodes.CompletedWithErrors;
        }

        // A cache that could not be used changes no result: a warning, and the exit code stays the scan's.
        foreach (var warning in scan.Summary.Cache?.Warnings ?? [])
        {
            await Console.Error.WriteLineAsync($"dedup: warning: {PathText.EscapeMessage(warning)}").ConfigureAwait(false);
        }

        // The local groups were reported; a catalog that failed on the way is an error of the run.
        var catalogError = scan.Summary.Catalog?.Error;
        if (catalogError is not null)
        {
            await Console.Error.WriteLineAsync($"dedup: catalog: {CatalogOption.OneLine(catalogError)}").ConfigureAwait(false);
        }

        foreach (var error in scan.Summary.Errors.Take(20))
        {
            await Console.Error.WriteLineAsync($"dedup: {error}").ConfigureAwait(false);
        }

        if (scan.Summary.Errors.Count > 20)
        {
            await Console.Error.WriteLineAsync($"dedup: … and {scan.Summary.Errors.Count - 20} more errors").ConfigureAwait(false);
        }

        if (removal?.UndecidedGroups is { Count: > 0 } undecided)
        {
            await Console.Error.WriteLineAsync($"dedup: left out {undecided.Count} groups where no --keep rule decides which copy stays, such as: {string.Join(", ", undecided[0].Files.Select(f => f.Path.ToDisplayString()))}").ConfigureAwait(false);
        }

        return ExitCodes.Completed(scan.Summary.Errors.Count > 0 || catalogError is not null, removal?.UndecidedGroups.Count > 0);
    }

    /// <summary>Why <c>--format paths0</c> or <c>--keep</c> cannot be given as they are, or <see langword="null"/>.</summary>
    private static string? PathsProblem(ReportOptions report, string[]? keep, bool catalog) =>
        report.Format != "paths0"
            ? keep is { Length: > 0 } ? "--keep chooses the names --format paths0 writes: give --format paths0 too" : null
            : report.Folders ? "--format paths0 lists files: it cannot be combined with --folders"
            : report.SummaryOnly ? "--format paths0 has no totals: it cannot be combined with --summary"
            : catalog ? "--format paths0 lists this machine's files: it cannot be combined with --catalog"
            : null;

    /// <summary>The planner <c>dedup delete --keep</c> would use: the names it would remove are the ones written.</summary>
    private static DuplicateActionPlanner RemovalPlanner(string[] rules, string[] roots)
    {
        var builder = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete);
        foreach (var rule in ActingCommand.ParseRules(rules, roots))
        {
            builder.Keep(rule);
        }

        return builder.Build();
    }

    private static void Write(Stream stream, ReportOptions report, HeldGroups groups, DuplicateScan scan, DuplicateActionPlan? removal)
    {
        if (removal is not null)
        {
            // Only the names a delete with these rules would remove (and would not refuse): xargs -0 rm gets no kept file.
            var paths = new PathsReportWriter(stream);
            foreach (var action in removal.Actions.Where(a => a.Refusal is null))
            {
                paths.WritePath(action.Path);
            }

            paths.Flush();
            return;
        }

        using var writer = ReportWriters.Create(report.Format, stream, report.Statistics, report.Format == "html" ? CommandLineText.Current() : null);
        if (report.Folders && writer is CsvReportWriter csv)
        {
            csv.MarkFolderMode(); // the kind,files,bytes columns, even when no folder group is found
        }

        if (!report.SummaryOnly)
        {
            foreach (var folderGroup in scan.FolderGroups)
            {
                writer.WriteFolderGroup(folderGroup);
            }

            foreach (var group in groups.InOrder(report.Order))
            {
                writer.WriteGroup(group);
            }
        }

        writer.WriteRoots(scan.Roots);
        writer.WriteSummary(ReportOrder.Stable(scan.Summary));
        writer.Flush();
    }
}
