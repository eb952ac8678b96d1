namespace Dedup.Core.IO;

/// <summary>
/// Which bytes of a file a read means when it is not the whole file: a logical content offset maps to a file offset.
/// Handed to the reader with a read (media mode's payload ranges), so the whole-file types carry no ranges.
/// </summary>
internal interface IContentMap
{
    /// <summary>The length of the mapped content.</summary>
    long Length { get; }

    /// <summary>Maps a content offset to the file offset and the bytes left before the next discontinuity.</summary>
    (long FileOffset, long Available) Map(long contentOffset);

    /// <summary>
    /// The file length to read from <paramref name="contentOffset"/>'s position so that it covers the following
    /// pieces while each gap between them is at most <paramref name="maxGap"/> bytes, up to <paramref name="wanted"/>
    /// content bytes and <paramref name="maxSpan"/> file bytes.
    /// </summary>
    long CoalescedSpan(long contentOffset, long wanted, long maxSpan, long maxGap);
}
