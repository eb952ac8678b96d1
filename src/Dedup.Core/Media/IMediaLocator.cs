namespace Dedup.Core.Media;

/// <summary>Maps one media format to the byte ranges of its payload.</summary>
internal interface IMediaLocator
{
    MediaFormat Format { get; }

    /// <summary>Whether the first bytes of a file (at most <see cref="MediaDetector.HeaderSize"/>) carry this format's signature.</summary>
    bool IsMatch(ReadOnlySpan<byte> header);

    /// <summary>
    /// Appends the payload ranges in a canonical order (not necessarily file order). Returns
    /// <see langword="false"/> when the file is malformed, truncated or outside what the locator supports.
    /// </summary>
    bool TryLocate(MediaReader reader, List<ByteRange> ranges);
}
