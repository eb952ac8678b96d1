using Dedup.Core.IO;

namespace Dedup.Core.Scanning;

/// <summary>
/// What a scan does after the size barrier: turns candidate sets into reported groups. Whole-file mode is
/// <see cref="WholeFileScan"/>; media mode (<c>Media/Pipeline/MediaScan</c>) and folder mode (<c>Folders/FolderScan</c>)
/// compose the same whole-file stage. The scan decides from what a stage declares, never from its type.
/// </summary>
internal interface ICompareStage
{
    /// <summary>Whether files of a unique size are candidates too (their payload may still equal another file's).</summary>
    bool KeepsSingles { get; }

    /// <summary>
    /// Whether small files may be keyed while they are listed (their key then stands for their first bytes): only a
    /// stage that compares whole files alone and keeps no singles.
    /// </summary>
    bool AllowsListingKeys { get; }

    /// <summary>Given to the scan's reader, to see whole-file reads; <see langword="null"/> when not needed.</summary>
    IReadObserver? Observer { get; }

    /// <summary>What the scan reports when the stage did not return (cancelled or failed).</summary>
    StageOutcome Unfinished { get; }

    /// <summary>Compares the sets and reports each group found to <paramref name="output"/>; returns, when all are done, what it found beside them.</summary>
    StageOutcome Run(ScanContext context, List<CandidateSet> sets, ScanOutput output, CancellationToken cancellationToken);
}
