namespace Dedup.Core.Media;

/// <summary>
/// ISO base media / QuickTime (MP4, M4A, MOV): for each audio (`soun`) and video (`vide`) track, in the
/// order of the `trak` boxes, keeps the `stsd` box (codec configuration) and then the track's sample bytes,
/// chunk by chunk in sample order, located through `stco`/`co64` (chunk offsets), `stsc` (samples per
/// chunk) and `stsz` (sample sizes). Offsets and interleaving never enter the payload, so the same streams
/// stored with moov first (faststart) or last, or re-interleaved, yield the same bytes; ftyp, free/skip,
/// udta, meta/ilst, uuid (XMP) and other tracks (timecode, text) are ignored. Fragmented files (moof/mvex),
/// compact sizes (stz2) and a missing or repeated moov are not supported: whole-file comparison.
/// </summary>
internal sealed class Mp4Locator : IMediaLocator
{
    private const uint Moov = 0x6D6F6F76, Moof = 0x6D6F6F66, Trak = 0x7472616B, Mvex = 0x6D766578, Mdia = 0x6D646961;
    private const uint Hdlr = 0x68646C72, Minf = 0x6D696E66, Stbl = 0x7374626C, Stsd = 0x73747364, Stsz = 0x7374737A;
    private const uint Stz2 = 0x73747A32, Stsc = 0x73747363, Stco = 0x7374636F, Co64 = 0x636F3634;
    private const uint Vide = 0x76696465, Soun = 0x736F756E;

    private static readonly uint[] FirstBoxTypes =
    [
        0x66747970 /* ftyp */, Moov, 0x6D646174 /* mdat */, 0x66726565 /* free */, 0x736B6970 /* skip */,
        0x77696465 /* wide */, 0x706E6F74 /* pnot */,
    ];

    public MediaFormat Format => MediaFormat.Mp4;

    public bool IsMatch(ReadOnlySpan<byte> header)
    {
        if (header.Length < 12)
        {
            return false;
        }

        var size = System.Buffers.Binary.BinaryPrimitives.ReadUInt32BigEndian(header);
        var type = System.Buffers.Binary.BinaryPrimitives.ReadUInt32BigEndian(header[4..]);
        return Array.IndexOf(FirstBoxTypes, type) >= 0 && (size is 0 or 1 || size >= 8);
    }

    public bool TryLocate(MediaReader reader, List<ByteRange> ranges)
    {
        long moovBody = -1, moovEnd = -1, position = 0;
        while (position < reader.Length)
        {
            if (!reader.Step() || !TryReadBox(reader, position, reader.Length, out var type, out var body, out var end))
            {
                return false;
            }

            if (type == Moof || (type == Moov && moovBody >= 0))
            {
                return false;
            }

            if (type == Moov)
            {
                (moovBody, moovEnd) = (body, end);
            }

            position = end;
        }

        if (moovBody < 0)
        {
            return false;
        }

        var tracks = 0;
        for (position = moovBody; position < moovEnd;)
        {
            if (!reader.Step() || !TryReadBox(reader, position, moovEnd, out var type, out var body, out var end) || type == Mvex)
            {
                return false;
            }

            if (type == Trak)
            {
                var added = AddTrack(reader, body, end, ranges);
                if (added < 0)
                {
                    return false;
                }

                tracks += added;
            }

            position = end;
        }

        return tracks > 0;
    }

    /// <summary>1 when an audio/video track was added, 0 for another kind of track, -1 when malformed.</summary>
    private static int AddTrack(MediaReader reader, long trakBody, long trakEnd, List<ByteRange> ranges)
    {
        if (!TryFindChild(reader, trakBody, trakEnd, Mdia, out var mdiaBody, out var mdiaEnd)
            || !TryFindChild(reader, mdiaBody, mdiaEnd, Hdlr, out var hdlrBody, out var hdlrEnd)
            || hdlrEnd - hdlrBody < 12 || !reader.TryReadUInt32BE(hdlrBody + 8, out var handler))
        {
            return -1;
        }

        if (handler is not (Vide or Soun))
        {
            return 0;
        }

        if (!TryFindChild(reader, mdiaBody, mdiaEnd, Minf, out var minfBody, out var minfEnd)
            || !TryFindChild(reader, minfBody, minfEnd, Stbl, out var stblBody, out var stblEnd))
        {
            return -1;
        }

        long stsd = -1, stsdEnd = 0, stsz = -1, stszEnd = 0, stsc = -1, stscEnd = 0, stco = -1, stcoEnd = 0;
        var wide = false;
        for (var position = stblBody; position < stblEnd;)
        {
            if (!reader.Step() || !TryReadBox(reader, position, stblEnd, out var type, out var body, out var end) || type == Stz2)
            {
                return -1;
            }

            switch (type)
            {
                case Stsd: (stsd, stsdEnd) = (position, end); break;
                case Stsz: (stsz, stszEnd) = (body, end); break;
                case Stsc: (stsc, stscEnd) = (body, end); break;
                case Stco: (stco, stcoEnd, wide) = (body, end, false); break;
                case Co64: (stco, stcoEnd, wide) = (body, end, true); break;
            }

            position = end;
        }

        if (stsd < 0 || stsz < 0 || stsc < 0 || stco < 0)
        {
            return -1;
        }

        if (!reader.TryAddRange(ranges, stsd, stsdEnd - stsd))
        {
            return -1;
        }

        var table = new SampleTable(reader, stsz, stszEnd, stsc, stscEnd, stco, stcoEnd, wide);
        return table.AddChunks(ranges) ? 1 : -1;
    }

    private static bool TryFindChild(MediaReader reader, long start, long limit, uint wanted, out long body, out long end)
    {
        for (var position = start; position < limit;)
        {
            if (!reader.Step() || !TryReadBox(reader, position, limit, out var type, out body, out end))
            {
                break;
            }

            if (type == wanted)
            {
                return true;
            }

            position = end;
        }

        body = end = 0;
        return false;
    }

    /// <summary>Reads a box header at <paramref name="position"/>: 32-bit size (1: a 64-bit size follows; 0: to the limit) and type.</summary>
    internal static bool TryReadBox(MediaReader reader, long position, long limit, out uint type, out long body, out long end)
    {
        body = end = 0;
        if (!reader.TryReadUInt32BE(position, out var size32) || !reader.TryReadUInt32BE(position + 4, out type))
        {
            type = 0;
            return false;
        }

        long size = size32;
        body = position + 8;
        if (size32 == 1)
        {
            if (!reader.TryReadUInt64BE(position + 8, out var size64) || size64 > long.MaxValue)
            {
                return false;
            }

            size = (long)size64;
            body += 8;
        }
        else if (size32 == 0)
        {
            size = limit - position;
        }

        end = position + size;
        return size >= body - position && size <= limit - position;
    }
}
