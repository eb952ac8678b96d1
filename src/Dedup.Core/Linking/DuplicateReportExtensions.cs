using Dedup.Core.Reports;

namespace Dedup.Core.Linking;

/// <summary>
/// From a report read back (<see cref="DuplicateReport"/>) to groups to plan on. An extension of the report, kept
/// beside the planner because looking files up again is the actions' safe walk from a root.
/// </summary>
public static class DuplicateReportExtensions
{
    /// <summary>
    /// The groups to plan on, rebuilt from the files as they are now (Linux): each name of each group is looked up
    /// again from the report's root that holds it, one folder at a time without following a symbolic link, and kept
    /// only while it still leads to the very file the report describes (device, inode, size, modification and change
    /// time); each file's link count, owner and mode are then as they are now. Content is not compared here: acting
    /// compares it before any change. Left out, each with its reason: a name that no longer leads to its file, a group
    /// left with fewer than two distinct files, a media-payload group (its files' bytes differ, so none replaces
    /// another) and a group across machines but for the files this machine compared byte for byte (files of other
    /// machines, and files matched by SHA-256 only, are not this machine's to act on).
    /// </summary>
    /// <param name="report">The report read back.</param>
    /// <param name="leftOut">What was left out and why, one line each, such as <c>/data/b.bin: modified since the report</c>.</param>
    /// <returns>The groups in report order, each with <see cref="DuplicateGroup.Roots"/> set to <see cref="DuplicateReport.Roots"/>.</returns>
    /// <exception cref="NotSupportedException">Not running on Linux.</exception>
    public static IReadOnlyList<DuplicateGroup> RecheckGroups(this DuplicateReport report, out IReadOnlyList<string> leftOut)
    {
        var groups = new List<DuplicateGroup>();
        var problems = new List<string>();
        ArgumentNullException.ThrowIfNull(report);
        foreach (var group in report.Groups)
        {
            if (group.Match == ContentMatch.MediaPayload)
            {
                problems.Add($"a media-payload group ({group.Files.Count} files): their bytes differ (tags or metadata), so neither replaces the other");
                continue;
            }

            if (group.LocalPart() is not { } local)
            {
                problems.Add($"a group across machines ({group.Files.Count} files): files of other machines are not acted on");
                continue;
            }

            var rebuilt = ReportedDuplicates.FromReport(report.Roots, group.Size, NamesOf(local), out var left);
            problems.AddRange(left);
            if (rebuilt is not null)
            {
                groups.Add(rebuilt);
            }
        }

        leftOut = problems;
        return groups;
    }

    /// <summary>Every name the report lists in <paramref name="group"/>, each with its file's reported identity.</summary>
    private static List<ReportedFile> NamesOf(DuplicateGroup group)
    {
        var names = new List<ReportedFile>();
        foreach (var file in group.Files)
        {
            names.Add(new ReportedFile(file.Path, file.Identity, group.Size, file.LastWriteTimeUtc, file.LastChangeTimeUtc));
            foreach (var link in file.OtherLinks)
            {
                names.Add(new ReportedFile(link, file.Identity, group.Size, file.LastWriteTimeUtc, file.LastChangeTimeUtc));
            }
        }

        return names;
    }
}
