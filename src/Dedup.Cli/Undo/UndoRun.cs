using System.CommandLine;
using Dedup.Cli.Acting;
using Dedup.Cli.Output;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Paths;

namespace Dedup.Cli.Undo;

/// <summary>
/// <c>dedup undo LOG [--dry-run] [--yes] [--only PATH]... [--partial] [-v]</c>: reads the journal, prints what it will
/// do, refuses (exit 2, nothing changed) when the restored copies do not fit, asks as <c>link</c> and <c>delete</c> ask,
/// then restores step by step. Exit 0 when everything was restored (or there was nothing to do), 1 when a step was
/// left alone or failed, 2 for usage errors, a damaged journal or too little space.
/// </summary>
internal sealed class UndoRun
{
    private readonly Argument<string> _log = new("log") { Description = "The --log file of a 'dedup link' or 'dedup delete' run (journal format 2)." };
    private readonly Option<bool> _dryRun = new("--dry-run") { Description = "Print what undo would do for each action; change nothing." };
    private readonly Option<bool> _yes = new("--yes", "-y") { Description = "Do not ask for confirmation (required when standard input is not a terminal)." };
    private readonly Option<string[]> _only = new("--only") { Description = "Undo only actions on this name or under this folder (repeatable).", AllowMultipleArgumentsPerToken = false };
    private readonly Option<bool> _partial = new("--partial") { Description = "Restore what fits when the copies need more space than is free (the rest fails), instead of refusing." };
    private readonly Option<bool> _verbose = new("--verbose", "-v") { Description = "Print each step as it completes." };

    public void AddTo(Command command)
    {
        command.Arguments.Add(_log);
        foreach (var option in new Option[] { _dryRun, _yes, _only, _partial, _verbose })
        {
            command.Options.Add(option);
        }
    }

