using System.Buffers.Binary;
using System.IO.Hashing;
using Dedup.Core.Comparison;
using Dedup.Core.Enumeration;
using SQLitePCL;

namespace Dedup.Core.Caching.Sqlite;

/// <summary>
/// Schema 3's rows: a <c>chunks</c> row holds up to a few thousand entries sorted by identity (device, inode), the
/// rows' identity ranges disjoint. Writing 242k entries is then ~60 blob inserts instead of 242k B-tree inserts (the
/// inserts were most of a first run's extra CPU: SQLite's B-tree search, compare and balance, per-row interop), and a
/// rescan reads ~60 rows. A blob is: the entry count (32-bit), the entries, and an XXH3-64 checksum of all that, so a
/// damaged chunk is skipped whole, never believed. An entry is ten little-endian 64-bit fields (device, inode, size,
/// mtime and ctime in ns, probe key, partition, class, roots key, digest algorithm plus one, 0 without a digest), then its
/// 32-byte digest when it has one.
/// </summary>
internal static partial class SqliteChunks
{
    /// <summary>Entries per chunk written: ~330 KB blobs, few enough rows, small enough that a rescan's edit rewrites little.</summary>
    internal const int Target = 4096;

    /// <summary>A chunk that grew past this is split into chunks of about <see cref="Target"/> when it is rewritten.</summary>
    internal const int Max = 2 * Target;

    internal const int FixedSize = 10 * 8;
    internal const int DigestSize = 32;
    private const int HeaderSize = 4;
    private const int ChecksumSize = 8;

    /// <summary>One entry of a merge: either a new entry (<see cref="Upsert"/> ≥ 0) or one kept from an old chunk's blob.</summary>
    private readonly record struct Source(Key Key, int Upsert, int Offset, int Length);

    /// <summary>An identity as stored: signed 64-bit device and inode, ordered as SQLite orders them.</summary>
    internal readonly record struct Key(long Device, long Inode) : IComparable<Key>
    {
        public static Key Of(FileIdentity identity) => new((long)identity.Device, (long)identity.FileId);

        public int CompareTo(Key other)
        {
            var c = Device.CompareTo(other.Device);
            return c != 0 ? c : Inode.CompareTo(other.Inode);
        }
    }

    /// <summary>
    /// Decodes a chunk's blob into <paramref name="entries"/> from <paramref name="count"/> on (grown as needed), its
    /// digests in one new array; <see langword="false"/>, nothing added, when the blob is damaged.
    /// </summary>
    public static bool TryDecode(ReadOnlySpan<byte> blob, ref HashCacheEntry[] entries, ref int count)
    {
        if (!TryValidate(blob, out var n, out var digests))
        {
            return false;
        }

        if (entries.Length - count < n)
        {
            Array.Resize(ref entries, Math.Max(entries.Length * 2, count + n));
        }

        var digestBytes = digests == 0 ? null : new byte[digests * DigestSize];
        var d = 0;
        var at = HeaderSize;
        for (var i = 0; i < n; i++)
        {
            var r = blob.Slice(at, FixedSize);
            var identity = new FileIdentity((ulong)BinaryPrimitives.ReadInt64LittleEndian(r), (ulong)BinaryPrimitives.ReadInt64LittleEndian(r[8..]));
            var stamp = new FileStamp(identity, BinaryPrimitives.ReadInt64LittleEndian(r[16..]), BinaryPrimitives.ReadInt64LittleEndian(r[24..]), BinaryPrimitives.ReadInt64LittleEndian(r[32..]));
            var entry = new HashCacheEntry(
                stamp,
                (ulong)BinaryPrimitives.ReadInt64LittleEndian(r[40..]),
                BinaryPrimitives.ReadInt64LittleEndian(r[48..]),
                BinaryPrimitives.ReadInt64LittleEndian(r[56..]),
                BinaryPrimitives.ReadInt64LittleEndian(r[64..]));
            var algorithm = BinaryPrimitives.ReadInt64LittleEndian(r[72..]);
            at += FixedSize;
            if (algorithm != 0)
            {
                blob.Slice(at, DigestSize).CopyTo(digestBytes.AsSpan(d * DigestSize));
                entry = entry with { DigestAlgorithm = (DuplicateHashAlgorithm)(algorithm - 1), Digest = digestBytes.AsMemory(d * DigestSize, DigestSize) };
                d++;
                at += DigestSize;
            }

            entries[count++] = entry;
        }

        return true;
    }

    /// <summary>Whether a blob's checksum and layout are intact.</summary>
    public static bool IsIntact(ReadOnlySpan<byte> blob) => TryValidate(blob, out _, out _);

