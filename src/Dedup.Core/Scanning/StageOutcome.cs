using Dedup.Core.Reporting;

namespace Dedup.Core.Scanning;

/// <summary>What a compare stage found beside its file groups (folder mode: the duplicate folders), for the scan to report.</summary>
internal sealed class StageOutcome
{
    /// <summary>Nothing beside the file groups.</summary>
    public static readonly StageOutcome None = new();

    /// <summary>The duplicate folders found (folder mode), in the order reported.</summary>
    public IReadOnlyList<DuplicateFolderGroup> FolderGroups { get; private init; } = [];

    /// <summary>Their totals, or <see langword="null"/> outside folder mode.</summary>
    public FolderSummary? Folders { get; private init; }

    /// <summary>A folder-mode outcome.</summary>
    public static StageOutcome OfFolders(IReadOnlyList<DuplicateFolderGroup> groups) => new() { FolderGroups = groups, Folders = DuplicateFolderGroup.Summarize(groups) };

    /// <summary>Adds the outcome's totals to a summary of the scan.</summary>
    public ScanSummary AddTo(ScanSummary summary) => Folders is null ? summary : summary with { Folders = Folders };
}
