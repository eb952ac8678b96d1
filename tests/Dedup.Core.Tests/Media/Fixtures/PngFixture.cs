using System.Text;
using Dedup.Core.Media;

namespace Dedup.Core.Tests.Media.Fixtures;

/// <summary>PNG chunks with correct CRCs: IHDR, optional ancillary chunks, IDAT (split in several ways), IEND.</summary>
internal sealed class PngFixture : IMediaFixture
{
    public static readonly byte[] Signature = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A];

    public MediaFormat Format => MediaFormat.Png;

    public static byte[] Chunk(string type, byte[] data)
    {
        var typeAndData = ByteWriter.Concat(Encoding.ASCII.GetBytes(type), data);
        return new ByteWriter().U32BE(data.Length).Bytes(typeAndData).U32BE(Crc32.Compute(typeAndData)).ToArray();
    }

    public static byte[] Ihdr() => Chunk("IHDR", new ByteWriter().U32BE(16).U32BE(16).U8(8).U8(2).U8(0).U8(0).U8(0).ToArray());

    public static byte[] ImageData(int seed) => ByteWriter.Random(3001, seed);

    public static byte[] File(int seed, int idatParts, byte[] beforeData, byte[] afterData, byte[]? afterEnd = null)
    {
        var data = ImageData(seed);
        var w = new ByteWriter().Bytes(Signature).Bytes(Ihdr()).Bytes(beforeData);
        var step = (data.Length + idatParts - 1) / idatParts;
        for (var at = 0; at < data.Length; at += step)
        {
            w.Bytes(Chunk("IDAT", data[at..Math.Min(data.Length, at + step)]));
        }

        return w.Bytes(afterData).Bytes(Chunk("IEND", [])).Bytes(afterEnd ?? []).ToArray();
    }

    public static byte[] Text(string key, string value) => Chunk("tEXt", Encoding.Latin1.GetBytes(key + "\0" + value));

    public byte[] Create(int seed) => File(seed, 1, Text("Title", "Base"), []);

    public IEnumerable<(string Name, byte[] Bytes)> Variants(int seed)
    {
        yield return ("bare, one IDAT", File(seed, 1, [], []));
        yield return ("tEXt", Create(seed));
        yield return ("IDAT in 3 chunks", File(seed, 3, [], []));
        yield return ("IDAT in 7 chunks + text after", File(seed, 7, [], Text("Comment", "after the data")));
        yield return ("zTXt, iTXt, tIME, pHYs, eXIf", File(seed, 2,
            ByteWriter.Concat(Chunk("pHYs", new ByteWriter().U32BE(2835).U32BE(2835).U8(1).ToArray()), Chunk("zTXt", [.. "Raw\0\0"u8, 0x78, 0x9C, 3, 0, 0, 0, 0, 1]), Chunk("eXIf", [.. "II*\0"u8, 8, 0, 0, 0, 0, 0])),
            ByteWriter.Concat(Chunk("iTXt", Encoding.UTF8.GetBytes("XML:com.adobe.xmp\0\0\0\0\0<x/>")), Chunk("tIME", [7, 234, 1, 2, 3, 4, 5]))));
        yield return ("colour chunks (documented: ignored)", File(seed, 1,
            ByteWriter.Concat(Chunk("gAMA", new ByteWriter().U32BE(45455).ToArray()), Chunk("sRGB", [0]), Chunk("cHRM", new byte[32])), []));
        yield return ("bytes after IEND", File(seed, 1, [], [], ByteWriter.Random(77, 5)));
    }
}
