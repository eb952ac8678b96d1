using System.Collections.Concurrent;
using Dedup.Core.IO;
using Dedup.Core.Scanning;

namespace Dedup.Core.Media.Pipeline;

/// <summary>
/// Media mode's first stage, as the scan's read observer: feeds a PNG's bytes to its chunk walk as they are read for
/// comparison (small files read whole, comparer strategies), so a copy read whole needs no second pass to locate its
/// payload. The walks are kept here, by node, so the whole-file types hold no PNG state; the payload stage takes
/// each class's walks when it locates the class.
/// </summary>
internal sealed class PngFollower(MediaOptions options) : IReadObserver
{
    /// <summary>Ranges the followed chunk lists may hold at once (64 MiB of ranges).</summary>
    private readonly RangeBudget _ranges = new(4L << 20);

    private readonly ConcurrentDictionary<FileNode, PngChunkStream> _streams = new(ReferenceEqualityComparer.Instance);

    private readonly MediaOptions _options = options;

    public bool TakesCopies => false;

    public void OnRead(FileNode node, long offset, ReadOnlySpan<byte> bytes, OpenedFile file, FileNode? sameAs)
    {
        if (!_streams.TryGetValue(node, out var stream))
        {
            if (!PngChunkStream.Starts(offset, bytes))
            {
                return;
            }

            stream = _streams.GetOrAdd(node, static (n, self) => new PngChunkStream(n.Primary.Length, self._options, self._ranges), this);
        }

        stream.Feed(offset, bytes);
    }

    /// <summary>Removes and returns the chunk walk followed for <paramref name="node"/>, if any; the caller releases it.</summary>
    public PngChunkStream? Take(FileNode node) => _streams.TryRemove(node, out var stream) ? stream : null;
}
