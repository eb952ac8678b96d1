using System.CommandLine;
using Dedup.Cli.Output;
using Dedup.Cli.Selection;
using Dedup.Core;
using Dedup.Core.Paths;

namespace Dedup.Cli;

/// <summary><c>dedup find PATH...</c>: scans and writes the groups in the chosen format.</summary>
internal static class FindCommand
{
    public static Command Create()
    {
        var paths = new Argument<string[]>("path") { Arity = ArgumentArity.OneOrMore, Description = "Folders to scan." };
        var format = new Option<string>("--format") { Description = "Output format: text, json or csv.", DefaultValueFactory = _ => "text" };
        format.AcceptOnlyFromAmong("text", "json", "csv");
        var output = new Option<FileInfo?>("--output", "-o") { Description = "Write the report to this file instead of standard output." };
        var selection = new ScanSelection();

        var command = new Command("find", "Find duplicate files under the given folders.")
        {
            paths, format, output,
        };
        selection.AddTo(command);

        command.SetAction(async (result, cancellationToken) =>
        {
            if (selection.Problem(result) is { } problem)
            {
                await Console.Error.WriteLineAsync($"dedup: {problem}").ConfigureAwait(false);
                return ExitCodes.BadUsage;
            }

            var builder = selection.CreateBuilder(result, result.GetValue(paths)!);
            return await RunAsync(builder, result.GetValue(format)!, result.GetValue(output), cancellationToken).ConfigureAwait(false);
        });
        return command;
    }

    private static async Task<int> RunAsync(DuplicateFinderBuilder builder, string format, FileInfo? output, CancellationToken cancellationToken)
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
            finder.CheckRoots(); // before the output is opened
        }
        catch (Exception ex) when (ex is ArgumentException or InvalidOperationException or IOException)
        {
            await Console.Error.WriteLineAsync($"dedup: {PathText.EscapeMessage(ex.Message)}").ConfigureAwait(false);
            return ExitCodes.BadUsage;
        }

        Stream stream;
        try
        {
            stream = output is null ? Console.OpenStandardOutput() : new FileStream(output.FullName, FileMode.Create, FileAccess.Write, FileShare.Read, 1, FileOptions.None);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            await Console.Error.WriteLineAsync($"dedup: cannot write '{PathText.Escape(output?.FullName ?? string.Empty)}': {PathText.EscapeMessage(ex.Message)}").ConfigureAwait(false);
            return ExitCodes.BadUsage;
        }

        await using (stream.ConfigureAwait(false))
        {
            // One buffered writer for the whole report: no per-line flushing or locking.
            await using var buffered = new BufferedStream(stream, 256 * 1024);
            using var writer = ReportWriter.Create(format, buffered);
            var scan = finder.FindAsync(cancellationToken);
            try
            {
                await foreach (var group in scan.ConfigureAwait(false))
                {
                    writer.WriteGroup(group);
                }
            }
            catch (OperationCanceledException)
            {
                await Console.Error.WriteLineAsync("dedup: cancelled").ConfigureAwait(false);
                return ExitCodes.Cancelled;
            }

            progress?.Complete(scan.Summary);
            writer.WriteRoots(scan.Roots);
            writer.WriteSummary(scan.Summary);
            writer.Flush();
            await buffered.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            foreach (var error in scan.Summary.Errors.Take(20))
            {
                await Console.Error.WriteLineAsync($"dedup: {PathText.Escape(error.Path)}: {PathText.EscapeMessage(error.Message)}").ConfigureAwait(false);
            }

            if (scan.Summary.Errors.Count > 20)
            {
                await Console.Error.WriteLineAsync($"dedup: … and {scan.Summary.Errors.Count - 20} more errors").ConfigureAwait(false);
            }

            return scan.Summary.Errors.Count == 0 ? ExitCodes.Success : ExitCodes.CompletedWithErrors;
        }
    }
}
