using Dedup.Core.IO;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Media;

/// <summary>
/// Entry point of media mode: finds the byte ranges of a file's media payload (audio frames, image data,
/// track samples), so files that differ only in tags and metadata can be compared by payload. Returns
/// <see langword="false"/> — compare the whole file — for unknown, unsupported or malformed files; never
/// throws for file content, and the work done is bounded by <see cref="MediaOptions"/>.
/// </summary>
internal static class MediaContent
{
    /// <summary>Locates the payload of the file open as <paramref name="handle"/>.</summary>
    /// <param name="handle">A readable handle; only positional reads are made.</param>
    /// <param name="fileLength">The file's length in bytes.</param>
    /// <param name="format">The format found, <see cref="MediaFormat.None"/> on failure.</param>
    /// <param name="ranges">Cleared, then filled with the payload ranges in canonical order.</param>
    public static bool TryLocate(SafeFileHandle handle, long fileLength, out MediaFormat format, List<ByteRange> ranges)
        => TryLocate(handle, fileLength, MediaOptions.Default, out format, ranges);

    public static bool TryLocate(SafeFileHandle handle, long fileLength, MediaOptions options, out MediaFormat format, List<ByteRange> ranges)
    {
        // Outside a scan (tests, benchmarks): a reader of its own, whose count nobody reads.
        ArgumentNullException.ThrowIfNull(handle);
        using var reader = new FileReader(options.Buffers, new(), trustedIdentities: true);
        return TryLocate(reader, OpenedFile.Of(null, handle), fileLength, options, out format, ranges);
    }

    /// <summary>As above, reading through a scan's <paramref name="reader"/>, which counts the bytes read (a PNG's chunk walk reads the whole file).</summary>
    public static bool TryLocate(FileReader reader, in OpenedFile file, long fileLength, MediaOptions options, out MediaFormat format, List<ByteRange> ranges)
    {
        using var media = new MediaReader(reader, file, fileLength, options);
        return Run(media, out format, ranges);
    }

    /// <summary>The same over bytes in memory.</summary>
    public static bool TryLocate(ReadOnlyMemory<byte> content, MediaOptions options, out MediaFormat format, List<ByteRange> ranges)
    {
        using var reader = new MediaReader(content, options);
        return Run(reader, out format, ranges);
    }

    /// <summary>Total bytes covered by <paramref name="ranges"/>.</summary>
    public static long PayloadLength(List<ByteRange> ranges)
    {
        long total = 0;
        foreach (var range in ranges)
        {
            total += range.Length;
        }

        return total;
    }

    private static bool Run(MediaReader reader, out MediaFormat format, List<ByteRange> ranges)
    {
        ArgumentNullException.ThrowIfNull(ranges);
        ranges.Clear();
        format = MediaFormat.None;
        try
        {
            return RunUnguarded(reader, out format, ranges);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // Defensive: a locator bug or an I/O error means "not located", never a failed scan here.
            ranges.Clear();
            return false;
        }
    }

    /// <summary>The work of <see cref="TryLocate(SafeFileHandle, long, out MediaFormat, List{ByteRange})"/> without its
    /// exception guard: the robustness tests call this to prove the locators themselves never throw.</summary>
    internal static bool RunUnguarded(MediaReader reader, out MediaFormat format, List<ByteRange> ranges)
    {
        ranges.Clear();
        format = MediaFormat.None;
        var locator = reader.Length > 0 ? MediaDetector.Detect(reader) : null;
        if (locator is null || !locator.TryLocate(reader, ranges) || reader.Exhausted || !TryNormalize(ranges, reader.Length, reader.Options))
        {
            ranges.Clear();
            return false;
        }

        format = locator.Format;
        return true;
    }

    /// <summary>Checks every range lies in the file, drops empty ones and merges ranges that continue each other.</summary>
    internal static bool TryNormalize(List<ByteRange> ranges, long fileLength, MediaOptions options)
    {
        if (ranges.Count == 0 || ranges.Count > options.MaxRanges)
        {
            return false;
        }

        var kept = 0;
        for (var i = 0; i < ranges.Count; i++)
        {
            var range = ranges[i];
            if (!ByteRange.Fits(range.Offset, range.Length, fileLength))
            {
                return false;
            }

            if (range.Length == 0)
            {
                continue;
            }

            if (kept > 0 && ranges[kept - 1].End == range.Offset)
            {
                ranges[kept - 1] = ranges[kept - 1] with { Length = ranges[kept - 1].Length + range.Length };
            }
            else
            {
                ranges[kept++] = range;
            }
        }

        ranges.RemoveRange(kept, ranges.Count - kept);
        return kept > 0;
    }
}
