namespace Dedup.Core.Media;

/// <summary>
/// Walks the chunks of a RIFF file ("RIFF", 32-bit little-endian size, form type, then chunks of a
/// four-character id, a 32-bit little-endian size and the data, padded to an even length — the pad byte is
/// not counted in the size). The walk ends at the RIFF size when it is plausible, else at the end of file;
/// bytes after the RIFF form (e.g. an appended ID3 tag) are not part of it.
/// </summary>
internal static class RiffChunks
{
    public delegate bool ChunkHandler(ReadOnlySpan<byte> id, long dataOffset, long dataLength);

    public static bool IsRiff(ReadOnlySpan<byte> header, ReadOnlySpan<byte> form)
        => header.Length >= 12 && header[..4].SequenceEqual("RIFF"u8) && header[8..12].SequenceEqual(form);

    /// <summary>Calls <paramref name="handler"/> for each chunk in order; stops (false) when it returns false or the structure is broken.</summary>
    public static bool Walk(MediaReader reader, ChunkHandler handler)
    {
        if (!reader.TryReadUInt32LE(4, out var riffSize) || riffSize < 4)
        {
            return false;
        }

        var end = 8 + (long)riffSize;
        if (end > reader.Length)
        {
            end = reader.Length;
        }

        long position = 12;
        Span<byte> id = stackalloc byte[4];
        while (position < end)
        {
            if (!reader.Step())
            {
                return false;
            }

            if (end - position < 8)
            {
                // A few stray bytes at the end of the form: tolerated only when they are zero padding.
                return end - position == 1 && reader.TryReadByte(position, out var pad) && pad == 0;
            }

            if (!reader.TryRead(position, id) || !reader.TryReadUInt32LE(position + 4, out var size) || !IsChunkId(id))
            {
                return false;
            }

            var data = position + 8;
            if (size > end - data)
            {
                return false;
            }

            if (!handler(id, data, size))
            {
                return false;
            }

            position = data + size + (size & 1);
        }

        return true;
    }

    private static bool IsChunkId(ReadOnlySpan<byte> id)
    {
        foreach (var c in id)
        {
            if (c is < 0x20 or > 0x7E)
            {
                return false;
            }
        }

        return true;
    }
}
