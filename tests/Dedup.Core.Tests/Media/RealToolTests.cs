using System.Text.Json;
using Dedup.Core.Media;
using Dedup.Core.Tests.Infrastructure;
using static Dedup.Core.Tests.Media.MediaTestSupport;

namespace Dedup.Core.Tests.Media;

/// <summary>
/// Files made by real tools (ffmpeg) and retagged by real tools (id3v2, metaflac, exiftool, ffmpeg remux):
/// every retagged copy keeps the original's payload, other content differs; and for JPEG, PNG, WAV and MP4,
/// equal ExifTool ImageDataHash ⇔ equal payload. Skipped when a tool is missing.
/// </summary>
public sealed class RealToolTests : IDisposable
{
    private const string Sine = "sine=frequency=440:duration=2";
    private const string OtherSine = "sine=frequency=660:duration=2";
    private const string TestSrc = "testsrc=size=160x120:rate=10";
    private readonly TempTree _tree = new();

    public void Dispose() => _tree.Dispose();

    [MediaToolFact("ffmpeg", "id3v2")]
    public void Mp3_retagged_by_id3v2_and_ffmpeg_keeps_its_payload()
    {
        var a = Ffmpeg("a.mp3", "-f", "lavfi", "-i", Sine, "-c:a", "libmp3lame", "-b:a", "128k");
        var same = new List<string> { a };
        same.Add(Copy(a, "tagged.mp3", p => Run("id3v2", "-a", "Some Artist", "-t", "A title", "-A", "Album", "-c", "comment", p)));
        same.Add(Copy(a, "v1only.mp3", p => Run("id3v2", "-1", "-a", "Artist", p)));
        same.Add(Copy(a, "untagged.mp3", p => Run("id3v2", "-D", p)));
        same.Add(Copy(a, "retagged.mp3", p => Run("id3v2", "-t", "A much much longer title to grow the tag beyond its padding " + new string('x', 3000), p)));
        same.Add(Ffmpeg("remuxed.mp3", "-i", a, "-c", "copy", "-metadata", "title=Remuxed", "-id3v2_version", "3", "-write_id3v1", "1"));
        var other = Ffmpeg("other.mp3", "-f", "lavfi", "-i", OtherSine, "-c:a", "libmp3lame", "-b:a", "128k");
        AssertSamePayload(MediaFormat.Mp3, same, other);
    }

    [MediaToolFact("ffmpeg", "metaflac")]
    public void Flac_retagged_by_metaflac_keeps_its_payload()
    {
        var a = Ffmpeg("a.flac", "-f", "lavfi", "-i", Sine, "-c:a", "flac");
        var cover = Ffmpeg("cover.png", "-f", "lavfi", "-i", TestSrc, "-frames:v", "1");
        var same = new List<string> { a };
        same.Add(Copy(a, "tagged.flac", p => Run("metaflac", "--set-tag=ARTIST=Someone", "--set-tag=TITLE=Song", p)));
        same.Add(Copy(a, "bare.flac", p => Run("metaflac", "--remove-all", "--dont-use-padding", p)));
        same.Add(Copy(a, "padded.flac", p => Run("metaflac", "--add-padding=20000", p)));
        same.Add(Copy(a, "picture.flac", p => Run("metaflac", "--import-picture-from=" + cover, "--add-seekpoint=1s", p)));
        var other = Ffmpeg("other.flac", "-f", "lavfi", "-i", OtherSine, "-c:a", "flac");
        AssertSamePayload(MediaFormat.Flac, same, other);
    }

    [MediaToolFact("ffmpeg", "exiftool")]
    public void Jpeg_retagged_by_exiftool_keeps_its_payload()
    {
        var (same, other) = MakeJpegs();
        AssertSamePayload(MediaFormat.Jpeg, same, other);
    }

    [MediaToolFact("ffmpeg", "exiftool")]
    public void Png_retagged_by_exiftool_keeps_its_payload()
    {
        var (same, other) = MakePngs();
        AssertSamePayload(MediaFormat.Png, same, other);
    }

    [MediaToolFact("ffmpeg")]
    public void Wav_retagged_by_ffmpeg_keeps_its_payload()
    {
        var (same, other) = MakeWavs();
        AssertSamePayload(MediaFormat.Wav, same, other);
    }

