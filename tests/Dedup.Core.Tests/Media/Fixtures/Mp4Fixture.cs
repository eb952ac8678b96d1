using System.Text;
using Dedup.Core.Media;

namespace Dedup.Core.Tests.Media.Fixtures;

/// <summary>
/// MP4 built box by box: ftyp, moov (mvhd, trak → mdia → hdlr + minf → stbl → stsd/stts/stsc/stsz/stco|co64,
/// udta → meta → ilst), mdat; a video and an audio track, laid out faststart or moov-at-end, interleaved or not.
/// </summary>
internal sealed class Mp4Fixture : IMediaFixture
{
    public MediaFormat Format => MediaFormat.Mp4;

    public sealed record Track(string Handler, string Codec, byte[] Config, List<byte[]> Samples, int PerChunk);

    public sealed record Layout
    {
        public bool MoovFirst { get; init; }
        public bool Interleave { get; init; } = true;
        public bool Co64 { get; init; }
        public bool LargeMdat { get; init; }
        public bool Metadata { get; init; }
        public int ChunkScale { get; init; } = 1;
        public bool TimecodeTrack { get; init; }
    }

    public static byte[] Box(string type, params byte[][] children)
        => new ByteWriter().U32BE(8 + children.Sum(c => c.Length)).Ascii(type).Bytes(ByteWriter.Concat(children)).ToArray();

    public static List<Track> Tracks(int seed)
    {
        var random = new Random(seed);
        var video = Enumerable.Range(0, 10).Select(i => ByteWriter.Random(150 + random.Next(200), seed * 100 + i)).ToList();
        var audio = Enumerable.Range(0, 14).Select(i => ByteWriter.Random(64, seed * 100 + 50 + i)).ToList();
        return
        [
            new Track("vide", "avc1", ByteWriter.Random(90, seed + 1), video, 2),
            new Track("soun", "mp4a", ByteWriter.Random(40, seed + 2), audio, 3),
        ];
    }

    public static byte[] File(int seed, Layout layout) => File(Tracks(seed), layout);

    public static byte[] File(List<Track> tracks, Layout layout)
    {
        if (layout.TimecodeTrack)
        {
            tracks = [.. tracks, new Track("tmcd", "tmcd", new byte[20], [new byte[] { 0, 0, 0, 1 }], 1)];
        }

        // Chunks per track (sample index lists), then the mdat order of (track, chunk).
        var chunks = tracks.Select(t => t.Samples.Chunk(t.PerChunk * layout.ChunkScale).Select(c => c.ToArray()).ToList()).ToList();
        var order = new List<(int Track, int Chunk)>();
        if (layout.Interleave)
        {
            for (var c = 0; c < chunks.Max(l => l.Count); c++)
            {
                order.AddRange(Enumerable.Range(0, tracks.Count).Where(t => c < chunks[t].Count).Select(t => (t, c)));
            }
        }
        else
        {
            order.AddRange(Enumerable.Range(0, tracks.Count).SelectMany(t => Enumerable.Range(0, chunks[t].Count).Select(c => (t, c))));
        }

        var offsets = chunks.Select(l => new long[l.Count]).ToList();
        var ftyp = Box("ftyp", Encoding.ASCII.GetBytes("isom"), [0, 0, 2, 0], Encoding.ASCII.GetBytes("isomiso2avc1mp41"));
        var free = layout.Metadata ? Box("free", new byte[40]) : [];
        var uuid = layout.Metadata ? Box("uuid", ByteWriter.Random(16, 9), Encoding.ASCII.GetBytes("<x:xmpmeta/>")) : [];
        var mdatHeader = layout.LargeMdat ? 16 : 8;
        var moovLength = Moov(tracks, chunks, offsets, layout).Length;
        var dataStart = ftyp.Length + (layout.MoovFirst ? moovLength + free.Length : free.Length) + mdatHeader;
        var mdatBody = new ByteWriter();
        foreach (var (t, c) in order)
        {
            offsets[t][c] = dataStart + mdatBody.Position;
            foreach (var sample in chunks[t][c])
            {
                mdatBody.Bytes(sample);
            }
        }

        var body = mdatBody.ToArray();
        var mdat = layout.LargeMdat
            ? new ByteWriter().U32BE(1).Ascii("mdat").U64BE(16 + body.Length).Bytes(body).ToArray()
            : new ByteWriter().U32BE(8 + body.Length).Ascii("mdat").Bytes(body).ToArray();
        var moov = Moov(tracks, chunks, offsets, layout);
        return layout.MoovFirst ? ByteWriter.Concat(ftyp, moov, free, mdat, uuid) : ByteWriter.Concat(ftyp, free, mdat, moov, uuid);
    }

