using Dedup.Core.Media;

namespace Dedup.Core.Scanning;

/// <summary>
/// Media mode's first stage, as the scan's read observer: feeds a PNG's bytes to its chunk walk as they are read for
/// comparison (small files read whole, comparer strategies), so a copy read whole needs no second pass to locate its
/// payload. Payload reads (the node already has its ranges) are not followed.
/// </summary>
internal sealed class PngFollower(MediaOptions options) : IReadObserver
{
    /// <summary>Ranges the followed chunk lists may hold at once (64 MiB of ranges).</summary>
    private readonly RangeBudget _ranges = new(4L << 20);

    public void OnRead(FileNode node, long offset, ReadOnlySpan<byte> bytes)
    {
        if (node.Ranges is not null)
        {
            return;
        }

        if (node.PngStream is null && PngChunkStream.Starts(offset, bytes))
        {
            node.PngStream = new PngChunkStream(node.Primary.Length, options, _ranges);
        }

        node.PngStream?.Feed(offset, bytes);
    }
}
