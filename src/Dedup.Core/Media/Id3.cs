namespace Dedup.Core.Media;

/// <summary>ID3v2 header/footer arithmetic shared by the MP3 and FLAC locators.</summary>
internal static class Id3
{
    public const int HeaderSize = 10;

    /// <summary>
    /// When <paramref name="header"/> starts with an ID3v2 header ("ID3", version, flags, synchsafe size),
    /// the tag's full size: 10 + size, + 10 more when the footer flag (0x10) is set.
    /// </summary>
    public static bool TryGetV2Size(ReadOnlySpan<byte> header, out long size) => TryGetSize(header, "ID3"u8, out size);

    /// <summary>Same for an ID3v2 footer ("3DI"), which ends a tag appended at the end of a file.</summary>
    public static bool TryGetV2FooterSize(ReadOnlySpan<byte> footer, out long size) => TryGetSize(footer, "3DI"u8, out size);

    /// <summary>Skips consecutive ID3v2 tags at <paramref name="offset"/>; returns the offset after them.</summary>
    public static long SkipV2Tags(MediaReader reader, long offset)
    {
        Span<byte> header = stackalloc byte[HeaderSize];
        for (var n = 0; n < 16 && reader.TryRead(offset, header) && TryGetV2Size(header, out var size); n++)
        {
            offset += size;
        }

        return offset;
    }

    private static bool TryGetSize(ReadOnlySpan<byte> header, ReadOnlySpan<byte> magic, out long size)
    {
        size = 0;
        if (header.Length < HeaderSize || !header[..3].SequenceEqual(magic) || header[3] == 0xFF || header[4] == 0xFF)
        {
            return false;
        }

        if ((header[6] | header[7] | header[8] | header[9]) >= 0x80)
        {
            return false;
        }

        size = HeaderSize + ((long)header[6] << 21 | (long)header[7] << 14 | (long)header[8] << 7 | header[9]);
        if ((header[5] & 0x10) != 0)
        {
            size += HeaderSize;
        }

        return true;
    }
}
