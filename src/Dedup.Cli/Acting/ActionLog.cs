using System.Text;
using Dedup.Core.Linking;

namespace Dedup.Cli.Acting;

/// <summary>
/// What <c>link</c>/<c>delete</c> show about each action as it completes: <c>-v</c> prints each action; the terminal
/// shows progress. The <c>--log</c> file is the library's journal (<see cref="Dedup.Core.Linking.Journal.ActionJournal"/>,
/// docs/journal.md), which the runs write themselves: nothing here writes to it.
/// </summary>
/// <param name="display">The terminal's progress line, if any.</param>
/// <param name="verbose">Where <c>-v</c> prints each action (standard output), or <see langword="null"/>.</param>
internal sealed class ActionLog(ApplyProgressDisplay? display, TextWriter? verbose) : IProgress<ApplyProgress>
{
    public void Report(ApplyProgress value)
    {
        if (value.LastOutcome is { } outcome && verbose is not null)
        {
            display?.Clear();
            verbose.WriteLine(outcome.ToString());
        }

        display?.Report(value);
    }

    /// <summary>The first <paramref name="lines"/> lines of the plan, and where to see the rest.</summary>
    public static string Preview(DuplicateActionPlan plan, int lines)
    {
        using var writer = new StringWriter();
        plan.WriteTo(writer);
        var all = writer.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
        var preview = new StringBuilder();
        foreach (var line in all.Take(lines))
        {
            preview.Append("  ").AppendLine(line);
        }

        if (all.Length > lines)
        {
            preview.AppendLine($"  … {all.Length - lines} more lines: run the same command with --dry-run to see the whole plan");
        }

        return preview.ToString();
    }
}
