namespace Dedup.Core.Media;

/// <summary>Picks the locator for a file from its first bytes (content signature, never the extension).</summary>
internal static class MediaDetector
{
    public const int HeaderSize = 64;

    private static readonly FlacLocator Flac = new();
    private static readonly Mp3Locator Mp3 = new();

    private static readonly IMediaLocator[] Locators =
    [
        new JpegLocator(),
        new PngLocator(),
        new WavLocator(),
        new WebPLocator(),
        Flac,
        new Mp4Locator(),
        Mp3,
    ];

    /// <summary>The locator for <paramref name="reader"/>'s file, or <see langword="null"/> when none fits.</summary>
    public static IMediaLocator? Detect(MediaReader reader)
    {
        Span<byte> header = stackalloc byte[(int)Math.Min(HeaderSize, reader.Length)];
        if (!reader.TryReadUnbuffered(0, header))
        {
            return null;
        }

        // ID3v2 tags (one or several) may precede MP3 frames or, stray, a FLAC stream: look past them all, as the
        // locators themselves do.
        if (Id3.TryGetV2Size(header, out _))
        {
            Span<byte> after = stackalloc byte[4];
            return reader.TryRead(Id3.SkipV2Tags(reader, 0), after) && after.SequenceEqual("fLaC"u8) ? Flac : Mp3;
        }

        foreach (var locator in Locators)
        {
            if (locator.IsMatch(header))
            {
                return locator;
            }
        }

        return null;
    }
}
