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
}
