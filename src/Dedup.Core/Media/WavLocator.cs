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
        var format = -1;
        var data = -1;
        var ok = RiffChunks.Walk(reader, (id, offset, length) =>
        {
            if (id.SequenceEqual("fmt "u8))
            {
                if (format >= 0 || length < 16)
                {
                    return false;
                }

                format = ranges.Count;
                ranges.Add(new ByteRange(offset - 8, length + 8));
            }
            else if (id.SequenceEqual("data"u8))
            {
                if (data >= 0 || format < 0)
                {
                    return false;
                }

                data = ranges.Count;
                ranges.Add(new ByteRange(offset, length));
            }
            else if (!IsMetadata(id))
            {
                ranges.Add(new ByteRange(offset - 8, length + 8));
            }

            return true;
        });
        return ok && format >= 0 && data >= 0;
    }

    private static bool IsMetadata(ReadOnlySpan<byte> id)
        => id.SequenceEqual("LIST"u8) || id.SequenceEqual("id3 "u8) || id.SequenceEqual("ID3 "u8)
           || id.SequenceEqual("bext"u8) || id.SequenceEqual("iXML"u8) || id.SequenceEqual("_PMX"u8)
           || id.SequenceEqual("JUNK"u8) || id.SequenceEqual("junk"u8) || id.SequenceEqual("PAD "u8)
           || id.SequenceEqual("FLLR"u8) || id.SequenceEqual("DISP"u8) || id.SequenceEqual("PEAK"u8);
}
