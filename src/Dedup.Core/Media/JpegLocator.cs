namespace Dedup.Core.Media;

/// <summary>
/// JPEG: keeps every marker segment except APP0–APP15 and COM (so SOF, DQT, DHT, DRI, DAC, DNL, SOS headers
/// and any other coding segment), plus each scan's entropy-coded data up to the next marker, and stops at
/// EOI. EXIF (with its embedded thumbnail JPEG), XMP, ICC, IPTC, comments and bytes after EOI are left out.
/// Segments before the first scan are walked by their length fields; from the first SOS the payload runs
/// to the last EOI in the file, found from the end, so the entropy-coded data is never scanned.
/// </summary>
internal sealed class JpegLocator : IMediaLocator
{
    public MediaFormat Format => MediaFormat.Jpeg;

    public bool IsMatch(ReadOnlySpan<byte> header) => header.Length >= 3 && header[0] == 0xFF && header[1] == 0xD8 && header[2] == 0xFF;

    public bool TryLocate(MediaReader reader, List<ByteRange> ranges)
    {
        long position = 2;
        var sawFrame = false;
        while (reader.Step())
        {
            // A marker is 0xFF, optional 0xFF fill bytes, then the marker code.
            if (!reader.TryReadByte(position, out var b) || b != 0xFF)
            {
                return false;
            }

            var fill = 0;
            byte code;
            do
            {
                position++;
                if (!reader.TryReadByte(position, out code) || ++fill > 4096)
                {
                    return false;
                }
            }
            while (code == 0xFF);

            var markerStart = position - 1;
            position++;
            if (code == 0xD9)
            {
                return false; // EOI before any scan: no image.
            }

            if (code is 0x00 or 0xD8 || code is >= 0xD0 and <= 0xD7)
            {
                return false; // Stuffing, a second SOI or RST outside entropy-coded data.
            }

            if (code == 0x01)
            {
                continue; // TEM: no length, nothing to keep.
            }

            if (!reader.TryReadUInt16BE(position, out var length) || length < 2 || !reader.Contains(position, length))
            {
                return false;
            }

            var segmentEnd = position + length;
            var isMetadata = code is >= 0xE0 and <= 0xEF or 0xFE;
            if (!isMetadata && !reader.TryAddRange(ranges, markerStart, segmentEnd - markerStart))
            {
                return false;
            }

            if (code is >= 0xC0 and <= 0xCF and not 0xC4 and not 0xC8 and not 0xCC or 0xF7)
            {
                sawFrame = true;
            }

            position = segmentEnd;
            if (code == 0xDA)
            {
                if (!sawFrame)
                {
                    return false;
                }

                // The rest of the image (this scan, any further scans with their tables) runs to the last
                // EOI. Inside entropy-coded data 0xFF is always followed by 0x00 or RSTn, so the last FF D9
                // is the image's EOI unless a trailer after it holds one; finding it from the end avoids
                // scanning the whole entropy-coded data (a trailer with FF D9 only makes files differ).
                var eoi = FindLastEoi(reader, position);
                if (eoi < 0)
                {
                    return false;
                }

                return reader.TryAddRange(ranges, position, eoi - position);
            }
        }

        return false;
    }

    /// <summary>The offset of the last FF D9 at or after <paramref name="start"/>, searching back from the end; -1 if none.</summary>
    private static long FindLastEoi(MediaReader reader, long start)
    {
        const int Block = 64 * 1024;
        var buffer = reader.Options.Buffers.Rent(Block);
        try
        {
            var end = reader.Length;
            while (end - start >= 2 && reader.Step())
            {
                var from = Math.Max(start, end - Block);
                var span = buffer.AsSpan(0, (int)(end - from));
                if (!reader.TryRead(from, span))
                {
                    return -1;
                }

                for (var i = span.LastIndexOf((byte)0xD9); i >= 0; i = span[..i].LastIndexOf((byte)0xD9))
                {
                    if (i > 0 ? span[i - 1] == 0xFF : from > start && reader.TryReadByte(from - 1, out var before) && before == 0xFF)
                    {
                        return from + i - 1;
                    }
                }

                end = from;
            }

            return -1;
        }
        finally
        {
            reader.Options.Buffers.Return(buffer);
        }
    }
}
