namespace Dedup.Core;

/// <summary>
/// The stores a finder's scans use, beside its <see cref="DuplicateFinderOptions"/>: held where the scan is composed
/// (<see cref="ScanComposition"/>), so the settings the scan core sees name neither the cache nor the catalog.
/// </summary>
internal sealed record ScanStores
{
    /// <summary>Where rescans find what earlier scans learned, if anywhere.</summary>
    public Caching.HashCache? Cache { get; init; }

    /// <summary>Whether a cache that cannot be read or saved fails the scan (<see cref="Caching.HashCacheException"/>) instead of being a warning.</summary>
    public bool CacheRequired { get; init; }

    /// <summary>Where the scan's files go to be matched with other machines', if anywhere, and under which machine name.</summary>
    public (Catalog.FileCatalog Store, string Machine)? Catalog { get; init; }
}
