using Dedup.Core.IO;
using Dedup.Core.Scanning;

namespace Dedup.Core.Media.Pipeline;

/// <summary>A located payload: its format and byte ranges in the file, as the content map the reader reads through.</summary>
internal sealed class PayloadMap : IContentMap
{
    private readonly ByteRange[] _ranges;

    /// <summary>Logical start of each range within the payload, so an offset finds its range by binary search.</summary>
    private readonly long[] _starts;

    public PayloadMap(ByteRange[] ranges, MediaFormat format)
    {
        _ranges = ranges;
        Format = format;
        _starts = new long[ranges.Length];
        long total = 0;
        for (var i = 0; i < ranges.Length; i++)
        {
            _starts[i] = total;
            total += ranges[i].Length;
        }

        Length = total;
    }

    public MediaFormat Format { get; }

    public long Length { get; }

    public (long FileOffset, long Available) Map(long contentOffset)
    {
        var index = RangeIndex(contentOffset);
        var within = contentOffset - _starts[index];
        return (_ranges[index].Offset + within, _ranges[index].Length - within);
    }

    public long CoalescedSpan(long contentOffset, long wanted, long maxSpan, long maxGap)
    {
        var index = RangeIndex(contentOffset);
        var start = _ranges[index].Offset + (contentOffset - _starts[index]);
        var end = _ranges[index].End;
        var covered = end - start;
        while (covered < wanted && ++index < _ranges.Length)
        {
            var next = _ranges[index];
            if (next.Offset < end || next.Offset - end > maxGap || next.End - start > maxSpan)
            {
                break;
            }

            covered += next.Length;
            end = next.End;
        }

        return Math.Min(end - start, maxSpan);
    }

    private int RangeIndex(long contentOffset)
    {
        var index = Array.BinarySearch(_starts, contentOffset);
        return index < 0 ? ~index - 1 : index;
    }
}