    [MediaToolFact("ffmpeg", "ffmpeg-libwebp", "exiftool")]
    public void WebP_retagged_by_exiftool_keeps_its_payload()
    {
        foreach (var lossless in new[] { "0", "1" })
        {
            var a = Ffmpeg($"a{lossless}.webp", "-f", "lavfi", "-i", TestSrc, "-frames:v", "1", "-c:v", "libwebp", "-lossless", lossless);
            var same = new List<string> { a };
            same.Add(Copy(a, $"xmp{lossless}.webp", p => Run("exiftool", "-q", "-overwrite_original", "-XMP:Title=Retagged", p)));
            same.Add(Copy(a, $"exif{lossless}.webp", p => Run("exiftool", "-q", "-overwrite_original", "-EXIF:Artist=Someone", "-XMP:Creator=X", p)));
            var other = Ffmpeg($"other{lossless}.webp", "-f", "lavfi", "-i", TestSrc, "-vf", "hue=s=0", "-frames:v", "1", "-c:v", "libwebp", "-lossless", lossless);
            AssertSamePayload(MediaFormat.WebP, same, other);
        }
    }

    [MediaToolFact("ffmpeg")]
    public void Mp4_faststart_remux_and_retag_keep_the_payload()
    {
        var (same, other) = MakeMp4s();
        AssertSamePayload(MediaFormat.Mp4, same, other);
    }

    [MediaToolFact("ffmpeg", "exiftool", "exiftool-13")]
    public void Grouping_agrees_with_ExifTool_ImageDataHash()
    {
        var files = new List<string>();
        foreach (var (same, other) in new[] { MakeJpegs(), MakePngs(), MakeWavs(), MakeMp4s() })
        {
            files.AddRange(same);
            files.Add(other);
        }

        var json = Run("perl", [ModernExifTool()!, "-j", "-api", "ImageHashType=SHA256", "-ImageDataHash", .. files]);
        var hashes = JsonDocument.Parse(json).RootElement.EnumerateArray()
            .ToDictionary(e => e.GetProperty("SourceFile").GetString()!, e => e.TryGetProperty("ImageDataHash", out var h) ? h.GetString() : null);
        var payloads = files.ToDictionary(f => f, f => PayloadOfFile(f, out _));
        foreach (var a in files)
        {
            Assert.NotNull(hashes[a]);
            Assert.NotNull(payloads[a]);
            foreach (var b in files.Where(b => string.CompareOrdinal(a, b) < 0 && Path.GetExtension(a) == Path.GetExtension(b)))
            {
                var sameHash = hashes[a] == hashes[b];
                var samePayload = payloads[a].AsSpan().SequenceEqual(payloads[b]);
                Assert.True(sameHash == samePayload, $"{Path.GetFileName(a)} vs {Path.GetFileName(b)}: ImageDataHash equal {sameHash}, payload equal {samePayload}");
            }
        }
    }

