using System.Buffers.Binary;
using SQLitePCL;

namespace Dedup.Core.Caching.Sqlite;

/// <summary>The chunk writer of <see cref="SqliteChunks"/>: entries in key order in, checksummed chunk rows out.</summary>
internal static partial class SqliteChunks
{
    /// <summary>Cuts merged entries into chunks and inserts them, one reused buffer.</summary>
    private sealed class ChunkWriter(sqlite3 db, sqlite3_stmt insert, Entries upserts)
    {
        private byte[] _buffer = [];

        public void Write(ReadOnlySpan<Source> sources, byte[] old, ref SqliteIdMap ids)
        {
            var pieces = Pieces(sources.Length);
            var start = 0;
            for (var p = 0; p < pieces; p++)
            {
                var end = (int)((long)sources.Length * (p + 1) / pieces);
                WriteChunk(sources[start..end], old, ref ids);
                start = end;
            }
        }

        public void WriteChunk(ReadOnlySpan<Source> sources, byte[] old, ref SqliteIdMap ids)
        {
            var size = HeaderSize + ChecksumSize;
            foreach (var source in sources)
            {
                size += source.Upsert >= 0 ? FixedSize + (upserts[source.Upsert].Digest.IsEmpty ? 0 : DigestSize) : source.Length; // by reference: no copy
            }

            if (_buffer.Length < size)
            {
                _buffer = new byte[Math.Max(size, _buffer.Length * 2)];
            }

            var span = _buffer.AsSpan(0, size);
            BinaryPrimitives.WriteInt32LittleEndian(span, sources.Length);
            var at = HeaderSize;
            foreach (var source in sources)
            {
                if (source.Upsert < 0)
                {
                    old.AsSpan(source.Offset, source.Length).CopyTo(span[at..]);
                    at += source.Length;
                }
                else
                {
                    at += Encode(upserts[source.Upsert], span[at..], ref ids);
                }
            }

            BinaryPrimitives.WriteInt64LittleEndian(span[at..], Checksum(span[..at]));
            raw.sqlite3_bind_int64(insert, 1, sources[0].Key.Device);
            raw.sqlite3_bind_int64(insert, 2, sources[0].Key.Inode);
            raw.sqlite3_bind_int64(insert, 3, sources[^1].Key.Device);
            raw.sqlite3_bind_int64(insert, 4, sources[^1].Key.Inode);
            raw.sqlite3_bind_int64(insert, 5, sources.Length);
            raw.sqlite3_bind_blob(insert, 6, span);
            SqliteStore.Step(db, insert);
        }

        private static int Encode(in HashCacheEntry entry, Span<byte> buffer, ref SqliteIdMap ids)
        {
            var stamp = entry.Stamp;
            var digest = entry.Digest.Span;
            if (digest.Length is not (0 or DigestSize))
            {
                throw new ArgumentException($"a digest is 32 bytes, not {digest.Length}", nameof(entry));
            }

            BinaryPrimitives.WriteInt64LittleEndian(buffer, (long)stamp.Identity.Device);
            BinaryPrimitives.WriteInt64LittleEndian(buffer[8..], (long)stamp.Identity.FileId);
            BinaryPrimitives.WriteInt64LittleEndian(buffer[16..], stamp.Length);
            BinaryPrimitives.WriteInt64LittleEndian(buffer[24..], stamp.LastWriteTimeNs);
            BinaryPrimitives.WriteInt64LittleEndian(buffer[32..], stamp.ChangeTimeNs);
            BinaryPrimitives.WriteInt64LittleEndian(buffer[40..], (long)entry.Probe);
            BinaryPrimitives.WriteInt64LittleEndian(buffer[48..], ids.Map(entry.Partition));
            BinaryPrimitives.WriteInt64LittleEndian(buffer[56..], ids.Map(entry.Class));
            BinaryPrimitives.WriteInt64LittleEndian(buffer[64..], entry.Roots);
            // A digest's algorithm is never 0 in a row that has one: the enum's values start at 0, so store it plus one, as an
            // unsigned 32-bit value (a value of -1 plus one was 0: "no digest", its digest bytes misread as the next entry).
            BinaryPrimitives.WriteInt64LittleEndian(buffer[72..], digest.IsEmpty ? 0 : (long)(uint)entry.DigestAlgorithm + 1); // never 0, -1 included
            digest.CopyTo(buffer[FixedSize..]);
            return FixedSize + digest.Length;
        }
    }
}
