using Dedup.Core.Media;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Media.Fixtures;

namespace Dedup.Core.Tests.Media;

/// <summary>Helpers: locate a payload in memory or through a file handle and read it back.</summary>
internal static class MediaTestSupport
{
    public static IMediaFixture[] AllFixtures { get; } =
    [
        new JpegFixture(), new PngFixture(), new WavFixture(), new Mp3Fixture(), new FlacFixture(),
        new WebPFixture("VP8 "), new WebPFixture("VP8L"), new WebPFixture("ALPH"), new WebPFixture("ANIM"), new Mp4Fixture(),
    ];

    public static IMediaFixture Fixture(string name) => AllFixtures.Single(f => Name(f) == name);

    public static string Name(IMediaFixture fixture) => fixture is WebPFixture w ? $"WebP-{w.Kind.Trim()}" : fixture.Format.ToString();

    public static List<ByteRange>? Locate(byte[] file, out MediaFormat format, MediaOptions? options = null)
    {
        var ranges = new List<ByteRange>();
        return MediaContent.TryLocate(file, options ?? MediaOptions.Default, out format, ranges) ? ranges : null;
    }

    /// <summary>The concatenated payload bytes, or null when not located.</summary>
    public static byte[]? Payload(byte[] file, MediaOptions? options = null)
    {
        var ranges = Locate(file, out _, options);
        return ranges is null ? null : Read(file, ranges);
    }

    public static byte[] Read(byte[] file, List<ByteRange> ranges)
        => ranges.SelectMany(r => file.AsSpan((int)r.Offset, (int)r.Length).ToArray()).ToArray();

    /// <summary>Locates through a real file handle (the production path) and reads the payload with positional reads.</summary>
    public static byte[]? PayloadOfFile(string path, out MediaFormat format, MediaOptions? options = null)
    {
        using var handle = File.OpenHandle(path);
        var length = RandomAccess.GetLength(handle);
        var ranges = new List<ByteRange>();
        if (!MediaContent.TryLocate(handle, length, options ?? MediaOptions.Default, out format, ranges))
        {
            return null;
        }

        var payload = new byte[MediaContent.PayloadLength(ranges)];
        var at = 0;
        foreach (var range in ranges)
        {
            RandomAccess.Read(handle, payload.AsSpan(at, (int)range.Length), range.Offset);
            at += (int)range.Length;
        }

        return payload;
    }

    public static bool Has(string tool) => FindOnPath(tool) is not null;

    public static string? FindOnPath(string tool)
        => (Environment.GetEnvironmentVariable("PATH") ?? "").Split(':', StringSplitOptions.RemoveEmptyEntries)
            .Select(dir => Path.Combine(dir, tool)).FirstOrDefault(File.Exists);

    /// <summary>ExifTool with ImageDataHash (≥ 12.58): $DEDUP_EXIFTOOL, or the npm package exiftool-vendored.pl in /tmp/exiftool-npm.</summary>
    public static string? ModernExifTool()
    {
        string?[] candidates =
        [
            Environment.GetEnvironmentVariable("DEDUP_EXIFTOOL"),
            "/tmp/exiftool-npm/node_modules/exiftool-vendored.pl/bin/exiftool",
        ];
        return Has("perl") ? candidates.FirstOrDefault(c => !string.IsNullOrEmpty(c) && File.Exists(c)) : null;
    }

    private static readonly Lazy<bool> s_ffmpegHasLibWebP = new(() => FfmpegHasEncoder("libwebp"));

    /// <summary>Whether ffmpeg is installed with the libwebp encoder (many builds lack it); checked once.</summary>
    public static bool FfmpegHasLibWebP => s_ffmpegHasLibWebP.Value;

    /// <summary>Whether <c>ffmpeg -hide_banner -encoders</c> lists <paramref name="encoder"/>; false when ffmpeg is missing or fails.</summary>
    private static bool FfmpegHasEncoder(string encoder)
    {
        if (!Has("ffmpeg"))
        {
            return false;
        }

        try
        {
            var (exitCode, output, _) = ProcessRunner.Run("ffmpeg", ["-hide_banner", "-encoders"]);

            // Lines look like " V....D libwebp              libwebp WebP image (codec webp)".
            return exitCode == 0 && output.Split('\n').Any(line =>
                line.Split(' ', StringSplitOptions.RemoveEmptyEntries) is [_, var name, ..] && name == encoder);
        }
        catch (Exception ex) when (ex is System.ComponentModel.Win32Exception or InvalidOperationException or IOException)
        {
            return false;
        }
    }

    /// <summary>Runs a tool, failing the test with its error output when it exits non-zero; returns standard output.</summary>
    public static string Run(string file, params string[] args)
    {
        var (exitCode, output, error) = ProcessRunner.Run(file, args);
        Assert.True(exitCode == 0, $"{file} {string.Join(' ', args)} exited {exitCode}: {error}");
        return output;
    }
}

/// <summary>
/// A fact skipped (with the reason) when a command-line tool it needs is not installed. Pseudo-tools:
/// "exiftool-13" (an ExifTool with ImageDataHash, see <see cref="MediaTestSupport.ModernExifTool"/>) and
/// "ffmpeg-libwebp" (ffmpeg with the libwebp encoder). In CI a missing tool fails the test instead (see
/// <see cref="CiRequirement"/>), except "exiftool-13": .ci/run installs it only where npm is available.
/// </summary>
[Xunit.Sdk.XunitTestCaseDiscoverer("Dedup.Core.Tests.Infrastructure.RequirementFactDiscoverer", "Dedup.Core.Tests")]
public sealed class MediaToolFactAttribute : FactAttribute, IRequirementFact
{
    public MediaToolFactAttribute(params string[] tools)
    {
        var missing = tools.Where(t => t switch
        {
            "exiftool-13" => MediaTestSupport.ModernExifTool() is null,
            "ffmpeg-libwebp" => !MediaTestSupport.FfmpegHasLibWebP,
            _ => !MediaTestSupport.Has(t),
        }).ToList();
        if (missing.Count > 0)
        {
            var reason = $"Needs {string.Join(", ", missing)} (install: apt-get install ffmpeg id3v2 flac libimage-exiftool-perl; "
                 + "npm install --prefix /tmp/exiftool-npm exiftool-vendored.pl or set DEDUP_EXIFTOOL; "
                 + "ffmpeg-libwebp: an ffmpeg built with the libwebp encoder, listed by ffmpeg -hide_banner -encoders).";
            CiFailure = missing.Any(t => t != "exiftool-13") ? CiRequirement.FailureFor(reason) : null;
            Skip = CiFailure is null ? reason : null;
        }
    }

    public string? CiFailure { get; }
}
