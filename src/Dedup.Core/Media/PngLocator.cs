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
    public MediaFormat Format => MediaFormat.Png;

    public bool IsMatch(ReadOnlySpan<byte> header) => header.StartsWith(PngChunks.Signature);

    public bool TryLocate(MediaReader reader, List<ByteRange> ranges)
    {
        long position = PngChunks.Signature.Length;
        var chunks = default(PngChunks);
        Span<byte> header = stackalloc byte[PngChunks.HeaderSize];
        while (reader.Step())
        {
            if (!reader.TryRead(position, header))
            {
                return false;
            }

            switch (chunks.Visit(header, position, reader.Length, reader.Options.MaxRanges, ranges, out position))
            {
                case PngChunkStep.End:
                    return true;
                case PngChunkStep.Invalid:
                    return false;
            }
        }

        return false;
    }
}