    /// <summary>Whether a blob's checksum and layout are intact; its entry and digest counts.</summary>
    private static bool TryValidate(ReadOnlySpan<byte> blob, out int count, out int digests)
    {
        count = 0;
        digests = 0;
        if (blob.Length < HeaderSize + ChecksumSize
            || Checksum(blob[..^ChecksumSize]) != BinaryPrimitives.ReadInt64LittleEndian(blob[^ChecksumSize..]))
        {
            return false;
        }

        var n = BinaryPrimitives.ReadInt32LittleEndian(blob);
        var end = blob.Length - ChecksumSize;
        var at = HeaderSize;
        for (var i = 0; i < n; i++)
        {
            if (end - at < FixedSize)
            {
                return false;
            }

            var withDigest = BinaryPrimitives.ReadInt64LittleEndian(blob.Slice(at + 72, 8)) != 0;
            at += FixedSize + (withDigest ? DigestSize : 0);
            digests += withDigest ? 1 : 0;
            if (at > end)
            {
                return false;
            }
        }

        count = n;
        return n >= 0 && at == end;
    }

    /// <summary>
    /// Writes <paramref name="upserts"/> and removes <paramref name="removals"/> in the open write transaction: each
    /// chunk whose range they fall in (a new entry goes to the chunk before it, or the first) is read, merged and
    /// written again, split when it grew past <see cref="Max"/>; the others are not touched. A damaged chunk that is
    /// touched is dropped (its files are read again by the next scan). New entries' negative ids are mapped through
    /// <paramref name="ids"/>.
    /// </summary>
    public static void Save(sqlite3 db, Entries upserts, IReadOnlyList<FileIdentity> removals, ref SqliteIdMap ids)
    {
        var order = SortedOrder(upserts, out var keys);
        var removed = new Key[removals.Count];
        for (var i = 0; i < removed.Length; i++)
        {
            removed[i] = Key.Of(removals[i]);
        }

        Array.Sort(removed);
        var directory = ReadDirectory(db);
        using var insert = SqliteStore.Prepare(db, "INSERT INTO chunks(first_dev, first_ino, last_dev, last_ino, count, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
        var writer = new ChunkWriter(db, insert, upserts);
        if (directory.Count == 0)
        {
            // A first run: the new entries in key order, a chunk at a time (no merge list of them all).
            var pieces = Pieces(order.Length);
            var sources = new Source[Math.Min(order.Length, Max)];
            var start = 0;
            for (var p = 0; p < pieces; p++)
            {
                var end = (int)((long)order.Length * (p + 1) / pieces);
                for (var i = start; i < end; i++)
                {
                    sources[i - start] = new Source(keys[i], order[i], 0, 0);
                }

                writer.WriteChunk(sources.AsSpan(0, end - start), [], ref ids);
                start = end;
            }

            return;
        }

        using var select = SqliteStore.Prepare(db, "SELECT data FROM chunks WHERE id = ?1");
        using var delete = SqliteStore.Prepare(db, "DELETE FROM chunks WHERE id = ?1");
        int u = 0, r = 0;
        for (var c = 0; c < directory.Count; c++)
        {
            // This chunk takes the new entries below the next chunk's first key (the first chunk also those below its own).
            var next = c + 1 < directory.Count ? directory[c + 1].First : (Key?)null;
            var uEnd = u;
            while (uEnd < keys.Length && (next is null || keys[uEnd].CompareTo(next.Value) < 0))
            {
                uEnd++;
            }

            while (r < removed.Length && removed[r].CompareTo(directory[c].First) < 0)
            {
                r++; // in no chunk's range: nothing to remove
            }

            var rEnd = r;
            while (rEnd < removed.Length && removed[rEnd].CompareTo(directory[c].Last) <= 0)
            {
                rEnd++;
            }

            if (uEnd > u || rEnd > r)
            {
                raw.sqlite3_bind_int64(select, 1, directory[c].Id);
                var rc = raw.sqlite3_step(select);
                var old = rc == raw.SQLITE_ROW ? raw.sqlite3_column_blob(select, 0).ToArray() : [];
                raw.sqlite3_reset(select);
                if (rc is not (raw.SQLITE_ROW or raw.SQLITE_DONE))
                {
                    Microsoft.Data.Sqlite.SqliteException.ThrowExceptionForRC(rc, db); // not read: never rewritten as empty
                }

                var merged = Merge(old, keys.AsSpan(u, uEnd - u), order.AsSpan(u, uEnd - u), removed.AsSpan(r, rEnd - r));
                raw.sqlite3_bind_int64(delete, 1, directory[c].Id);
                SqliteStore.Step(db, delete);
                writer.Write(merged, old, ref ids);
            }

            u = uEnd;
            r = rEnd;
        }
    }

    /// <summary>The positions of <paramref name="upserts"/> in key order, and their keys in that order.</summary>
    private static int[] SortedOrder(Entries upserts, out Key[] keys)
    {
        var order = new int[upserts.Count];
        keys = new Key[order.Length];
        var oneDevice = true;
        for (var i = 0; i < order.Length; i++)
        {
            order[i] = i;
            keys[i] = Key.Of(upserts[i].Stamp.Identity); // by reference: no copy of the entry
            oneDevice &= keys[i].Device == keys[0].Device;
        }

        if (oneDevice)
        {
            // The usual case, one device: a sort of primitive keys (the tuple sort's comparer calls cost ~4x as much).
            var inodes = new long[order.Length];
            for (var i = 0; i < inodes.Length; i++)
            {
                inodes[i] = keys[i].Inode;
            }

            Array.Sort(inodes, order);
            for (var i = 0; i < inodes.Length; i++)
            {
                keys[i] = new Key(keys[0].Device, inodes[i]);
            }
        }
        else
        {
            Array.Sort(keys, order);
        }

        return order;
    }

    /// <summary>An old chunk's entries, minus the removed ones and those replaced, with the new ones, in key order.</summary>
    private static Source[] Merge(byte[] old, ReadOnlySpan<Key> keys, ReadOnlySpan<int> upserts, ReadOnlySpan<Key> removed)
    {
        var kept = new List<Source>(keys.Length + (old.Length / FixedSize));
        if (TryValidate(old, out var n, out _))
        {
            var at = HeaderSize;
            for (var i = 0; i < n; i++)
            {
                var length = FixedSize + (BinaryPrimitives.ReadInt64LittleEndian(old.AsSpan(at + 72)) != 0 ? DigestSize : 0);
                kept.Add(new Source(new Key(BinaryPrimitives.ReadInt64LittleEndian(old.AsSpan(at)), BinaryPrimitives.ReadInt64LittleEndian(old.AsSpan(at + 8))), -1, at, length));
                at += length;
            }
        }

        var result = new List<Source>(kept.Count + keys.Length);
        int k = 0, u = 0, r = 0;
        while (k < kept.Count || u < keys.Length)
        {
            var takeNew = k == kept.Count || (u < keys.Length && keys[u].CompareTo(kept[k].Key) <= 0);
            if (takeNew)
            {
                if (k < kept.Count && keys[u] == kept[k].Key)
                {
                    k++; // replaced
                }

                result.Add(new Source(keys[u], upserts[u], 0, 0));
                u++;
                continue;
            }

            var key = kept[k].Key;
            while (r < removed.Length && removed[r].CompareTo(key) < 0)
            {
                r++;
            }

            if (r == removed.Length || removed[r] != key)
            {
                result.Add(kept[k]);
            }

            k++;
        }

        return [.. result];
    }

    /// <summary>The chunks' ranges, by first key.</summary>
    private static List<(long Id, Key First, Key Last)> ReadDirectory(sqlite3 db)
    {
        var directory = new List<(long Id, Key First, Key Last)>();
        using var statement = SqliteStore.Prepare(db, "SELECT id, first_dev, first_ino, last_dev, last_ino FROM chunks ORDER BY first_dev, first_ino");
        int rc;
        while ((rc = raw.sqlite3_step(statement)) == raw.SQLITE_ROW)
        {
            directory.Add((raw.sqlite3_column_int64(statement, 0),
                new Key(raw.sqlite3_column_int64(statement, 1), raw.sqlite3_column_int64(statement, 2)),
                new Key(raw.sqlite3_column_int64(statement, 3), raw.sqlite3_column_int64(statement, 4))));
        }

        if (rc != raw.SQLITE_DONE)
        {
            Microsoft.Data.Sqlite.SqliteException.ThrowExceptionForRC(rc, db);
        }

        return directory;
    }

    /// <summary>How many chunks <paramref name="count"/> entries make: one up to <see cref="Max"/>, else chunks of about <see cref="Target"/>.</summary>
    private static int Pieces(int count) => count == 0 ? 0 : count <= Max ? 1 : (count + Target - 1) / Target;

    /// <summary>
    /// A save's new entries in segments (the writer's, as they came: no copy into one array of them all), read by
    /// reference: the chunk writer reads each several times, and through a list's indexer each read copied the 96-byte
    /// entry (~140 perf samples at 242k entries, more than SQLite's own work).
    /// </summary>
    internal readonly struct Entries(HashCacheEntry[][] segments, int segmentSize, int count)
    {
        public int Count => count;

        public ref readonly HashCacheEntry this[int index] => ref segments[index / segmentSize][index % segmentSize];
    }

    /// <summary>XXH3 of a chunk's count and entries, never 0.</summary>
    private static long Checksum(ReadOnlySpan<byte> bytes) => (long)(XxHash3.HashToUInt64(bytes) | 1);
}
