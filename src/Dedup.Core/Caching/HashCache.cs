using Dedup.Core.Enumeration;

namespace Dedup.Core.Caching;

/// <summary>
/// A persistent store of what earlier scans learned about file contents, plugged in with
/// <see cref="DuplicateFinderBuilder.UseCache(HashCache)"/> so that a rescan of a tree that barely changed reads only what changed.
/// The store only keeps entries; the scan decides what to trust: an entry is used only while the file's whole
/// <see cref="FileStamp"/> is unchanged and complete, equality is taken from a cache only for files whose bytes were
/// compared under those very stamps, and anything else is read again (docs/cache.md). The SQLite implementation is in
/// the Dedup.Core.Sqlite package.
/// </summary>
/// <remarks>
/// A scan calls <see cref="Load"/> once when the folders have been listed (on a thread of its own) and, when it has
/// something to write, <see cref="BeginSave"/> once: the writer gets the scan's entries while its compare stage runs and
/// is committed when the scan completes; a cancelled or failed scan commits nothing. Any exception these throw
/// (other than <see cref="OperationCanceledException"/>) becomes a one-line warning in
/// <see cref="Reporting.CacheStatistics.Warnings"/> and the scan goes on without the cache, with exact results.
/// </remarks>
public abstract class HashCache
{
    /// <summary>What warnings call the cache, such as its file's path.</summary>
    public abstract string Description { get; }

    /// <summary>Reads every entry written under <paramref name="scope"/>'s <see cref="HashCacheScope.Format"/>.</summary>
    /// <param name="scope">The scan's format and roots.</param>
    /// <param name="cancellationToken">Cancels the load.</param>
    /// <returns>The entries, and any warning met while the store still could be read (such as a rebuilt file).</returns>
    public abstract HashCacheSnapshot Load(HashCacheScope scope, CancellationToken cancellationToken = default);

    /// <summary>
    /// Opens the save of one scan: the writer takes the scan's new and changed entries in batches while its compare
    /// stage runs and the entries to prune at its commit, so a store can write them beside the comparison or keep them
    /// until the commit (the one way a scan saves; a store that writes everything at once does so in
    /// <see cref="HashCacheWriter.Commit"/>).
    /// </summary>
    /// <param name="scope">The scan's format and roots, as given to <see cref="Load"/>.</param>
    /// <returns>The writer; the scan disposes it.</returns>
    public abstract HashCacheWriter BeginSave(HashCacheScope scope);
}

/// <summary>What a scan's entries mean and which scan wrote them.</summary>
/// <param name="Format">
/// How the scan computes what it stores (probe sizes and hash) and, on Linux, the boot it runs in (entries of an earlier
/// boot are not trusted: a crash can keep new bytes under a file's old stamp); entries of another format are not
/// returned, and a store may drop them.
/// </param>
/// <param name="Roots">A 64-bit key of the scan's roots: a scan prunes only entries written by scans of the same roots.</param>
public sealed record HashCacheScope(string Format, long Roots);

/// <summary>
/// What a scan learned about one file, under the stamp the file had. Files in one <see cref="Partition"/> were all
/// compared with one another byte for byte (or told apart by their probes): two of them with the same
/// <see cref="Class"/> had equal bytes, with different classes different bytes, while each still had its stamp.
/// </summary>
/// <param name="Stamp">Identity, size, modification and change times when the file was read or compared.</param>
/// <param name="Probe">The XXH3 (64-bit) key of the file's probe: its bytes when small, else its prefix and suffix.</param>
/// <param name="Partition">The set of files it was compared with; 0 when none. Negative in a save: a new id.</param>
/// <param name="Class">Its class of equal bytes within <paramref name="Partition"/>; 0 when none. Negative in a save: a new id.</param>
/// <param name="Roots">The <see cref="HashCacheScope.Roots"/> of the scan that wrote it.</param>
public readonly record struct HashCacheEntry(FileStamp Stamp, ulong Probe, long Partition, long Class, long Roots)
{
    /// <summary>The algorithm of <see cref="Digest"/>; meaningless when it is empty.</summary>
    public Comparison.DuplicateHashAlgorithm DigestAlgorithm { get; init; }

    /// <summary>The digest of the file's whole content, when the scan hashed it; otherwise empty.</summary>
    public ReadOnlyMemory<byte> Digest { get; init; }
}

/// <summary>The entries a <see cref="HashCache"/> holds for a scan.</summary>
/// <param name="Entries">At most one entry per identity.</param>
public sealed record HashCacheSnapshot(IReadOnlyList<HashCacheEntry> Entries)
{
    /// <summary>Problems the store met and recovered from (such as a corrupt file rebuilt), one line each.</summary>
    public IReadOnlyList<string> Warnings { get; init; } = [];

    /// <summary>Whether the store could only be read: the scan uses the entries and does not call <see cref="HashCache.BeginSave"/>.</summary>
    public bool IsReadOnly { get; init; }
}
