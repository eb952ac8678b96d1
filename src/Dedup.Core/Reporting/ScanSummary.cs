using System.Globalization;

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
    public CacheStatistics? Cache { get; init; }

    /// <summary>How the scan used its file catalog (<see cref="DuplicateFinderBuilder.UseCatalog"/>), including why it could not; <see langword="null"/> without one.</summary>
    public CatalogStatistics? Catalog { get; init; }

    /// <summary>Folder mode's duplicate folders (<see cref="DuplicateFinderBuilder.UseFolderMode"/>); <see langword="null"/> in the other modes.</summary>
    public FolderSummary? Folders { get; init; }

    /// <summary>Wall time of the scan.</summary>
    public required TimeSpan Elapsed { get; init; }

    /// <summary>
    /// One line for logs and the debugger, culture-free: for example <c>1200 files, 3 groups (4 duplicates), 2.0 MiB
    /// wasted, 5.1 MiB read, 1 error, 0.42 s</c>.
    /// </summary>
    /// <returns>The line.</returns>
    public override string ToString() => string.Create(
        CultureInfo.InvariantCulture,
        $"{FilesScanned} files, {Groups} groups ({DuplicateFiles} duplicates), {ByteCount.Format(WastedBytes)} wasted, {ByteCount.Format(BytesRead)} read, {Errors.Count} {(Errors.Count == 1 ? "error" : "errors")}, {Elapsed.TotalSeconds:0.00} s");
}
