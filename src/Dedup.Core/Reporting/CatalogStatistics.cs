namespace Dedup.Core.Reporting;

/// <summary>How a scan used its <see cref="Catalog.FileCatalog"/> (<see cref="ScanSummary.Catalog"/>).</summary>
public sealed record CatalogStatistics
{
    private readonly IReadOnlyDictionary<string, long> _pendingMatches = new Dictionary<string, long>();

    /// <summary>The name the scan's files were stored under.</summary>
    public required string Machine { get; init; }

    /// <summary>Files handed to the catalog (every file the scan enumerated); 0 when that failed.</summary>
    public long FilesRecorded { get; init; }

    /// <summary>Files whose SHA-256 the scan computed because the catalog asked for it.</summary>
    public long FilesHashed { get; init; }

    /// <summary>Groups reported that hold files of other machines (one per content: the scan's own files of it are in the same group).</summary>
    public int GroupsAcrossMachines { get; init; }

    /// <summary>
    /// The result is partial: for each other machine (by name), how many of this scan's files (identities) share a size
    /// with a file of that machine that has no SHA-256 yet (its size was unique when that machine last scanned), so
    /// they may match files there once that machine scans again. The scan asked the catalog for those digests: that
    /// machine's next scan computes them. Empty when nothing is pending (and after a failure). A record compares this by
    /// reference.
    /// </summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public IReadOnlyDictionary<string, long> PendingMatches
    {
        get => _pendingMatches;
        init => _pendingMatches = value ?? throw new ArgumentNullException(nameof(PendingMatches));
    }

    /// <summary>Of <see cref="FilesHashed"/>, the files other machines had asked for (their scans found files of the same size with no digest here).</summary>
    public long FilesHashedOnRequest { get; init; }

    /// <summary>
    /// Why the catalog could not be used to the end (such as a lost connection), or <see langword="null"/>. The scan's
    /// own groups are reported either way; groups across machines only when this is <see langword="null"/>.
    /// </summary>
    public Exception? Error { get; init; }
}