    private (List<string> Same, string Other) MakeJpegs()
    {
        var a = Ffmpeg("a.jpg", "-f", "lavfi", "-i", TestSrc, "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "3");
        var thumb = Ffmpeg("thumb.jpg", "-i", a, "-vf", "scale=32:24", "-c:v", "mjpeg");
        var same = new List<string> { a };
        same.Add(Copy(a, "a-tagged.jpg", p => Run("exiftool", "-q", "-overwrite_original", "-Artist=Someone", "-Comment=Hello", "-XMP:Title=Title", "-IPTC:Keywords=k", p)));
        same.Add(Copy(a, "a-stripped.jpg", p => Run("exiftool", "-q", "-overwrite_original", "-all=", p)));
        same.Add(Copy(a, "a-thumb.jpg", p => Run("exiftool", "-q", "-overwrite_original", "-Make=Cam", "-ThumbnailImage<=" + thumb, p)));
        var other = Ffmpeg("a-other.jpg", "-f", "lavfi", "-i", TestSrc, "-vf", "hue=s=0", "-frames:v", "1", "-c:v", "mjpeg", "-q:v", "3");
        return (same, other);
    }

    private (List<string> Same, string Other) MakePngs()
    {
        var a = Ffmpeg("b.png", "-f", "lavfi", "-i", TestSrc, "-frames:v", "1");
        var same = new List<string> { a };
        same.Add(Copy(a, "b-tagged.png", p => Run("exiftool", "-q", "-overwrite_original", "-PNG:Title=Title", "-XMP:Creator=Me", "-PNG:Comment=c", p)));
        same.Add(Copy(a, "b-stripped.png", p => Run("exiftool", "-q", "-overwrite_original", "-all=", p)));
        var other = Ffmpeg("b-other.png", "-f", "lavfi", "-i", TestSrc, "-vf", "hue=s=0", "-frames:v", "1");
        return (same, other);
    }

    private (List<string> Same, string Other) MakeWavs()
    {
        var a = Ffmpeg("c.wav", "-f", "lavfi", "-i", Sine, "-c:a", "pcm_s16le");
        var same = new List<string> { a };
        same.Add(Ffmpeg("c-tagged.wav", "-i", a, "-c", "copy", "-metadata", "title=Title", "-metadata", "artist=Artist"));
        same.Add(Ffmpeg("c-bitexact.wav", "-i", a, "-c", "copy", "-fflags", "+bitexact", "-map_metadata", "-1"));
        same.Add(Ffmpeg("c-bext.wav", "-i", a, "-c", "copy", "-write_bext", "1", "-metadata", "description=Broadcast", "-metadata", "originator=me"));
        var other = Ffmpeg("c-other.wav", "-f", "lavfi", "-i", OtherSine, "-c:a", "pcm_s16le");
        return (same, other);
    }

    private (List<string> Same, string Other) MakeMp4s()
    {
        var video = Run("ffmpeg", "-hide_banner", "-encoders").Contains("libx264", StringComparison.Ordinal) ? "libx264" : "mpeg4";
        string[] Encode(string source) => ["-f", "lavfi", "-i", source, "-f", "lavfi", "-i", Sine, "-t", "2", "-c:v", video, "-c:a", "aac", "-pix_fmt", "yuv420p"];
        var a = Ffmpeg("d.mp4", Encode(TestSrc));
        var same = new List<string> { a };
        same.Add(Ffmpeg("d-faststart.mp4", "-i", a, "-c", "copy", "-movflags", "+faststart"));
        same.Add(Ffmpeg("d-tagged.mp4", "-i", a, "-c", "copy", "-metadata", "title=Title", "-metadata", "comment=A comment"));
        if (Has("exiftool"))
        {
            same.Add(Copy(a, "d-exiftool.mp4", p => Run("exiftool", "-q", "-overwrite_original", "-XMP:Title=Title", "-QuickTime:Artist=Someone", p)));
        }

        var other = Ffmpeg("d-other.mp4", Encode(TestSrc + ",hue=s=0"));
        return (same, other);
    }

    private static void AssertSamePayload(MediaFormat format, List<string> same, string other)
    {
        var expected = PayloadOfFile(same[0], out var found);
        Assert.Equal(format, found);
        Assert.NotNull(expected);
        Assert.True(expected.Length < new FileInfo(same[0]).Length);
        foreach (var path in same.Skip(1))
        {
            Assert.NotEqual(File.ReadAllBytes(same[0]), File.ReadAllBytes(path)); // the tool did change the file
            var payload = PayloadOfFile(path, out found);
            Assert.Equal(format, found);
            Assert.True(payload is not null && payload.AsSpan().SequenceEqual(expected), $"{Path.GetFileName(path)}: payload differs from {Path.GetFileName(same[0])}");
        }

        var otherPayload = PayloadOfFile(other, out found);
        Assert.Equal(format, found);
        Assert.False(otherPayload.AsSpan().SequenceEqual(expected), $"{Path.GetFileName(other)} has the same payload");
    }

    private string Ffmpeg(string name, params string[] args)
    {
        var path = _tree.PathOf(name);
        Run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", .. args, path]);
        return path;
    }

    private string Copy(string source, string name, Action<string> retag)
    {
        var path = _tree.PathOf(name);
        File.Copy(source, path);
        retag(path);
        return path;
    }
}
