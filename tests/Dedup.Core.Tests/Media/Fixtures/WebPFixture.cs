using System.Text;
using Dedup.Core.Media;

namespace Dedup.Core.Tests.Media.Fixtures;

/// <summary>WebP: simple lossy (VP8), simple lossless (VP8L), and extended (VP8X + ICCP/ALPH/EXIF/XMP) or animated files.</summary>
internal sealed class WebPFixture : IMediaFixture
{
    public WebPFixture(string kind = "VP8 ") => Kind = kind;

    public string Kind { get; }

    public MediaFormat Format => MediaFormat.WebP;

    public static byte[] Vp8X(int flags) => WavFixture.Chunk("VP8X", new ByteWriter().U8(flags).Zeros(3).U24LE(15).U24LE(15).ToArray());

    public byte[][] Image(int seed) => Kind switch
    {
        "ANIM" =>
        [
            WavFixture.Chunk("ANIM", new ByteWriter().U32LE(0).U16LE(0).ToArray()),
            WavFixture.Chunk("ANMF", ByteWriter.Concat(new byte[16], WavFixture.Chunk("VP8 ", ByteWriter.Random(301, seed)))),
            WavFixture.Chunk("ANMF", ByteWriter.Concat(new byte[16], WavFixture.Chunk("VP8L", ByteWriter.Random(200, seed + 1)))),
        ],
        "ALPH" => [WavFixture.Chunk("ALPH", ByteWriter.Random(51, seed + 2)), WavFixture.Chunk("VP8 ", ByteWriter.Random(501, seed))],
        _ => [WavFixture.Chunk(Kind, ByteWriter.Random(501, seed))],
    };

    public byte[] Create(int seed) => Kind is "VP8 " or "VP8L"
        ? WavFixture.Riff("WEBP", Image(seed))
        : WavFixture.Riff("WEBP", [Vp8X(Kind == "ANIM" ? 0x02 : 0x10), .. Image(seed)]);

    public IEnumerable<(string Name, byte[] Bytes)> Variants(int seed)
    {
        var iccp = WavFixture.Chunk("ICCP", new byte[130]);
        var exif = WavFixture.Chunk("EXIF", ByteWriter.Concat("II*\0"u8.ToArray(), new byte[21]));
        var xmp = WavFixture.Chunk("XMP ", Encoding.ASCII.GetBytes("<x:xmpmeta>retagged</x:xmpmeta>"));
        var animated = Kind == "ANIM" ? 0x02 : 0;
        var alpha = Kind == "ALPH" ? 0x10 : 0;
        yield return ("as created", Create(seed));
        yield return ("VP8X + ICCP + EXIF + XMP", WavFixture.Riff("WEBP", [Vp8X(0x20 | 0x08 | 0x04 | animated | alpha), iccp, .. Image(seed), exif, xmp]));
        yield return ("VP8X + XMP only", WavFixture.Riff("WEBP", [Vp8X(0x04 | animated | alpha), .. Image(seed), xmp]));
    }
}
