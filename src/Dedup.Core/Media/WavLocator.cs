namespace Dedup.Core.Media;

/// <summary>
/// RIFF WAVE: keeps the `fmt ` chunk (id, size and data) and the `data` chunk's sample bytes (without the
/// pad byte). Leaves out LIST (INFO, adtl), `id3 `/`ID3 `, bext, iXML, `_PMX` (XMP), JUNK, PAD and other
/// filler. Other chunks (fact, cue, smpl, …) are kept, so files differing there are not merged.
/// </summary>
internal sealed class WavLocator : IMediaLocator
{
    public MediaFormat Format => MediaFormat.Wav;

    public bool IsMatch(ReadOnlySpan<byte> header) => RiffChunks.IsRiff(header, "WAVE"u8);

    public bool TryLocate(MediaReader reader, List<ByteRange> ranges)
    {
        var format = false;
        var data = false;
        var chunks = new RiffChunks(reader);
        Span<byte> id = stackalloc byte[4];
        while (chunks.TryNext(id, out var offset, out var length))
        {
            bool added;
            if (id.SequenceEqual("fmt "u8))
            {
                if (format || length < 16)
                {
                    return false;
                }

                format = true;
                added = reader.TryAddRange(ranges, offset - 8, length + 8);
            }
            else if (id.SequenceEqual("data"u8))
            {
                if (data || !format)
                {
                    return false;
                }

                data = true;
                added = reader.TryAddRange(ranges, offset, length);
            }
            else
            {
                added = IsMetadata(id) || reader.TryAddRange(ranges, offset - 8, length + 8);
            }

            if (!added)
            {
                return false;
            }
        }

        return chunks.Completed && format && data;
    }

    private static bool IsMetadata(ReadOnlySpan<byte> id)
        => id.SequenceEqual("LIST"u8) || id.SequenceEqual("id3 "u8) || id.SequenceEqual("ID3 "u8)
           || id.SequenceEqual("bext"u8) || id.SequenceEqual("iXML"u8) || id.SequenceEqual("_PMX"u8)
           || id.SequenceEqual("JUNK"u8) || id.SequenceEqual("junk"u8) || id.SequenceEqual("PAD "u8)
           || id.SequenceEqual("FLLR"u8) || id.SequenceEqual("DISP"u8) || id.SequenceEqual("PEAK"u8);
}
