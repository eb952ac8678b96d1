namespace Dedup.Core.Reporting;

/// <summary>How a scan used its <see cref="Catalog.FileCatalog"/> (<see cref="ScanSummary.Catalog"/>).</summary>
public sealed record CatalogStatistics
{
    /// <summary>The name the scan's files were stored under.</summary>
    public required string Machine { get; init; }

    /// <summary>Files handed to the catalog (every file the scan enumerated); 0 when that failed.</summary>
    public long FilesRecorded { get; init; }

    /// <summary>Files whose SHA-256 the scan computed because the catalog asked for it.</summary>
    public long FilesHashed { get; init; }

    /// <summary>Groups reported that hold files of other machines.</summary>
    public int GroupsAcrossMachines { get; init; }

    /// <summary>
    /// Why the catalog could not be used to the end (such as a lost connection), or <see langword="null"/>. The scan's
    /// own groups are reported either way; groups across machines only when this is <see langword="null"/>.
    /// </summary>
    public Exception? Error { get; init; }
}
