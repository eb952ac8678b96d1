using System.Text;
using Dedup.Core.Media;

namespace Dedup.Core.Tests.Media.Fixtures;

/// <summary>MPEG-1 Layer III, 44.1 kHz, 128 kbit/s stereo frames (417 bytes, header FF FB 90 00), with an Info frame first.</summary>
internal sealed class Mp3Fixture : IMediaFixture
{
    public const int FrameLength = 417;

    public MediaFormat Format => MediaFormat.Mp3;

    public static byte[] Audio(int seed, int frames = 12, byte infoFill = 0x11, bool info = true)
    {
        var random = new Random(seed);
        var w = new ByteWriter();
        for (var i = 0; i < frames; i++)
        {
            var frame = new byte[FrameLength];
            random.NextBytes(frame);
            frame[0] = 0xFF;
            frame[1] = 0xFB;
            frame[2] = 0x90;
            frame[3] = 0x00;
            if (i == 0 && info)
            {
                frame.AsSpan(4, 32).Clear();
                "Info"u8.CopyTo(frame.AsSpan(36));
                frame.AsSpan(40).Fill(infoFill);
            }

            w.Bytes(frame);
        }

        return w.ToArray();
    }

    /// <summary>An ID3v2 tag (version 3 or 4) with a title frame and <paramref name="padding"/> zero bytes; a footer when asked (v4).</summary>
    public static byte[] Id3v2(int version, string title, int padding, bool footer = false)
    {
        var text = Encoding.Latin1.GetBytes(title);
        var frame = new ByteWriter().Ascii("TIT2");
        frame = version == 4 ? frame.Bytes(Syncsafe(text.Length + 1)) : frame.U32BE(text.Length + 1);
        var body = frame.U16BE(0).U8(0).Bytes(text).Zeros(padding).ToArray();
        var flags = footer ? 0x10 : 0;
        var w = new ByteWriter().Ascii("ID3").U8(version).U8(0).U8(flags).Bytes(Syncsafe(body.Length)).Bytes(body);
        if (footer)
        {
            w.Ascii("3DI").U8(version).U8(0).U8(flags).Bytes(Syncsafe(body.Length));
        }

        return w.ToArray();
    }

    public static byte[] Syncsafe(int value) => [(byte)((value >> 21) & 0x7F), (byte)((value >> 14) & 0x7F), (byte)((value >> 7) & 0x7F), (byte)(value & 0x7F)];

    public static byte[] Id3v1(string title)
    {
        var tag = new byte[128];
        "TAG"u8.CopyTo(tag);
        Encoding.Latin1.GetBytes(title).AsSpan(0, Math.Min(30, title.Length)).CopyTo(tag.AsSpan(3));
        tag[127] = 12;
        return tag;
    }

    public static byte[] Ape(string title, bool header)
    {
        var value = Encoding.UTF8.GetBytes(title);
        var items = new ByteWriter().U32LE(value.Length).U32LE(0).Ascii("Title").U8(0).Bytes(value).ToArray();
        var size = items.Length + 32;
        var headerFlags = 0x8000_0000u | 0x2000_0000u;
        var footerFlags = header ? 0x8000_0000u : 0u;
        var w = new ByteWriter();
        if (header)
        {
            w.Ascii("APETAGEX").U32LE(2000).U32LE(size).U32LE(1).U32LE(headerFlags).Zeros(8);
        }

        return w.Bytes(items).Ascii("APETAGEX").U32LE(2000).U32LE(size).U32LE(1).U32LE(footerFlags).Zeros(8).ToArray();
    }

    public static byte[] Lyrics3v2(string lyrics)
    {
        var body = new ByteWriter().Ascii("LYRICSBEGIN").Ascii("IND00002").Ascii("10").Ascii("LYR").Ascii(lyrics.Length.ToString("D5", System.Globalization.CultureInfo.InvariantCulture)).Ascii(lyrics).ToArray();
        return new ByteWriter().Bytes(body).Ascii(body.Length.ToString("D6", System.Globalization.CultureInfo.InvariantCulture)).Ascii("LYRICS200").ToArray();
    }

    public static byte[] Lyrics3v1(string lyrics) => new ByteWriter().Ascii("LYRICSBEGIN").Ascii(lyrics).Ascii("LYRICSEND").ToArray();

    public byte[] Create(int seed) => ByteWriter.Concat(Id3v2(3, "Base", 64), Audio(seed), Id3v1("Base"));

    public IEnumerable<(string Name, byte[] Bytes)> Variants(int seed)
    {
        var audio = Audio(seed);
        yield return ("bare frames", audio);
        yield return ("ID3v2.3 + ID3v1", Create(seed));
        yield return ("ID3v2.4 large padding", ByteWriter.Concat(Id3v2(4, "A much longer title after retagging", 4000), audio));
        yield return ("two ID3v2 tags", ByteWriter.Concat(Id3v2(3, "One", 0), Id3v2(4, "Two", 10), audio));
        yield return ("APEv2 with header + ID3v1", ByteWriter.Concat(audio, Ape("Ape title", header: true), Id3v1("x")));
        yield return ("APEv2 footer only", ByteWriter.Concat(Id3v2(3, "t", 5), audio, Ape("Another", header: false)));
        yield return ("Lyrics3 v2 + ID3v1", ByteWriter.Concat(audio, Lyrics3v2("la la la"), Id3v1("y")));
        yield return ("Lyrics3 v1 + ID3v1", ByteWriter.Concat(audio, Lyrics3v1("old lyrics"), Id3v1("z")));
        yield return ("APE + Lyrics3 v2 + ID3v1", ByteWriter.Concat(audio, Ape("a", true), Lyrics3v2("b"), Id3v1("c")));
        yield return ("ID3v2.4 moved to the end (footer)", ByteWriter.Concat(audio, Id3v2(4, "Moved", 20, footer: true)));
        yield return ("ID3v2.4 with footer at start", ByteWriter.Concat(Id3v2(4, "Footer", 0, footer: true), audio));
        yield return ("zero padding after the tag", ByteWriter.Concat(Id3v2(3, "pad", 0), new byte[700], audio));
        yield return ("Info frame rewritten", ByteWriter.Concat(Id3v2(3, "info", 0), Audio(seed, infoFill: 0x77)));
    }
}
