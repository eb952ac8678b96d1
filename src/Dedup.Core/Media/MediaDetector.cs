namespace Dedup.Core.Media;

/// <summary>Picks the locator for a file from its first bytes (content signature, never the extension).</summary>
internal static class MediaDetector
{
    public const int HeaderSize = 64;

    private static readonly IMediaLocator[] Locators =
    [
        new JpegLocator(),
        new PngLocator(),
        new WavLocator(),
        new WebPLocator(),
        new FlacLocator(),
        new Mp4Locator(),
        new Mp3Locator(),
    ];

    /// <summary>The locator for <paramref name="reader"/>'s file, or <see langword="null"/> when none fits.</summary>
    public static IMediaLocator? Detect(MediaReader reader)
    {
        Span<byte> header = stackalloc byte[(int)Math.Min(HeaderSize, reader.Length)];
        if (!reader.TryRead(0, header))
        {
            return null;
        }

        // An ID3v2 tag may precede MP3 frames or, stray, a FLAC stream: look past it.
        if (Id3.TryGetV2Size(header, out var tagSize))
        {
            Span<byte> after = stackalloc byte[4];
            return reader.TryRead(tagSize, after) && after.SequenceEqual("fLaC"u8) ? Locators[4] : Locators[6];
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

    /// <summary>The locator for a format (tests and benchmarks).</summary>
    public static IMediaLocator? For(MediaFormat format) => Array.Find(Locators, l => l.Format == format);
}
