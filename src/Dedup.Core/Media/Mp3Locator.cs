namespace Dedup.Core.Media;

/// <summary>
/// MP3 (MPEG-1/2/2.5 audio, layers I–III): strips tags at both ends — ID3v2 at the start (repeated), and
/// from the end, in any order, ID3v1 ("TAG", 128 bytes), Lyrics3 v1/v2, APEv2 ("APETAGEX" footer, with
/// its header when flagged) and an appended ID3v2 ("3DI" footer) — then keeps the MPEG audio frames,
/// found by walking header-computed frame lengths: the first frame is the first offset (within 64 KiB
/// after the leading tags, skipping padding or junk) that starts a run of <see cref="MinRun"/> valid,
/// consistent frames (or a shorter run that ends exactly at the tags). By default the Xing/Info/VBRI
/// header frame is left out (<see cref="MediaOptions.SkipMp3InfoFrame"/>). The payload is one range from
/// the first audio frame to the trailing tags: nothing in between is ignored, so a truncated last frame
/// or junk between frames still counts.
/// </summary>
internal sealed class Mp3Locator : IMediaLocator
{
    public const int MinRun = 4;
    private const int MaxSyncSearch = 64 * 1024;

    private static readonly int[] Mpeg1Layer1 = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448];
    private static readonly int[] Mpeg1Layer2 = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384];
    private static readonly int[] Mpeg1Layer3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
    private static readonly int[] Mpeg2Layer1 = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256];
    private static readonly int[] Mpeg2Layer23 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];

    public MediaFormat Format => MediaFormat.Mp3;

    public bool IsMatch(ReadOnlySpan<byte> header) => header.Length >= 4 && TryParse(header, out _);

    public bool TryLocate(MediaReader reader, List<ByteRange> ranges)
    {
        var start = Id3.SkipV2Tags(reader, 0);
        var end = Mp3Tags.FindAudioEnd(reader, start);
        if (end <= start)
        {
            return false;
        }

        var first = FindFirstFrame(reader, start, end);
        if (first < 0)
        {
            return false;
        }

        var payload = first;
        Span<byte> header = stackalloc byte[4];
        if (reader.Options.SkipMp3InfoFrame && reader.TryRead(first, header) && TryParse(header, out var frame)
            && IsInfoFrame(reader, first, frame))
        {
            payload += frame.Length;
        }

        if (payload >= end || reader.Exhausted)
        {
            return false;
        }

        // One range: from the first audio frame to the tags. Walking every frame would not change it, as
        // bytes that do not parse as frames (a truncated last frame, junk) are kept as payload anyway.
        return reader.TryAddRange(ranges, payload, end - payload);
    }

    /// <summary>The first offset in [start, start + 64 KiB) where a run of valid consistent frames begins, or -1.</summary>
    private static long FindFirstFrame(MediaReader reader, long start, long end)
    {
        Span<byte> header = stackalloc byte[4];
        var limit = Math.Min(end - 4, start + MaxSyncSearch);
        for (var candidate = start; candidate <= limit; candidate++)
        {
            if (!reader.Step())
            {
                return -1;
            }

            if (!reader.TryRead(candidate, header) || header[0] != 0xFF || !TryParse(header, out var frame))
            {
                continue;
            }

            var position = candidate + frame.Length;
            var run = 1;
            while (run < MinRun && position < end && reader.Step())
            {
                if (end - position < 4 || !reader.TryRead(position, header) || !TryParse(header, out var next) || !next.IsConsistentWith(frame))
                {
                    break;
                }

                position += next.Length;
                run++;
            }

            if (position <= end && (run >= MinRun || position == end))
            {
                return candidate;
            }
        }

        return -1;
    }

    /// <summary>Whether the frame at <paramref name="offset"/> carries a Xing/Info tag after its side information, or a VBRI tag at 36.</summary>
    private static bool IsInfoFrame(MediaReader reader, long offset, in FrameHeader frame)
    {
        var sideInfo = frame.Version == 3 ? (frame.Mono ? 17 : 32) : (frame.Mono ? 9 : 17);
        var xing = offset + 4 + (frame.Protected ? 2 : 0) + sideInfo;
        if (frame.Layer == 3 && xing + 4 <= offset + frame.Length && (reader.Matches(xing, "Xing"u8) || reader.Matches(xing, "Info"u8)))
        {
            return true;
        }

        return frame.Layer == 3 && 40 <= frame.Length && reader.Matches(offset + 36, "VBRI"u8);
    }

    internal static bool TryParse(ReadOnlySpan<byte> h, out FrameHeader frame)
    {
        frame = default;
        if (h[0] != 0xFF || (h[1] & 0xE0) != 0xE0)
        {
            return false;
        }

        var version = (h[1] >> 3) & 3; // 0: MPEG-2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
        var layerBits = (h[1] >> 1) & 3; // 1: III, 2: II, 3: I
        var bitrateIndex = h[2] >> 4;
        var rateIndex = (h[2] >> 2) & 3;
        if (version == 1 || layerBits == 0 || bitrateIndex is 0 or 15 || rateIndex == 3 || (h[3] & 3) == 2)
        {
            return false;
        }

        var layer = 4 - layerBits;
        var table = version == 3
            ? layer switch { 1 => Mpeg1Layer1, 2 => Mpeg1Layer2, _ => Mpeg1Layer3 }
            : layer == 1 ? Mpeg2Layer1 : Mpeg2Layer23;
        var bitrate = table[bitrateIndex] * 1000;
        ReadOnlySpan<int> rates = [44100, 48000, 32000];
        var sampleRate = rates[rateIndex] >> (version == 3 ? 0 : version == 2 ? 1 : 2);
        var padding = (h[2] >> 1) & 1;
        var length = layer switch
        {
            1 => ((12 * bitrate / sampleRate) + padding) * 4,
            2 => (144 * bitrate / sampleRate) + padding,
            _ => ((version == 3 ? 144 : 72) * bitrate / sampleRate) + padding,
        };
        frame = new FrameHeader(version, layer, sampleRate, (h[3] >> 6) == 3, (h[1] & 1) == 0, length);
        return length >= 4;
    }

    internal readonly record struct FrameHeader(int Version, int Layer, int SampleRate, bool Mono, bool Protected, int Length)
    {
        public bool IsConsistentWith(in FrameHeader other) => Version == other.Version && Layer == other.Layer && SampleRate == other.SampleRate;
    }
}
