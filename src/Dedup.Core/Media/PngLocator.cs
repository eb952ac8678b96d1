namespace Dedup.Core.Media;

/// <summary>
/// PNG (and APNG): keeps IHDR, PLTE and tRNS (type and data), the data of every IDAT chunk concatenated (so
/// re-chunking the same zlib stream does not matter), APNG's acTL/fcTL/fdAT, and any unknown critical
/// chunk; stops at IEND. Leaves out text (tEXt, zTXt, iTXt), tIME, eXIf, pHYs and every other ancillary
/// chunk, CRCs, and bytes after IEND.
/// Colour chunks (gAMA, cHRM, sRGB, iCCP, sBIT, cICP, mDCv, cLLi) are left out too, by choice: they are
/// colour-management metadata that editors and optimisers add or strip without touching the pixels, and
/// ExifTool's ImageDataHash (IDAT only) ignores them as well. Two files that differ only in colour profile
/// are therefore reported as the same image.
/// </summary>
internal sealed class PngLocator : IMediaLocator
{
    private static readonly byte[] Signature = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A];

    public MediaFormat Format => MediaFormat.Png;

    public bool IsMatch(ReadOnlySpan<byte> header) => header.StartsWith(Signature);

    public bool TryLocate(MediaReader reader, List<ByteRange> ranges)
    {
        long position = Signature.Length;
        var first = true;
        var sawData = false;
        Span<byte> type = stackalloc byte[4];
        while (reader.Step())
        {
            if (!reader.TryReadUInt32BE(position, out var length) || length > int.MaxValue || !reader.TryRead(position + 4, type))
            {
                return false;
            }

            if (!IsChunkType(type) || !reader.Contains(position + 8, length + 4L))
            {
                return false;
            }

            var data = position + 8;
            if (first && !type.SequenceEqual("IHDR"u8))
            {
                return false;
            }

            first = false;
            if (type.SequenceEqual("IEND"u8))
            {
                return sawData;
            }

            if (type.SequenceEqual("IDAT"u8))
            {
                sawData = true;
                if (!reader.TryAddRange(ranges, data, length))
                {
                    return false;
                }
            }
            else if (IsKept(type))
            {
                sawData |= type.SequenceEqual("fdAT"u8); // APNG frame data (sequence number + data)
                if (!reader.TryAddRange(ranges, position + 4, length + 4L)) // type + data, not the CRC
                {
                    return false;
                }
            }

            position = data + length + 4;
        }

        return false;
    }

    private static bool IsKept(ReadOnlySpan<byte> type)
        => (type[0] & 0x20) == 0 // critical: IHDR, PLTE and any unknown critical chunk
           || type.SequenceEqual("tRNS"u8) || type.SequenceEqual("acTL"u8) || type.SequenceEqual("fcTL"u8) || type.SequenceEqual("fdAT"u8);

    private static bool IsChunkType(ReadOnlySpan<byte> type)
    {
        foreach (var c in type)
        {
            if (c is not (>= (byte)'A' and <= (byte)'Z' or >= (byte)'a' and <= (byte)'z'))
            {
                return false;
            }
        }

        return true;
    }
}
