using Dedup.Core.Enumeration;

namespace Dedup.Core.Caching.Sqlite;

/// <summary>
/// A save of <see cref="SqliteHashCache"/>: the scan's entries are kept as they come (on the scan's writer thread) and
/// written at the commit in one short transaction (<c>SqliteStore.Write</c>, waiting up to the busy timeout for
/// another scan's). Schema 3 writes a first run's entries as a few dozen chunk blobs, so the write at the end costs
/// less than the per-row inserts that session 9 moved beside the compare stage; nothing is locked while the scan compares.
/// </summary>
internal sealed class SqliteCacheWriter(SqliteHashCache cache, HashCacheScope scope) : HashCacheWriter
{
    /// <summary>Entries per segment: segments rather than one growing array, so no copy of all entries as they grow.</summary>
    private const int SegmentSize = 16384;

    private readonly List<HashCacheEntry[]> _segments = [];
    private int _count;

    public override void Write(ReadOnlySpan<HashCacheEntry> entries, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        while (!entries.IsEmpty)
        {
            var at = _count % SegmentSize;
            if (at == 0)
            {
                _segments.Add(new HashCacheEntry[SegmentSize]);
            }

            var take = Math.Min(entries.Length, SegmentSize - at);
            entries[..take].CopyTo(_segments[^1].AsSpan(at));
            _count += take;
            entries = entries[take..];
        }
    }

    public override void Commit(IReadOnlyList<FileIdentity> removals, CancellationToken cancellationToken = default) =>
        SqliteStore.Write(cache, scope, new SqliteChunks.Entries([.. _segments], SegmentSize, _count), removals, cancellationToken);

    protected override void Dispose(bool disposing) => _segments.Clear();
}
