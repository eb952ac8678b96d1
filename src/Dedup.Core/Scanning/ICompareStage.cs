namespace Dedup.Core.Scanning;

/// <summary>
/// What a scan does after the size barrier: turns candidate sets into reported groups. Whole-file mode is
/// <see cref="WholeFileScan"/>; media mode (<c>Media/Pipeline/MediaScan</c>) composes the same whole-file stage.
/// </summary>
internal interface ICompareStage
{
    /// <summary>Whether files of a unique size are candidates too (their payload may still equal another file's).</summary>
    bool KeepsSingles { get; }

    /// <summary>Given to the scan's reader, to see whole-file reads; <see langword="null"/> when not needed.</summary>
    IReadObserver? Observer { get; }

    /// <summary>Compares the sets and reports each group found to <paramref name="output"/>; returns when all are done.</summary>
    void Run(ScanState state, List<CandidateSet> sets, ScanOutput output, CancellationToken cancellationToken);
}
