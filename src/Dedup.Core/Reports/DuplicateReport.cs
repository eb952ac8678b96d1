using Dedup.Core.Linking;

namespace Dedup.Core.Reports;

/// <summary>
/// A report read back (the format <see cref="ReportWriter.CreateJson(Stream)"/> writes, <c>dedup find --format json</c>):
/// its roots and its groups, each group with those roots in <see cref="DuplicateGroup.Roots"/>. Reading looks at no
/// file; <see cref="RecheckGroups"/> then looks the files up again and gives the groups to plan on, as
/// <c>dedup link --from-report</c> does; acting on a group re-checks every file once more.
/// </summary>
/// <remarks>
/// The report does not carry everything a scan knows: in <see cref="Groups"/>, <see cref="DuplicateFile.LinkCount"/> is
/// the number of names the report lists for the file and owner and mode are unknown (<see cref="RecheckGroups"/> reads
/// them from the files), and a group a hand-edited report leaves with fewer than two files is left out. The
/// summary is not read back: the report does not hold all of it (the elapsed time, the cache's warnings).
/// </remarks>
public sealed class DuplicateReport
{
    internal DuplicateReport(IReadOnlyList<ScanRoot> roots, IReadOnlyList<DuplicateGroup> groups, IReadOnlyList<DuplicateFolderGroup> folderGroups)
    {
        Roots = roots;
        Groups = groups;
        FolderGroups = folderGroups;
    }

    /// <summary>The scan's roots with the identities they had when it started.</summary>
    public IReadOnlyList<ScanRoot> Roots { get; }

    /// <summary>
    /// The groups in report order, as the report describes them: whole-file and media-payload groups with
    /// <see cref="DuplicateGroup.Roots"/> set to <see cref="Roots"/>, groups across machines (with
    /// <see cref="DuplicateGroup.Sha256"/>) with none. To act on them, plan on <see cref="RecheckGroups"/>.
    /// </summary>
    public IReadOnlyList<DuplicateGroup> Groups { get; }

    /// <summary>
    /// The folder groups of a folder-mode report (empty otherwise), to look at: a partial overlap's difference paths
    /// are the report's lossy strings, and acting on folders takes a scan (what it saw in each folder is not in the report).
    /// </summary>
    public IReadOnlyList<DuplicateFolderGroup> FolderGroups { get; }

    /// <summary>Reads a JSON report.</summary>
    /// <param name="stream">The report's UTF-8 JSON; read to its end, left open.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    /// <returns>The report.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="stream"/> is <see langword="null"/>.</exception>
    /// <exception cref="ReportFormatException">The stream does not hold a valid report; the message names the first bad element.</exception>
    public static Task<DuplicateReport> ReadAsync(Stream stream, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(stream);
        return JsonReportReader.ReadAsync(stream, cancellationToken);
    }

    /// <summary>
    /// The groups to plan on, rebuilt from the files as they are now (Linux): each name of each group is looked up
    /// again from the report's root that holds it, one folder at a time without following a symbolic link, and kept
    /// only while it still leads to the very file the report describes (device, inode, size, modification and change
    /// time); each file's link count, owner and mode are then as they are now. Content is not compared here: acting
    /// compares it before any change. Left out, each with its reason: a name that no longer leads to its file, a group
    /// left with fewer than two distinct files, a media-payload group (its files' bytes differ, so none replaces
    /// another) and a group across machines (files of other machines are not this machine's to act on; its local
    /// files are also in a group of their own).
    /// </summary>
    /// <param name="leftOut">What was left out and why, one line each, such as <c>/data/b.bin: modified since the report</c>.</param>
    /// <returns>The groups in report order, each with <see cref="DuplicateGroup.Roots"/> set to <see cref="Roots"/>.</returns>
    /// <exception cref="NotSupportedException">Not running on Linux.</exception>
    public IReadOnlyList<DuplicateGroup> RecheckGroups(out IReadOnlyList<string> leftOut)
    {
        var groups = new List<DuplicateGroup>();
        var problems = new List<string>();
        foreach (var group in Groups)
        {
            if (group.Match == ContentMatch.MediaPayload)
            {
                problems.Add($"a media-payload group ({group.Files.Count} files): their bytes differ (tags or metadata), so neither replaces the other");
                continue;
            }

            if (!group.Sha256.IsEmpty)
            {
                problems.Add($"a group across machines ({group.Files.Count} files): files of other machines are not acted on");
                continue;
            }

            var rebuilt = ReportedDuplicates.FromReport(Roots, group.Size, NamesOf(group), out var left);
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
