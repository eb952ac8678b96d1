namespace Dedup.Core.Reporting;

/// <summary>
/// The totals of a completed scan. A record: equal when every total is equal and <see cref="Errors"/> is the same
/// list (a list inside a record compares by reference, not by its items).
/// </summary>
public sealed record ScanSummary
{
    private readonly IReadOnlyList<ScanError> _errors = [];

    /// <summary>Regular files found by the enumerator (each name counted once).</summary>
    public required long FilesScanned { get; init; }

    /// <summary>Bytes read from file contents.</summary>
    public required long BytesRead { get; init; }

    /// <summary>Duplicate groups reported.</summary>
    public required int Groups { get; init; }

    /// <summary>Files in all groups beyond the first of each group.</summary>
    public required long DuplicateFiles { get; init; }

    /// <summary>Bytes that removing all but one file of each group would free.</summary>
    public required long WastedBytes { get; init; }

    /// <summary>Paths that could not be read or changed during the scan, with reasons.</summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public required IReadOnlyList<ScanError> Errors
    {
        get => _errors;
        init => _errors = value ?? throw new ArgumentNullException(nameof(Errors));
    }

    /// <summary>How the scan used its hash cache (<see cref="DuplicateFinderBuilder.UseCache(Caching.HashCache)"/>); <see langword="null"/> without one.</summary>
    public Caching.CacheStatistics? Cache { get; init; }

    /// <summary>How the scan used its file catalog (<see cref="DuplicateFinderBuilder.UseCatalog"/>), including why it could not; <see langword="null"/> without one.</summary>
    public Catalog.CatalogStatistics? Catalog { get; init; }

    /// <summary>Folder mode's duplicate folders (<see cref="DuplicateFinderBuilder.UseFolderMode"/>); <see langword="null"/> in the other modes.</summary>
    public FolderSummary? Folders { get; init; }

    /// <summary>Wall time of the scan.</summary>
    public required TimeSpan Elapsed { get; init; }

    /// <summary>
    /// The summary a scan that found exactly <paramref name="groups"/> would give, for the tests of code that consumes
    /// scans: the counts and wasted bytes added up from the groups, every name in them counted as scanned, nothing
    /// read, no time spent. Change what a test needs with <c>with { ... }</c>.
    /// </summary>
    /// <param name="groups">The groups the scan found.</param>
    /// <param name="errors">The errors it met; none when omitted.</param>
    /// <returns>The summary.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="groups"/> is <see langword="null"/>.</exception>
    public static ScanSummary Of(IEnumerable<DuplicateGroup> groups, IReadOnlyList<ScanError>? errors = null)
    {
        ArgumentNullException.ThrowIfNull(groups);
        long names = 0, duplicates = 0, wasted = 0;
        var count = 0;
        foreach (var group in groups)
        {
            count++;
            duplicates += group.Files.Count - 1;
            wasted += group.WastedBytes;
            foreach (var file in group.Files)
            {
                names += 1 + file.OtherLinks.Count;
            }
        }

        return new ScanSummary
        {
            FilesScanned = names,
            BytesRead = 0,
            Groups = count,
            DuplicateFiles = duplicates,
            WastedBytes = wasted,
            Errors = errors ?? [],
            Elapsed = TimeSpan.Zero,
        };
    }
}
