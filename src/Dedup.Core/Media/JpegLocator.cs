namespace Dedup.Core.Media;

/// <summary>
/// JPEG: keeps every marker segment except APP0–APP15 and COM (so SOF, DQT, DHT, DRI, DAC, DNL, SOS headers
/// and any other coding segment), plus each scan's entropy-coded data up to the next marker, and stops at
/// EOI. EXIF (with its embedded thumbnail JPEG), XMP, ICC, IPTC, comments and bytes after EOI are left out.
/// Segments are walked by their length fields; bytes are scanned for a marker only inside entropy-coded
/// data, where 0xFF00 (a stuffed 0xFF) and RST0–RST7 belong to the data.
/// </summary>
internal sealed class JpegLocator : IMediaLocator
{
    public MediaFormat Format => MediaFormat.Jpeg;

    public bool IsMatch(ReadOnlySpan<byte> header) => header.Length >= 3 && header[0] == 0xFF && header[1] == 0xD8 && header[2] == 0xFF;

    public bool TryLocate(MediaReader reader, List<ByteRange> ranges)
    {
        long position = 2;
        bool sawFrame = false, sawScan = false;
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
                return sawFrame && sawScan; // EOI: anything after it is ignored.
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
            if (!isMetadata)
            {
                ranges.Add(new ByteRange(markerStart, segmentEnd - markerStart));
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

                sawScan = true;
                var next = FindMarkerAfterScan(reader, position);
                if (next < 0)
                {
                    return false;
                }

                ranges.Add(new ByteRange(position, next - position));
                position = next;
            }
        }

        return false;
    }

    /// <summary>The offset of the first marker that ends entropy-coded data starting at <paramref name="start"/>, or -1.</summary>
    private static long FindMarkerAfterScan(MediaReader reader, long start)
    {
        var position = start;
        while (reader.Step())
        {
            var ff = reader.IndexOfFF(position, reader.Length);
            if (ff < 0)
            {
                return -1;
            }

            // Skip fill 0xFF bytes; what follows decides.
            var probe = ff + 1;
            byte code;
            while (true)
            {
                if (!reader.TryReadByte(probe, out code))
                {
                    return -1;
                }

                if (code != 0xFF)
                {
                    break;
                }

                probe++;
                if (!reader.Step())
                {
                    return -1;
                }
            }

            if (code == 0x00 || code is >= 0xD0 and <= 0xD7)
            {
                position = probe + 1; // Stuffed 0xFF or a restart marker: still scan data.
                continue;
            }

            return ff;
        }

        return -1;
    }
}
