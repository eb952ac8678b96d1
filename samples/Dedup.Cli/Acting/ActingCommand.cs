using System.CommandLine;
using System.Text.Json;
using Dedup.Cli.Output;
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
    private readonly Argument<string[]> _paths = new("path") { Arity = ArgumentArity.ZeroOrMore, Description = "Folders to scan (or use --from-report)." };
    private readonly Option<string[]> _keep = new("--keep") { Description = "Which file stays: first-root, oldest, newest, shortest-path or prefix:PATH (repeatable; the first rule that decides wins; default first-root).", AllowMultipleArgumentsPerToken = false };
    private readonly Option<bool> _dryRun = new("--dry-run") { Description = "Print every planned operation and the bytes it would reclaim; change nothing." };
    private readonly Option<bool> _yes = new("--yes", "-y") { Description = "Do not ask for confirmation (required when standard input is not a terminal)." };
    private readonly Option<FileInfo?> _fromReport = new("--from-report") { Description = "Act on the groups of a JSON report from 'dedup find --format json' (re-verified before acting) instead of scanning." };
    private readonly Option<bool> _hidden = new("--hidden") { Description = "Scan names starting with a dot." };

    public void AddTo(Command command)
    {
        command.Arguments.Add(_paths);
        foreach (var option in new Option[] { _keep, _dryRun, _yes, _fromReport, _hidden })
        {
            command.Options.Add(option);
        }
    }

    public async Task<int> RunAsync(ParseResult result, Func<ILinker> linkerFactory, CancellationToken cancellationToken)
    {
        var paths = result.GetValue(_paths) ?? [];
        var report = result.GetValue(_fromReport);
        if ((paths.Length == 0) == (report is null))
        {
            return await BadUsageAsync("give folders to scan or --from-report FILE (not both)").ConfigureAwait(false);
        }

        DuplicateActionPlanner planner;
        try
        {
            var builder = new DuplicateActionPlanBuilder().UseLinker(linkerFactory());
            foreach (var rule in ParseRules(result.GetValue(_keep) ?? [], paths))
            {
                builder.Keep(rule);
            }

            planner = builder.Build();
        }
        catch (Exception ex) when (ex is ArgumentException or NotSupportedException or InvalidOperationException)
        {
            return await BadUsageAsync(ex.Message).ConfigureAwait(false);
        }

        List<DuplicateGroup> groups;
        try
        {
            groups = report is not null ? await ReadReportAsync(report, cancellationToken).ConfigureAwait(false) : await ScanAsync(paths, result.GetValue(_hidden), cancellationToken).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is ArgumentException or InvalidOperationException or IOException or JsonException or UnauthorizedAccessException)
        {
            return await BadUsageAsync(ex.Message).ConfigureAwait(false);
        }

        var plan = planner.Plan(groups);
        var dryRun = result.GetValue(_dryRun);
        if (dryRun)
        {
            plan.WriteTo(Console.Out);
            return ExitCodes.Success;
        }

        Console.WriteLine($"{plan.Actions.Count} actions ({planner.Linker.Description}), {TextReportWriter.Format(plan.ReclaimableBytes)} to reclaim");
        if (plan.Actions.Count == 0)
        {
            return ExitCodes.Success;
        }

        if (!result.GetValue(_yes))
        {
            if (Console.IsInputRedirected)
            {
                return await BadUsageAsync("refusing to change files without confirmation: standard input is not a terminal; pass --yes (or --dry-run)").ConfigureAwait(false);
            }

            await Console.Error.WriteAsync("Apply? [y/N] ").ConfigureAwait(false);
            var answer = Console.ReadLine()?.Trim();
            if (!string.Equals(answer, "y", StringComparison.OrdinalIgnoreCase) && !string.Equals(answer, "yes", StringComparison.OrdinalIgnoreCase))
            {
                await Console.Error.WriteLineAsync("dedup: nothing done").ConfigureAwait(false);
                return ExitCodes.CompletedWithErrors;
            }
        }

        var outcome = await plan.ApplyAsync(cancellationToken).ConfigureAwait(false);
        foreach (var item in outcome.Outcomes.Where(o => o.Status != DuplicateActionStatus.Done))
        {
            await Console.Error.WriteLineAsync($"dedup: {item.Status.ToString().ToLowerInvariant()} {item.Action.Path.ToDisplayString()}: {PathText.EscapeMessage(item.Reason ?? string.Empty)}").ConfigureAwait(false);
        }

        var removed = outcome.TemporaryFilesRemoved > 0 ? $", {outcome.TemporaryFilesRemoved} leftover temporary files removed" : string.Empty;
        Console.WriteLine($"{outcome.Done} done, {outcome.Skipped} skipped, {outcome.Failed} failed{removed}; {TextReportWriter.Format(outcome.ReclaimedBytes)} ({outcome.ReclaimedBytes} bytes) reclaimed");
        return outcome.Skipped + outcome.Failed == 0 ? ExitCodes.Success : ExitCodes.CompletedWithErrors;
    }

    internal static List<KeepRule> ParseRules(string[] values, string[] roots)
    {
        var rules = new List<KeepRule>();
        foreach (var value in values.Length == 0 && roots.Length > 0 ? ["first-root"] : values)
        {
            rules.Add(value switch
            {
                "first-root" when roots.Length == 0 => throw new ArgumentException("--keep first-root needs folders to scan (it is not available with --from-report)"),
                "first-root" => KeepRule.PreferUnder(roots),
                "oldest" => KeepRule.Oldest,
                "newest" => KeepRule.Newest,
                "shortest-path" => KeepRule.ShortestPath,
                _ when value.StartsWith("prefix:", StringComparison.Ordinal) && value.Length > 7 => KeepRule.PreferPrefix(Path.GetFullPath(value[7..])),
                _ => throw new ArgumentException($"'--keep {value}' is not a rule (use first-root, oldest, newest, shortest-path or prefix:PATH)"),
            });
        }

        return rules;
    }

    private static async Task<List<DuplicateGroup>> ScanAsync(string[] paths, bool hidden, CancellationToken cancellationToken)
    {
        var finder = new DuplicateFinderBuilder().AddRoots(paths).IncludeHidden(hidden).Build();
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

        return groups;
    }

    /// <summary>Reads the <c>dedup find --format json</c> contract (docs/usage.md) and rebuilds each group from the files as they are now.</summary>
    private static async Task<List<DuplicateGroup>> ReadReportAsync(FileInfo file, CancellationToken cancellationToken)
    {
        var stream = file.OpenRead();
        await using (stream.ConfigureAwait(false))
        {
            using var json = await JsonDocument.ParseAsync(stream, default, cancellationToken).ConfigureAwait(false);
            if (!json.RootElement.TryGetProperty("groups", out var groupsElement) || groupsElement.ValueKind != JsonValueKind.Array)
            {
                throw new InvalidOperationException($"{PathText.Escape(file.FullName)} is not a 'dedup find --format json' report (no \"groups\" array)");
            }

            var groups = new List<DuplicateGroup>();
            foreach (var element in groupsElement.EnumerateArray())
            {
                // A media-payload group's size is its payload length, and its files differ byte for byte: the planner
                // refuses such groups, so say that here instead of "size changed" for every file.
                if (element.TryGetProperty("match", out var match) && match.ValueEquals("mediaPayload"u8))
                {
                    await Console.Error.WriteLineAsync($"dedup: left out a media-payload group ({element.GetProperty("files").GetArrayLength()} files): their bytes differ (tags or metadata), so neither replaces the other").ConfigureAwait(false);
                    continue;
                }

                var size = element.GetProperty("size").GetInt64();
                var names = new List<string>();
                foreach (var entry in element.GetProperty("files").EnumerateArray())
                {
                    names.Add(entry.GetProperty("path").GetString()!);
                    if (entry.TryGetProperty("links", out var links))
                    {
                        names.AddRange(links.EnumerateArray().Select(l => l.GetString()!));
                    }
                }

                var group = ReportedDuplicates.FromPaths(size, names, out var problems);
                foreach (var problem in problems)
                {
                    await Console.Error.WriteLineAsync($"dedup: left out {PathText.EscapeMessage(problem)}").ConfigureAwait(false);
                }

                if (group is not null)
                {
                    groups.Add(group);
                }
            }

            return groups;
        }
    }

    private static async Task<int> BadUsageAsync(string reason)
    {
        await Console.Error.WriteLineAsync($"dedup: {PathText.EscapeMessage(reason)}").ConfigureAwait(false);
        return ExitCodes.BadUsage;
    }
}
