using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core.Scanning;

/// <summary>One distinct file (identity) among the candidates, with every name the scan found for it.</summary>
internal sealed class FileNode
{
    public FileNode(ScannedFile primary, Media.ByteRange[]? ranges = null, Media.MediaFormat format = Media.MediaFormat.None)
    {
        Primary = primary;
        Ranges = ranges;
        Format = format;
        if (ranges is null)
        {
            ContentLength = primary.Length;
            return;
        }

        // Cumulative starts let a logical content offset find its range by binary search.
        RangeStarts = new long[ranges.Length];
        long total = 0;
        for (var i = 0; i < ranges.Length; i++)
        {
            RangeStarts[i] = total;
            total += ranges[i].Length;
        }

        ContentLength = total;
    }

    /// <summary>The name used to open the file (the first one found).</summary>
    public ScannedFile Primary { get; }

    /// <summary>In media mode, the payload's byte ranges in the file; <see langword="null"/> for whole-file content.</summary>
    public Media.ByteRange[]? Ranges { get; }

    /// <summary>Logical start of each range within the payload.</summary>
    public long[]? RangeStarts { get; }

    /// <summary>The detected media format (media mode only).</summary>
    public Media.MediaFormat Format { get; }

    /// <summary>The length of the compared content: the payload in media mode, else the file.</summary>
    public long ContentLength { get; }

    /// <summary>
    /// Set when the file dropped out of the scan (unreadable, vanished or changed; its error was reported): the
    /// comparison sets skip it, and media mode leaves it out of the payload stage.
    /// </summary>
    public bool Dropped { get; set; }

    /// <summary>
    /// Media mode, first stage: a PNG's chunk list followed through the comparison's own reads, so a copy read whole
    /// needs no second pass to locate its payload.
    /// </summary>
    public Media.PngChunkStream? PngStream { get; set; }

    /// <summary>Physical offset of the first extent (rotational disks only), or -1 when unknown.</summary>
    public long PhysicalOffset { get; set; } = -1;

    /// <summary>Further names of the same file (hard links), or <see langword="null"/>.</summary>
    public List<AbsolutePath>? OtherNames { get; private set; }

    /// <summary>Maps a payload offset to the file offset and the bytes left in that range.</summary>
    public (long FileOffset, long Available) MapOffset(long contentOffset)
    {
        if (Ranges is null)
        {
            return (contentOffset, Primary.Length - contentOffset);
        }

        var index = RangeIndex(contentOffset);
        var within = contentOffset - RangeStarts![index];
        return (Ranges[index].Offset + within, Ranges[index].Length - within);
    }

    /// <summary>
    /// The physical length to read from <paramref name="contentOffset"/>'s position so that it covers the
    /// following ranges while each gap between them is at most <paramref name="maxGap"/> bytes, up to
    /// <paramref name="wanted"/> payload bytes and <paramref name="maxSpan"/> file bytes.
    /// </summary>
    public long CoalescedSpan(long contentOffset, long wanted, long maxSpan, long maxGap)
    {
        if (Ranges is null)
        {
            return Math.Min(wanted, maxSpan);
        }

        var index = RangeIndex(contentOffset);
        var start = Ranges[index].Offset + (contentOffset - RangeStarts![index]);
        var end = Ranges[index].End;
        var covered = end - start;
        while (covered < wanted && ++index < Ranges.Length)
        {
            var next = Ranges[index];
            if (next.Offset < end || next.Offset - end > maxGap || next.End - start > maxSpan)
            {
                break;
            }

            covered += next.Length;
            end = next.End;
        }

        return Math.Min(end - start, maxSpan);
    }

    /// <summary>The index of the range holding a payload offset.</summary>
    private int RangeIndex(long contentOffset)
    {
        var index = Array.BinarySearch(RangeStarts!, contentOffset);
        return index < 0 ? ~index - 1 : index;
    }

    public void AddName(AbsolutePath path)
    {
        if (path.Equals(Primary.Path) || (OtherNames?.Contains(path) ?? false))
        {
            return; // Overlapping roots list the same name twice.
        }

        (OtherNames ??= []).Add(path);
    }

    /// <summary>The change time the last check before reporting saw (Linux), for reports; <see cref="DateTime.MinValue"/> until then.</summary>
    public DateTime LastChangeTimeUtc { get; set; }

    public DuplicateFile ToDuplicateFile()
    {
        var file = Primary;
        if (OtherNames is null)
        {
            return new DuplicateFile(file.Path, [], file.Identity, file.Length, file.LinkCount, file.LastWriteTimeUtc) { LastChangeTimeUtc = LastChangeTimeUtc };
        }

        var names = new List<AbsolutePath>(OtherNames.Count + 1) { file.Path };
        names.AddRange(OtherNames);
        names.Sort();
        return new DuplicateFile(names[0], names.GetRange(1, names.Count - 1), file.Identity, file.Length, file.LinkCount, file.LastWriteTimeUtc) { LastChangeTimeUtc = LastChangeTimeUtc };
    }
}
