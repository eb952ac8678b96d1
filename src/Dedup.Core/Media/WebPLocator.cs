namespace Dedup.Core.Media;

/// <summary>
/// RIFF WebP: keeps the VP8 (lossy), VP8L (lossless), ALPH (alpha), ANIM (animation parameters) and ANMF
/// (frame) chunks — id, size and data. Leaves out VP8X entirely (its feature flags change when metadata is
/// added, and a simple file gains a VP8X when a tool adds EXIF/XMP; its canvas size repeats the image
/// size), ICCP, EXIF, XMP and unknown chunks.
/// </summary>
internal sealed class WebPLocator : IMediaLocator
{
    public MediaFormat Format => MediaFormat.WebP;

    public bool IsMatch(ReadOnlySpan<byte> header) => RiffChunks.IsRiff(header, "WEBP"u8);

    public bool TryLocate(MediaReader reader, List<ByteRange> ranges)
    {
        var images = 0;
        var first = true;
        var chunks = new RiffChunks(reader);
        Span<byte> id = stackalloc byte[4];
        while (chunks.TryNext(id, out var offset, out var length))
        {
            var wasFirst = first;
            first = false;
            if (id.SequenceEqual("VP8X"u8))
            {
                if (!wasFirst || length < 10)
                {
                    return false;
                }
            }
            else if (id.SequenceEqual("VP8 "u8) || id.SequenceEqual("VP8L"u8) || id.SequenceEqual("ANMF"u8))
            {
                images++;
                if (!reader.TryAddRange(ranges, offset - 8, length + 8))
                {
                    return false;
                }
            }
            else if ((id.SequenceEqual("ALPH"u8) || id.SequenceEqual("ANIM"u8)) && !reader.TryAddRange(ranges, offset - 8, length + 8))
            {
                return false;
            }
        }

        return chunks.Completed && images > 0;
    }
}
