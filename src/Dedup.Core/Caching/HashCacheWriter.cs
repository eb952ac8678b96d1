using Dedup.Core.Enumeration;

namespace Dedup.Core.Caching;

/// <summary>
/// A save in progress, opened with <see cref="HashCache.BeginSave"/>: a scan hands it entries in batches while its
/// compare stage runs (from one thread of its own, one call at a time) and calls <see cref="Commit"/> once when it
/// completes. Nothing may become visible to other scans before <see cref="Commit"/>; disposing a writer that was not
/// committed discards what it was given (a cancelled or failed scan).
/// </summary>
public abstract class HashCacheWriter : IDisposable
{
    /// <summary>
    /// Adds or replaces <paramref name="entries"/> (one per identity over the whole save), replacing each negative
    /// <see cref="HashCacheEntry.Partition"/> and <see cref="HashCacheEntry.Class"/> with an id never used before in
    /// the store (equal negative ids of one save get equal new ids, whichever batch they come in).
    /// </summary>
    /// <param name="entries">New and changed entries; the span is reused by the caller after the call.</param>
    /// <param name="cancellationToken">Cancels the write.</param>
    public abstract void Write(ReadOnlySpan<HashCacheEntry> entries, CancellationToken cancellationToken = default);

    /// <summary>Removes <paramref name="removals"/> (never one of the identities written) and makes the save visible at once.</summary>
    /// <param name="removals">Entries to prune: the scan's roots wrote them and it did not see those files again.</param>
    /// <param name="cancellationToken">Cancels the commit (nothing is saved).</param>
    public abstract void Commit(IReadOnlyList<FileIdentity> removals, CancellationToken cancellationToken = default);

    /// <summary>Ends the save; discards it unless <see cref="Commit"/> completed.</summary>
    public void Dispose()
    {
        Dispose(true);
        GC.SuppressFinalize(this);
    }

    /// <summary>Releases what the writer holds (a connection, a transaction).</summary>
    /// <param name="disposing">Called from <see cref="Dispose()"/>, not a finalizer.</param>
    protected virtual void Dispose(bool disposing)
    {
    }
}
