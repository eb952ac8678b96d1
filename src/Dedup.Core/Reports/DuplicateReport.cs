namespace Dedup.Core.Reports;

/// <summary>
/// A report read back (the format <see cref="ReportWriter.CreateJson(Stream)"/> writes, <c>dedup find --format json</c>):
/// its roots and its groups, each group with those roots in <see cref="DuplicateGroup.Roots"/>. Reading looks at no
/// file; <c>RecheckGroups</c> (in <c>Dedup.Core.Linking</c>) then looks the files up again and gives the groups to plan on, as
/// <c>dedup link --from-report</c> does; acting on a group re-checks every file once more.
/// </summary>
/// <remarks>
/// The report does not carry everything a scan knows: in <see cref="Groups"/>, <see cref="DuplicateFile.LinkCount"/> is
/// the number of names the report lists for the file and owner and mode are unknown (<c>RecheckGroups</c> reads
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
    /// <see cref="DuplicateGroup.Sha256"/>) with none. To act on them, plan on the groups <c>RecheckGroups</c> gives.
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
}
