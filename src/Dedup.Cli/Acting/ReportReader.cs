using Dedup.Core;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Reports;

namespace Dedup.Cli.Acting;

/// <summary>
/// Reads a <c>dedup find --format json</c> report for <c>--from-report</c> (the library's
/// <see cref="DuplicateReport"/>) and rebuilds each group from the files as they are now
/// (<see cref="ReportedDuplicates.FromReport"/>): a name is kept only while it leads, from its report root and through
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

        var groups = new List<DuplicateGroup>();
        var leftOut = 0;
        foreach (var group in report.Groups)
        {
            // A media-payload group's files differ byte for byte: the planner refuses such groups, so say so here.
            if (group.Match == ContentMatch.MediaPayload)
            {
                leftOut += group.Files.Count;
                await problems.WriteLineAsync($"dedup: left out a media-payload group ({group.Files.Count} files): their bytes differ (tags or metadata), so neither replaces the other").ConfigureAwait(false);
                continue;
            }

            // A group across machines (dedup find --catalog) names files of other machines: not this machine's to act on.
            // Its local files are also in their own byte-verified group of the report.
            if (!group.Sha256.IsEmpty)
            {
                leftOut += group.Files.Count;
                await problems.WriteLineAsync($"dedup: left out a group across machines ({group.Files.Count} files): files of other machines are not acted on").ConfigureAwait(false);
                continue;
            }

            var names = new List<ReportedFile>();
            foreach (var entry in group.Files)
            {
                names.Add(new ReportedFile(entry.Path, entry.Identity, group.Size, entry.LastWriteTimeUtc, entry.LastChangeTimeUtc));
                foreach (var link in entry.OtherLinks)
                {
                    names.Add(new ReportedFile(link, entry.Identity, group.Size, entry.LastWriteTimeUtc, entry.LastChangeTimeUtc));
                }
            }

            var rebuilt = ReportedDuplicates.FromReport(report.Roots, group.Size, names, out var left);
            leftOut += left.Count;
            foreach (var problem in left)
            {
                await problems.WriteLineAsync($"dedup: left out {PathText.EscapeMessage(problem)}").ConfigureAwait(false);
            }

            if (rebuilt is not null)
            {
                groups.Add(rebuilt);
            }
        }

        return (groups, leftOut);
    }
}

/// <summary>A <c>--from-report</c> file that is not a valid report: a usage error with one line saying what is wrong.</summary>
internal sealed class InvalidReportException(string message) : Exception(message);
