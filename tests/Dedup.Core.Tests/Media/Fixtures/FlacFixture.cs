using System.Text;
using Dedup.Core.Media;

namespace Dedup.Core.Tests.Media.Fixtures;

/// <summary>FLAC: "fLaC", STREAMINFO, other metadata blocks, then frames starting with the sync code FF F8.</summary>
internal sealed class FlacFixture : IMediaFixture
{
    public MediaFormat Format => MediaFormat.Flac;

    public static byte[] StreamInfo(int seed)
    {
        // min/max block size, min/max frame size, then 20-bit rate, 3-bit channels-1, 5-bit bps-1, 36-bit samples, MD5.
        const long rate = 44100, channels = 2, bits = 16, samples = 8 * 4096;
        var packed = (rate << 44) | ((channels - 1) << 41) | ((bits - 1) << 36) | samples;
        return new ByteWriter().U16BE(4096).U16BE(4096).U24BE(14).U24BE(9000).U64BE(packed).Bytes(ByteWriter.Random(16, seed)).ToArray();
    }

    public static byte[] Frames(int seed)
    {
        var random = new Random(seed + 1000);
        var w = new ByteWriter();
        for (var i = 0; i < 8; i++)
        {
            var frame = new byte[300 + (i * 37)];
            random.NextBytes(frame);
            frame[0] = 0xFF;
            frame[1] = 0xF8;
            frame[2] = 0x69;
            frame[3] = 0x08;
            frame[4] = (byte)i;
            w.Bytes(frame);
        }

        return w.ToArray();
    }

    public static byte[] Block(int type, bool last, byte[] body)
        => new ByteWriter().U8((last ? 0x80 : 0) | type).U24BE(body.Length).Bytes(body).ToArray();

    public static byte[] VorbisComment(params string[] comments)
    {
        var w = new ByteWriter();
        var vendor = Encoding.UTF8.GetBytes("reference libFLAC 1.4.2");
        w.U32LE(vendor.Length).Bytes(vendor).U32LE(comments.Length);
        foreach (var comment in comments)
        {
            var bytes = Encoding.UTF8.GetBytes(comment);
            w.U32LE(bytes.Length).Bytes(bytes);
        }

        return w.ToArray();
    }

    public static byte[] Picture(int seed)
    {
        var image = ByteWriter.Random(200, seed + 7);
        return new ByteWriter().U32BE(3).U32BE(10).Ascii("image/jpeg").U32BE(0).U32BE(16).U32BE(16).U32BE(24).U32BE(0).U32BE(image.Length).Bytes(image).ToArray();
    }

    public static byte[] File(int seed, params (int Type, byte[] Body)[] blocks)
    {
        var w = new ByteWriter().Ascii("fLaC").Bytes(Block(0, blocks.Length == 0, StreamInfo(seed)));
        for (var i = 0; i < blocks.Length; i++)
        {
            w.Bytes(Block(blocks[i].Type, i == blocks.Length - 1, blocks[i].Body));
        }

        return w.Bytes(Frames(seed)).ToArray();
    }

    public byte[] Create(int seed) => File(seed, (4, VorbisComment("TITLE=Base")), (1, new byte[1024]));

    public IEnumerable<(string Name, byte[] Bytes)> Variants(int seed)
    {
        yield return ("STREAMINFO only", File(seed));
        yield return ("comment + padding", Create(seed));
        yield return ("bigger comment, less padding", File(seed, (4, VorbisComment("TITLE=Retagged", "ARTIST=Someone", "ALBUM=Else")), (1, new byte[300])));
        yield return ("padding removed", File(seed, (4, VorbisComment("TITLE=x"))));
        yield return ("seektable, application, cuesheet, picture", File(seed, (3, new byte[36]), (2, [.. "ABCD"u8, 1, 2, 3]), (5, new byte[432]), (6, Picture(seed)), (1, new byte[8])));
        yield return ("padding first, comment last", File(seed, (1, new byte[64]), (4, VorbisComment("TITLE=Moved"))));
        yield return ("stray ID3v2 before fLaC", ByteWriter.Concat(Mp3Fixture.Id3v2(3, "stray", 100), File(seed, (4, VorbisComment("A=b")))));
    }
}
