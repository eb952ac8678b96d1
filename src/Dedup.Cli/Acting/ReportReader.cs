using Dedup.Core;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Reports;

namespace Dedup.Cli.Acting;

/// <summary>
/// Reads a <c>dedup find --format json</c> report for <c>--from-report</c> (the library's
/// <see cref="DuplicateReport"/>) and rebuilds each group from the files as they are now
/// (<see cref="DuplicateReportExtensions.RecheckGroups"/>): a name is kept only while it leads, from its report root and through
/// no symbolic link, to the very file the report describes. Anything malformed is a
/// <see cref="InvalidReportException"/> naming the first bad element, never a crash.
/// </summary>
internal static class ReportReader
{
    /// <summary>How the library's messages about the document as a whole begin; here the file is named instead.</summary>
    private const string LibrarySubject = "The report ";

    public static async Task<(List<DuplicateGroup> Groups, int LeftOut)> ReadAsync(FileInfo file, TextWriter problems, CancellationToken cancellationToken)
    {
        DuplicateReport report;
        try
        {
            var stream = file.OpenRead();
            await using (stream.ConfigureAwait(false))
            {
                report = await DuplicateReport.ReadAsync(stream, cancellationToken).ConfigureAwait(false);
            }
        }
        catch (ReportFormatException ex)
        {
            throw new InvalidReportException(ex.Element is null && ex.Message.StartsWith(LibrarySubject, StringComparison.Ordinal)
                ? $"report {PathText.Escape(file.FullName)} {ex.Message[LibrarySubject.Length..]}"
                : ex.Message);
        }

        var groups = report.RecheckGroups(out var leftOut);
        foreach (var problem in leftOut)
        {
            await problems.WriteLineAsync($"dedup: left out {PathText.EscapeMessage(problem)}").ConfigureAwait(false);
        }

        return (groups.ToList(), leftOut.Count);
    }
}

/// <summary>A <c>--from-report</c> file that is not a valid report: a usage error with one line saying what is wrong.</summary>
internal sealed class InvalidReportException(string message) : Exception(message);
