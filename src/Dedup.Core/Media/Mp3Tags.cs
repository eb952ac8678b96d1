namespace Dedup.Core.Media;

/// <summary>Finds where an MP3's audio ends by peeling tags off the end of the file.</summary>
internal static class Mp3Tags
{
    private const int Id3V1Size = 128;
    private const int ApeFooterSize = 32;
    private const int Lyrics3V1MaxSize = 5100 + 11 + 9;

    /// <summary>
    /// Repeatedly removes, from the end, an ID3v1 tag, a Lyrics3 v2 or v1 tag, an APEv2 tag and an ID3v2 tag
    /// with footer, until none is left; returns the end of the audio (never below <paramref name="start"/>).
    /// </summary>
    public static long FindAudioEnd(MediaReader reader, long start)
    {
        var end = reader.Length;
        for (var n = 0; n < 32 && reader.Step(); n++)
        {
            var next = PeelOne(reader, start, end);
            if (next == end)
            {
                break;
            }

            end = next;
        }

        return end;
    }

    private static long PeelOne(MediaReader reader, long start, long end)
    {
        Span<byte> buffer = stackalloc byte[ApeFooterSize];
        var available = end - start;

        // ID3v1: the last 128 bytes begin with "TAG".
        if (available >= Id3V1Size && reader.Matches(end - Id3V1Size, "TAG"u8))
        {
            return end - Id3V1Size;
        }

        // ID3v2 appended at the end: a 10-byte "3DI" footer.
        if (available >= 20 && reader.TryRead(end - 10, buffer[..10]) && Id3.TryGetV2FooterSize(buffer[..10], out var id3Size)
            && id3Size <= available && reader.Matches(end - id3Size, "ID3"u8))
        {
            return end - id3Size;
        }

        // APEv2: a 32-byte footer "APETAGEX", version, size (items + footer), count, flags (bit 31: has header).
        if (available >= ApeFooterSize && reader.TryRead(end - ApeFooterSize, buffer) && buffer[..8].SequenceEqual("APETAGEX"u8))
        {
            var size = (long)BitConverter.ToUInt32(buffer[12..16]);
            var flags = BitConverter.ToUInt32(buffer[20..24]);
            if (!BitConverter.IsLittleEndian)
            {
                size = System.Buffers.Binary.BinaryPrimitives.ReverseEndianness((uint)size);
                flags = System.Buffers.Binary.BinaryPrimitives.ReverseEndianness(flags);
            }

            size += (flags & 0x8000_0000) != 0 ? ApeFooterSize : 0;
            if (size >= ApeFooterSize && size <= available)
            {
                return end - size;
            }
        }

        // Lyrics3 v2: "LYRICSBEGIN" … six-digit size (which includes LYRICSBEGIN) + "LYRICS200".
        if (available >= 15 + 11 && reader.Matches(end - 9, "LYRICS200"u8) && reader.TryRead(end - 15, buffer[..6])
            && TryParseDigits(buffer[..6], out var lyricsSize) && lyricsSize + 15 <= available
            && reader.Matches(end - 15 - lyricsSize, "LYRICSBEGIN"u8))
        {
            return end - 15 - lyricsSize;
        }

        // Lyrics3 v1: "LYRICSBEGIN" … "LYRICSEND", at most 5100 bytes of lyrics: the one bounded search here.
        if (available >= 20 && reader.Matches(end - 9, "LYRICSEND"u8))
        {
            var lowest = Math.Max(start, end - Lyrics3V1MaxSize);
            for (var at = end - 20; at >= lowest && reader.Step(); at--)
            {
                if (reader.Matches(at, "LYRICSBEGIN"u8))
                {
                    return at;
                }
            }
        }

        return end;
    }

    private static bool TryParseDigits(ReadOnlySpan<byte> digits, out long value)
    {
        value = 0;
        foreach (var d in digits)
        {
            if (d is < (byte)'0' or > (byte)'9')
            {
                return false;
            }

            value = (value * 10) + (d - '0');
        }

        return true;
    }
}
