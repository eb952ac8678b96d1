namespace Dedup.Core.Reporting;

/// <summary>How a scan used its <see cref="Caching.HashCache"/> (<see cref="ScanSummary.Cache"/>).</summary>
public sealed record CacheStatistics
{
    /// <summary>Candidate files whose cached entry matched their stamp: their probe was not read.</summary>
    public long Hits { get; init; }

    /// <summary>Candidate files without a usable entry (new, changed, or no change time), read as without a cache.</summary>
    public long Misses { get; init; }

    /// <summary>Entries removed because the scan of the same roots did not see their files again.</summary>
    public long Pruned { get; init; }

    /// <summary>Entries added or replaced.</summary>
    public long Written { get; init; }

    /// <summary>One line per problem with the cache; the scan went on without it where it could not be used.</summary>
    public IReadOnlyList<string> Warnings { get; init; } = [];
}
