namespace Dedup.Core.Media;

/// <summary>A span of a file's bytes: <paramref name="Offset"/> from the start, <paramref name="Length"/> bytes long.</summary>
internal readonly record struct ByteRange(long Offset, long Length)
{
    public long End => Offset + Length;
}