    public async Task<int> RunAsync(ParseResult result, CancellationToken cancellationToken)
    {
        if (!OperatingSystem.IsLinux() && !OperatingSystem.IsWindows() && !OperatingSystem.IsMacOS())
        {
            return await BadUsageAsync("undo is implemented for Linux, Windows and macOS; on this system restore from the trash by hand").ConfigureAwait(false);
        }

        var log = result.GetValue(_log)!;
        UndoPlan plan;
        try
        {
            plan = UndoPlan.Create(Path.GetFullPath(log), result.GetValue(_only) is { Length: > 0 } only ? only.Select(Path.GetFullPath).ToArray() : null);
        }
        catch (Exception ex) when (ex is InvalidDataException or IOException or UnauthorizedAccessException or ArgumentException)
        {
            return await BadUsageAsync(ex is FileNotFoundException ? $"cannot read the journal '{log}': no such file" : CliApplication.UsageMessage(ex)).ConfigureAwait(false);
        }

        foreach (var note in plan.Notes)
        {
            await Console.Error.WriteLineAsync($"dedup: note: {PathText.EscapeMessage(note)}").ConfigureAwait(false);
        }

        if (result.GetValue(_dryRun))
        {
            plan.WriteTo(Console.Out);
            Console.WriteLine(Summary(plan));
            return ExitCodes.Success;
        }

        Console.WriteLine(Summary(plan));
        // With nothing to restore the run still goes through the steps, without asking: it only removes what a killed
        // run left (its temporary names, the info file of a trash move that never happened), never a name of the user's.
        var nothingToRestore = plan.Steps.All(s => s.Note is not null);
        var partial = result.GetValue(_partial);
        if (!partial && !nothingToRestore && plan.SpaceRefusal() is { } refusal)
        {
            return await BadUsageAsync(refusal).ConfigureAwait(false);
        }

        if (!nothingToRestore && !result.GetValue(_yes))
        {
            if (Console.IsInputRedirected)
            {
                return await BadUsageAsync("refusing to change files without confirmation: standard input is not a terminal; pass --yes (or --dry-run)").ConfigureAwait(false);
            }

            await Console.Error.WriteAsync(Preview(plan, 20)).ConfigureAwait(false);
            await Console.Error.WriteAsync("Undo? [y/N] ").ConfigureAwait(false);
            var answer = Console.ReadLine()?.Trim();
            if (!string.Equals(answer, "y", StringComparison.OrdinalIgnoreCase) && !string.Equals(answer, "yes", StringComparison.OrdinalIgnoreCase))
            {
                await Console.Error.WriteLineAsync("dedup: nothing done").ConfigureAwait(false);
                return ExitCodes.Declined;
            }
        }

        var verbose = result.GetValue(_verbose);
        var outcomes = new List<UndoStepOutcome>();
        var progress = new Progress(outcome =>
        {
            outcomes.Add(outcome);
            if (outcome.Outcome is UndoOutcome.LeftAlone or UndoOutcome.Failed)
            {
                Console.Error.WriteLine($"dedup: {PathText.EscapeMessage(outcome.ToString())}");
            }
            else if (verbose)
            {
                Console.WriteLine(outcome.ToString());
            }
        });
        UndoReport report;
        try
        {
            report = await plan.ApplyAsync(progress, partial, cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            await Console.Error.WriteLineAsync($"dedup: undo interrupted after {Counts.Of(outcomes.Count, "step", "steps")} of {plan.Steps.Count}; run it again to finish (what was restored stays restored)").ConfigureAwait(false);
            return ExitCodes.Cancelled;
        }
        catch (Exception ex) when (ex is InvalidOperationException or IOException or UnauthorizedAccessException)
        {
            return await BadUsageAsync(CliApplication.UsageMessage(ex)).ConfigureAwait(false);
        }

        foreach (var note in report.Notes)
        {
            await Console.Error.WriteLineAsync($"dedup: note: {PathText.EscapeMessage(note)}").ConfigureAwait(false);
        }

        Console.WriteLine(
            $"{report.Count(UndoOutcome.Restored)} restored, {report.Count(UndoOutcome.AlreadyRestored)} already restored, {report.Count(UndoOutcome.WasNotDone)} not done, " +
            $"{report.Count(UndoOutcome.LeftAlone)} left alone, {report.Count(UndoOutcome.Irreversible)} irreversible, {report.Count(UndoOutcome.Failed)} failed");
        return report.Count(UndoOutcome.LeftAlone) + report.Count(UndoOutcome.Failed) > 0 ? ExitCodes.CompletedWithErrors : ExitCodes.Success;
    }

    /// <summary>The plan in one line: how many steps of each kind of outcome, and the bytes the copies take.</summary>
    internal static string Summary(UndoPlan plan)
    {
        var restore = plan.Steps.Where(s => s.Note is null).ToList();
        var others = plan.Steps.Where(s => s.Note is not null).GroupBy(s => s.Note!.Split(':')[0].Replace(" (nothing to undo)", string.Empty, StringComparison.Ordinal))
            .Select(g => $", {g.Count()} {g.Key}");
        var bytes = restore.Sum(s => s.Bytes);
        return $"{Counts.Of(plan.Steps.Count, "journalled action", "journalled actions")}: {restore.Count} to restore ({TextReportWriter.Format(bytes)} to copy){string.Concat(others)}";
    }

    private static string Preview(UndoPlan plan, int lines)
    {
        using var writer = new StringWriter();
        plan.WriteTo(writer);
        var all = writer.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
        var preview = string.Concat(all.Take(lines).Select(l => $"  {l}\n"));
        return all.Length > lines ? preview + $"  … {all.Length - lines} more lines: run the same command with --dry-run to see the whole plan\n" : preview;
    }

    private static async Task<int> BadUsageAsync(string message)
    {
        await Console.Error.WriteLineAsync($"dedup: {PathText.EscapeMessage(message)}").ConfigureAwait(false);
        return ExitCodes.BadUsage;
    }

    /// <summary>Reports synchronously, on the applying thread (<see cref="Progress{T}"/> would post to the thread pool and lose the order).</summary>
    private sealed class Progress(Action<UndoStepOutcome> report) : IProgress<UndoStepOutcome>
    {
        public void Report(UndoStepOutcome value) => report(value);
    }
}
