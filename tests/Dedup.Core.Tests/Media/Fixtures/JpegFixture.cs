using System.Text;
using Dedup.Core.Media;

namespace Dedup.Core.Tests.Media.Fixtures;

/// <summary>Baseline JPEG segments: DQT, SOF0, DHT, DRI, SOS and entropy-coded data with 0xFF00 stuffing and RST markers, then EOI.</summary>
internal sealed class JpegFixture : IMediaFixture
{
    public MediaFormat Format => MediaFormat.Jpeg;

    public static byte[] Segment(int marker, byte[] body) => new ByteWriter().U8(0xFF).U8(marker).U16BE(body.Length + 2).Bytes(body).ToArray();

    public static byte[] EntropyData(int seed, int length)
    {
        var random = new Random(seed);
        var w = new ByteWriter();
        var restart = 0;
        for (var i = 0; i < length; i++)
        {
            var b = random.Next(256);
            w.U8(b);
            if (b == 0xFF)
            {
                w.U8(0x00); // stuffing
            }

            if (i % 257 == 256)
            {
                w.U8(0xFF).U8(0xD0 + (restart++ % 8));
            }
        }

        return w.ToArray();
    }

    /// <summary>The coding segments and scan, without SOI/APPn/EOI.</summary>
    public static byte[] Image(int seed, int entropyLength = 3000)
    {
        var dqt = new ByteWriter().U8(0).Bytes(ByteWriter.Random(64, seed + 1)).ToArray();
        var sof = new ByteWriter().U8(8).U16BE(16).U16BE(16).U8(3).U8(1).U8(0x22).U8(0).U8(2).U8(0x11).U8(1).U8(3).U8(0x11).U8(1).ToArray();
        var dht = new ByteWriter().U8(0x00).U8(0).U8(1).Zeros(14).U8(0).ToArray();
        var dri = new ByteWriter().U16BE(4).ToArray();
        var sos = new ByteWriter().U8(3).U8(1).U8(0x00).U8(2).U8(0x11).U8(3).U8(0x11).U8(0).U8(63).U8(0).ToArray();
        return ByteWriter.Concat(Segment(0xDB, dqt), Segment(0xC0, sof), Segment(0xC4, dht), Segment(0xDD, dri), Segment(0xDA, sos), EntropyData(seed, entropyLength));
    }

    public static byte[] Jfif() => Segment(0xE0, new ByteWriter().Ascii("JFIF").U8(0).U8(1).U8(1).U8(0).U16BE(1).U16BE(1).U8(0).U8(0).ToArray());

    /// <summary>APP1 EXIF holding an embedded thumbnail: a whole JPEG (SOI … EOI) inside the segment.</summary>
    public static byte[] ExifWithThumbnail(int seed)
    {
        var thumbnail = ByteWriter.Concat([0xFF, 0xD8], Image(seed + 99, 200), [0xFF, 0xD9]);
        var body = new ByteWriter().Ascii("Exif").U16BE(0).Ascii("II").U16LE(42).U32LE(8).U16LE(0).U32LE(0).Bytes(thumbnail).ToArray();
        return Segment(0xE1, body);
    }

    public static byte[] File(int seed, byte[] beforeImage, byte[]? afterEoi = null)
        => ByteWriter.Concat([0xFF, 0xD8], beforeImage, Image(seed), [0xFF, 0xD9], afterEoi ?? []);

    public byte[] Create(int seed) => File(seed, Jfif());

    public IEnumerable<(string Name, byte[] Bytes)> Variants(int seed)
    {
        yield return ("no APPn", File(seed, []));
        yield return ("JFIF", Create(seed));
        yield return ("EXIF with thumbnail", File(seed, ByteWriter.Concat(ExifWithThumbnail(seed), Jfif())));
        yield return ("XMP + ICC + IPTC", File(seed, ByteWriter.Concat(
            Segment(0xE1, Encoding.ASCII.GetBytes("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>")),
            Segment(0xE2, [.. Encoding.ASCII.GetBytes("ICC_PROFILE\0"), 1, 1, .. new byte[128]]),
            Segment(0xED, Encoding.ASCII.GetBytes("Photoshop 3.0\08BIM")))));
        yield return ("comment", File(seed, ByteWriter.Concat(Jfif(), Segment(0xFE, [.. "a comment with "u8, 0xFF, 0xD9, 0xFF, 0xDA, .. " bytes"u8]))));
        yield return ("trailing data after EOI", File(seed, Jfif(), ByteWriter.Concat([0xFF, 0xD8, 0xFF, 0xE0], ByteWriter.Random(500, 3))));
        yield return ("fill bytes before a marker", ByteWriter.Concat([0xFF, 0xD8], Jfif(), [0xFF, 0xFF, 0xFF], Image(seed), [0xFF, 0xD9]));
    }
}
