namespace Dedup.Core.Reporting;

/// <summary>
/// Where one scan reports while it runs, given to <see cref="DuplicateFinder.FindAsync(ScanCallbacks, CancellationToken)"/>.
/// Each property set here replaces the finder's default for this scan only, so one finder shared by a service
/// (a singleton) can report each run to its own sink.
/// </summary>
/// <remarks>
/// Both are called on the scan's own threads, as things happen: keep them short and thread-safe. A
/// <see cref="Progress{T}"/> posts to the context it was created on, or to the thread pool.
/// </remarks>
public sealed record ScanCallbacks
{
    /// <summary>Receives a snapshot about every 100 ms and one when the scan ends.</summary>
    public IProgress<ScanProgress>? Progress { get; init; }

    /// <summary>
    /// Receives each problem with one path (unreadable, vanished, changed, invalid name, link loop) as soon as it is
    /// met; the same errors are collected in <see cref="ScanSummary.Errors"/>.
    /// </summary>
    public IProgress<ScanError>? Errors { get; init; }
}
