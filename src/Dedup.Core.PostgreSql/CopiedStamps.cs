using Dedup.Core.Enumeration;

namespace Dedup.Core.PostgreSql;

/// <summary>
/// The stamps of the rows a machine's first scan copied, which its digests are checked against: a digest is kept when a
/// copied row has its stamp, the first per identity.
/// </summary>
/// <remarks>
/// A scan hands its rows over in identity order (the catalog's key order), so the stamps are kept as they come, in
/// small chunks, and looked up by binary search: no hash per row, and no array that grows past the large-object heap
/// (a <see cref="HashSet{T}"/> of 250k stamps and the seen identities were ~0.3 s of the client's CPU in a first scan,
/// #19 session 13, mostly its resized arrays). Rows in any other order fall back to hash sets.
/// </remarks>
internal sealed class CopiedStamps
{
    // 1,024 entries of 48 bytes: 48 KiB chunks, under the 85,000-byte large-object threshold.
    private const int ChunkShift = 10;
    private const int ChunkSize = 1 << ChunkShift;
    private readonly List<Entry[]> _chunks = [];
    // Each chunk's first identity: a lookup searches these few (in cache) first, then one chunk, instead of every step
    // of one search going through the chunk list to a far entry (a search of all 250k was ~0.17 s of a first scan's CPU).
    private readonly List<FileIdentity> _heads = [];
    private int _count;
    private bool _sorted = true;
    private HashSet<FileStamp>? _set;
    private HashSet<FileIdentity>? _seen;

    /// <summary>Notes a copied row's stamp.</summary>
    public void Add(FileStamp stamp)
    {
        if (_set is not null)
        {
            _set.Add(stamp);
            return;
        }

        if (_count > 0 && KeyOrder(At(_count - 1).Stamp.Identity, stamp.Identity) > 0)
        {
            // Not in key order: hash sets from here on.
            _sorted = false;
            _set = [];
            for (int i = 0; i < _count; i++)
            {
                _set.Add(At(i).Stamp);
            }

            _chunks.Clear();
            _heads.Clear();
            _count = 0;
            _set.Add(stamp);
            return;
        }

        if ((_count & (ChunkSize - 1)) == 0)
        {
            _chunks.Add(new Entry[ChunkSize]);
            _heads.Add(stamp.Identity);
        }

        _chunks[_count >> ChunkShift][_count & (ChunkSize - 1)].Stamp = stamp;
        _count++;
    }

    /// <summary>Whether a copied row has <paramref name="stamp"/> and no digest was taken for its identity yet; takes it.</summary>
    public bool TryTake(FileStamp stamp)
    {
        if (!_sorted)
        {
            return _set!.Contains(stamp) && (_seen ??= []).Add(stamp.Identity);
        }

        // The first entry of the identity (the rows of a hard-linked file's names are adjacent): it holds the "taken" mark.
        // It lies in the chunk before the first whose head is not below the identity (the chunk's entries may all be
        // below it: the first entry of the next chunk then), or at 0.
        int chunk = LowerBound(_heads, stamp.Identity);
        int low = 0;
        if (chunk > 0)
        {
            var entries = _chunks[chunk - 1];
            int inChunk = LowerBound(entries, chunk == _chunks.Count ? _count - ((chunk - 1) << ChunkShift) : ChunkSize, stamp.Identity);
            low = ((chunk - 1) << ChunkShift) + inChunk;
        }

        for (int i = low; i < _count && At(i).Stamp.Identity == stamp.Identity; i++)
        {
            if (At(i).Stamp == stamp)
            {
                ref var first = ref At(low);
                if (first.Taken)
                {
                    return false;
                }

                first.Taken = true;
                return true;
            }
        }

        return false;
    }

    /// <summary>The first of the chunks' heads not below <paramref name="identity"/> (their count if none).</summary>
    private static int LowerBound(List<FileIdentity> heads, FileIdentity identity)
    {
        int low = 0, high = heads.Count;
        while (low < high)
        {
            int middle = (int)((uint)(low + high) >> 1);
            if (KeyOrder(heads[middle], identity) < 0)
            {
                low = middle + 1;
            }
            else
            {
                high = middle;
            }
        }

        return low;
    }

    /// <summary>The first of the chunk's <paramref name="count"/> entries not below <paramref name="identity"/> (<paramref name="count"/> if none).</summary>
    private static int LowerBound(Entry[] entries, int count, FileIdentity identity)
    {
        int low = 0, high = count;
        while (low < high)
        {
            int middle = (int)((uint)(low + high) >> 1);
            if (KeyOrder(entries[middle].Stamp.Identity, identity) < 0)
            {
                low = middle + 1;
            }
            else
            {
                high = middle;
            }
        }

        return low;
    }

    private ref Entry At(int index) => ref _chunks[index >> ChunkShift][index & (ChunkSize - 1)];

    /// <summary>The order of <c>(device, inode)</c> in the catalog's indexes: signed, as the bigint columns hold them.</summary>
    internal static int KeyOrder(FileIdentity a, FileIdentity b)
    {
        int byDevice = unchecked((long)a.Device).CompareTo(unchecked((long)b.Device));
        return byDevice != 0 ? byDevice : unchecked((long)a.FileId).CompareTo(unchecked((long)b.FileId));
    }

    private struct Entry
    {
        public FileStamp Stamp;
        public bool Taken;
    }
}
