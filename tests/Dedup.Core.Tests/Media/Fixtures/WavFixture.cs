using System.Text;
using Dedup.Core.Media;

namespace Dedup.Core.Tests.Media.Fixtures;

/// <summary>RIFF WAVE: `fmt ` (PCM, mono, 8 kHz, 8-bit) and an odd-sized `data` chunk (so a pad byte follows), plus metadata chunks.</summary>
internal sealed class WavFixture : IMediaFixture
{
    public MediaFormat Format => MediaFormat.Wav;

    public static byte[] Chunk(string id, byte[] data)
    {
        var w = new ByteWriter().Ascii(id).U32LE(data.Length).Bytes(data);
        return (data.Length & 1) != 0 ? w.U8(0).ToArray() : w.ToArray();
    }

    public static byte[] Riff(string form, params byte[][] chunks)
    {
        var body = ByteWriter.Concat(chunks);
        return new ByteWriter().Ascii("RIFF").U32LE(body.Length + 4).Ascii(form).Bytes(body).ToArray();
    }

    public static byte[] Fmt() => Chunk("fmt ", new ByteWriter().U16LE(1).U16LE(1).U32LE(8000).U32LE(8000).U16LE(1).U16LE(8).ToArray());

    public static byte[] Data(int seed) => Chunk("data", ByteWriter.Random(1001, seed));

    public static byte[] Info(string title)
    {
        var name = Encoding.ASCII.GetBytes(title + "\0");
        return Chunk("LIST", ByteWriter.Concat(Encoding.ASCII.GetBytes("INFO"), Chunk("INAM", name), Chunk("ISFT", Encoding.ASCII.GetBytes("Lavf60.16.100\0"))));
    }

    public byte[] Create(int seed) => Riff("WAVE", Fmt(), Info("Base"), Data(seed));

    public IEnumerable<(string Name, byte[] Bytes)> Variants(int seed)
    {
        yield return ("fmt + data", Riff("WAVE", Fmt(), Data(seed)));
        yield return ("LIST INFO", Create(seed));
        yield return ("longer LIST INFO after data", Riff("WAVE", Fmt(), Data(seed), Info("A longer, odd title")));
        yield return ("JUNK first, bext, iXML", Riff("WAVE", Chunk("JUNK", new byte[28]), Fmt(), Chunk("bext", new byte[602]), Data(seed), Chunk("iXML", Encoding.ASCII.GetBytes("<BWFXML/>"))));
        yield return ("id3 chunk, _PMX, PAD", Riff("WAVE", Fmt(), Chunk("id3 ", Mp3Fixture.Id3v2(3, "wav", 9)), Data(seed), Chunk("_PMX", Encoding.ASCII.GetBytes("<x:xmpmeta/>")), Chunk("PAD ", new byte[3])));
    }
}
