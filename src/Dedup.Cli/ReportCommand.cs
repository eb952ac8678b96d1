using System.CommandLine;
using System.Text.Json;
using Dedup.Cli.Output;
using Dedup.Cli.Selection;
using Dedup.Core.Paths;
using Dedup.Core.Reports;

namespace Dedup.Cli;

/// <summary>
/// <c>dedup report REPORT.json [-o report.html]</c>: the HTML page of a saved JSON report, read with the library's
/// reader (<see cref="DuplicateReport"/>); nothing on disk is looked at but the report, so the page shows the groups
/// as the report has them.
/// </summary>
internal static class ReportCommand
{
    public static Command Create()
    {
        var input = new Argument<string>("report") { Description = "A JSON report from 'dedup find --format json'." };
        var output = ExactFileNames.Require(new Option<FileInfo?>("--output", "-o") { Description = "Write the page to this file instead of standard output (replaced only once complete, as for find)." });
        var command = new Command("report", "Write a saved JSON report as one self-contained HTML page to look at in a browser (no network; it changes nothing).") { input, output };
        command.SetAction(async (result, cancellationToken) =>
        {
            var name = result.GetValue(input)!;
            if (name.AsSpan().IndexOfAnyInRange('\uDC80', '\uDCFF') >= 0 || name.Contains('\uFFFD', StringComparison.Ordinal))
            {
                // As ExactFileNames says for options: .NET would open another file than the one named.
                await Console.Error.WriteLineAsync("dedup: report: the file name has bytes that are not UTF-8 (or U+FFFD), which cannot be opened exactly; give a name that is UTF-8").ConfigureAwait(false);
                return ExitCodes.BadUsage;
            }

            var file = new FileInfo(name);
            if (ReportTarget.Resolve(result.GetValue(output), out var problem) is not { } target)
            {
                await Console.Error.WriteLineAsync($"dedup: {problem}").ConfigureAwait(false);
                return ExitCodes.BadUsage;
            }

            byte[] bytes;
            DuplicateReport report;
            Core.Reporting.ScanSummary summary;
            try
            {
                bytes = await File.ReadAllBytesAsync(file.FullName, cancellationToken).ConfigureAwait(false);
                using (var stream = new MemoryStream(bytes, writable: false))
                {
                    report = await DuplicateReport.ReadAsync(stream, cancellationToken).ConfigureAwait(false);
                }

                summary = SavedSummary.Read(bytes) ?? throw new ReportFormatException("The report has no summary.", "summary", null);
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or ReportFormatException or JsonException)
            {
                await Console.Error.WriteLineAsync($"dedup: report '{PathText.Escape(file.FullName)}': {PathText.EscapeMessage(ex.Message)}").ConfigureAwait(false);
                return ExitCodes.BadUsage;
            }

            summary = summary with { DuplicateFiles = report.Groups.Sum(g => (long)g.Files.Count - 1) };
            var stamp = File.GetLastWriteTimeUtc(file.FullName).ToString("yyyy-MM-dd HH:mm:ss 'UTC'", System.Globalization.CultureInfo.InvariantCulture);
            try
            {
                await ReportFile.WriteAsync(target, stream => Write(stream, report, summary, $"read from {file.FullName} (written {stamp})"), cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                await Console.Error.WriteLineAsync("dedup: interrupted; no page written").ConfigureAwait(false);
                return ExitCodes.Cancelled;
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                await Console.Error.WriteLineAsync($"dedup: cannot write {target.Display}: {PathText.EscapeMessage(ex.Message)}").ConfigureAwait(false);
                return ExitCodes.CompletedWithErrors;
            }

            return ExitCodes.Success;
        });
        return command;
    }

    private static void Write(Stream stream, DuplicateReport report, Core.Reporting.ScanSummary summary, string options)
    {
        using var writer = ReportWriter.CreateHtml(stream, options);
        foreach (var folderGroup in report.FolderGroups)
        {
            writer.WriteFolderGroup(folderGroup);
        }

        foreach (var group in report.Groups)
        {
            writer.WriteGroup(group);
        }

        writer.WriteRoots(report.Roots);
        writer.WriteSummary(summary);
        writer.Flush();
    }
}
