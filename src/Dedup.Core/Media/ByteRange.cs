namespace Dedup.Core.Media;

/// <summary>A span of a file's bytes: <paramref name="Offset"/> from the start, <paramref name="Length"/> bytes long.</summary>
internal readonly record struct ByteRange(long Offset, long Length)
{
    public long End => Offset + Length;

    /// <summary>Whether [offset, offset + length) lies inside a file of <paramref name="fileLength"/> bytes (no overflow).</summary>
    public static bool Fits(long offset, long length, long fileLength)
        => offset >= 0 && length >= 0 && offset <= fileLength && length <= fileLength - offset;

    /// <summary>
    /// Appends a range, or returns <see langword="false"/> (the locate fails) once <paramref name="maxRanges"/> are
    /// held: checked where ranges are added, so a crafted file of millions of empty chunks cannot grow the list
    /// before the limit is seen.
    /// </summary>
    public static bool TryAdd(List<ByteRange> ranges, int maxRanges, long offset, long length)
    {
        if (ranges.Count >= maxRanges)
        {
            return false;
        }

        ranges.Add(new ByteRange(offset, length));
        return true;
    }
}
