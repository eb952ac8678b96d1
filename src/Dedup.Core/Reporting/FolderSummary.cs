namespace Dedup.Core.Reporting;

/// <summary>
/// The duplicate folders of a folder-mode scan (<see cref="DuplicateFinderBuilder.UseFolderMode"/>), in
/// <see cref="ScanSummary.Folders"/>. The file totals of <see cref="ScanSummary"/> leave out the files inside the
/// copies, so what removing every copy would free is <see cref="ScanSummary.WastedBytes"/> plus <see cref="WastedBytes"/>.
/// </summary>
public sealed record FolderSummary
{
    /// <summary>Groups of equal folders (topmost only).</summary>
    public required int Groups { get; init; }

    /// <summary>Folders in those groups beyond the first of each: the copies.</summary>
    public required int CopiedFolders { get; init; }

    /// <summary>Files (names) inside the copies.</summary>
    public required long CopiedFiles { get; init; }

    /// <summary>Bytes that removing every copy would free (the sum of <see cref="DuplicateFolderGroup.WastedBytes"/>).</summary>
    public required long WastedBytes { get; init; }

    /// <summary>Pairs of folders listed as equal but for a few entries (<see cref="DuplicateFolderGroup.Differences"/>); they free nothing.</summary>
    public required int PartialOverlaps { get; init; }

    /// <summary>The totals of <paramref name="groups"/>.</summary>
    /// <param name="groups">Folder groups, exact ones and partial overlaps.</param>
    /// <returns>Their summary.</returns>
    public static FolderSummary Of(IEnumerable<DuplicateFolderGroup> groups)
    {
        ArgumentNullException.ThrowIfNull(groups);
        int exact = 0, copies = 0, partial = 0;
        long files = 0, wasted = 0;
        foreach (var group in groups)
        {
            if (!group.IsExact)
            {
                partial++;
                continue;
            }

            exact++;
            copies += group.Folders.Count - 1;
            files += group.Files * (group.Folders.Count - 1);
            wasted += group.WastedBytes;
        }

        return new FolderSummary { Groups = exact, CopiedFolders = copies, CopiedFiles = files, WastedBytes = wasted, PartialOverlaps = partial };
    }
}
