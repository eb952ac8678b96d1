namespace Dedup.Core.Media;

/// <summary>
/// Native FLAC: keeps the STREAMINFO body (sample rate, channels, bit depth, total samples, MD5 of the
/// audio) and everything after the last metadata block (the audio frames). Leaves out stray ID3v2 tags
/// before "fLaC" and the PADDING, APPLICATION, SEEKTABLE, VORBIS_COMMENT, CUESHEET and PICTURE blocks.
/// The audio must start with a frame sync code (14 bits 0x3FFE).
/// </summary>
internal sealed class FlacLocator : IMediaLocator
{
    private const int MaxBlocks = 1 << 16;

    public MediaFormat Format => MediaFormat.Flac;

    public bool IsMatch(ReadOnlySpan<byte> header) => header.StartsWith("fLaC"u8);

    public bool TryLocate(MediaReader reader, List<ByteRange> ranges)
    {
        var position = Id3.SkipV2Tags(reader, 0);
        if (!reader.Matches(position, "fLaC"u8))
        {
            return false;
        }

        position += 4;
        for (var block = 0; block < MaxBlocks && reader.Step(); block++)
        {
            if (!reader.TryReadUInt32BE(position, out var header))
            {
                return false;
            }

            var last = (header & 0x8000_0000) != 0;
            var type = (header >> 24) & 0x7F;
            var length = header & 0xFF_FFFF;
            var body = position + 4;
            if (type == 127 || !reader.Contains(body, length) || (block == 0) != (type == 0))
            {
                return false; // invalid type, truncated, or STREAMINFO not first / repeated
            }

            if (type == 0)
            {
                if (length != 34)
                {
                    return false;
                }

                if (!reader.TryAddRange(ranges, body, length))
                {
                    return false;
                }
            }

            position = body + length;
            if (last)
            {
                if (!reader.TryReadUInt16BE(position, out var sync) || (sync & 0xFFFE) != 0xFFF8)
                {
                    return false;
                }

                return reader.TryAddRange(ranges, position, reader.Length - position);
            }
        }

        return false;
    }
}