    private static byte[] Moov(List<Track> tracks, List<List<byte[][]>> chunks, List<long[]> offsets, Layout layout)
    {
        var traks = tracks.Select((t, i) => Trak(t, chunks[i], offsets[i], layout.Co64)).ToArray();
        var mvhd = Box("mvhd", new byte[100]);
        var udta = layout.Metadata
            ? Box("udta", Box("meta", new byte[4], Box("hdlr", new byte[8], Encoding.ASCII.GetBytes("mdir"), new byte[13]), Box("ilst", Box("\u00A9nam", Box("data", new byte[8], Encoding.UTF8.GetBytes("A title"))))))
            : [];
        return Box("moov", [mvhd, .. traks, udta]);
    }

    private static byte[] Trak(Track track, List<byte[][]> chunks, long[] offsets, bool co64)
    {
        var hdlr = Box("hdlr", new byte[8], Encoding.ASCII.GetBytes(track.Handler), new byte[12], Encoding.ASCII.GetBytes("Handler\0"));
        var stsd = Box("stsd", new ByteWriter().U32BE(0).U32BE(1).ToArray(), Box(track.Codec, track.Config));
        var stts = Box("stts", new ByteWriter().U32BE(0).U32BE(1).U32BE(track.Samples.Count).U32BE(512).ToArray());
        var runs = new ByteWriter();
        var runCount = 0;
        for (var c = 0; c < chunks.Count; c++)
        {
            if (c == 0 || chunks[c].Length != chunks[c - 1].Length)
            {
                runs.U32BE(c + 1).U32BE(chunks[c].Length).U32BE(1);
                runCount++;
            }
        }

        var stsc = Box("stsc", new ByteWriter().U32BE(0).U32BE(runCount).ToArray(), runs.ToArray());
        var sizes = track.Samples.Select(s => s.Length).ToList();
        var stsz = sizes.Distinct().Count() == 1
            ? Box("stsz", new ByteWriter().U32BE(0).U32BE(sizes[0]).U32BE(sizes.Count).ToArray())
            : Box("stsz", new ByteWriter().U32BE(0).U32BE(0).U32BE(sizes.Count).ToArray(), ByteWriter.Concat(sizes.Select(s => new ByteWriter().U32BE(s).ToArray()).ToArray()));
        var table = new ByteWriter().U32BE(0).U32BE(offsets.Length);
        foreach (var offset in offsets)
        {
            _ = co64 ? table.U64BE(offset) : table.U32BE(offset);
        }

        var stco = Box(co64 ? "co64" : "stco", table.ToArray());
        var stbl = Box("stbl", stsd, stts, stsc, stsz, stco);
        var minf = Box("minf", Box(track.Handler == "soun" ? "smhd" : "vmhd", new byte[8]), Box("dinf", Box("dref", new byte[8])), stbl);
        return Box("trak", Box("tkhd", new byte[84]), Box("mdia", Box("mdhd", new byte[24]), hdlr, minf));
    }

    public byte[] Create(int seed) => File(seed, new Layout());

    public IEnumerable<(string Name, byte[] Bytes)> Variants(int seed)
    {
        yield return ("moov at end", Create(seed));
        yield return ("faststart", File(seed, new Layout { MoovFirst = true }));
        yield return ("faststart, not interleaved", File(seed, new Layout { MoovFirst = true, Interleave = false }));
        yield return ("co64 + 64-bit mdat size", File(seed, new Layout { Co64 = true, LargeMdat = true }));
        yield return ("udta/meta/ilst, uuid, free", File(seed, new Layout { Metadata = true }));
        yield return ("faststart + metadata + bigger chunks", File(seed, new Layout { MoovFirst = true, Metadata = true, ChunkScale = 3 }));
        yield return ("extra timecode track", File(seed, new Layout { TimecodeTrack = true }));
    }
}
