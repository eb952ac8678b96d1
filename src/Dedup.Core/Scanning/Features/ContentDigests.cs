using System.Collections.Concurrent;
using Dedup.Core.Comparison.Hashing;
using Dedup.Core.IO;

namespace Dedup.Core.Scanning.Features;

/// <summary>
/// The whole-content digests the comparer makes with the scan's algorithm, held by file until the feature that declared
/// it (<see cref="ScanFeature.Digests"/>) takes them; nothing is held until that feature opens it.
/// </summary>
internal sealed class ContentDigests
{
    private readonly ConcurrentDictionary<FileNode, ContentHash> _digests = new();
    private int _held; // how many _digests holds: while none, TryTake looks nothing up (most files are never hashed)
    private volatile bool _open;

    /// <summary>Starts keeping digests (once the feature knows it will use them).</summary>
    public void Open() => _open = true;

    /// <summary>Keeps <paramref name="file"/>'s digest, replacing an earlier one; nothing while not open.</summary>
    public void Note(FileNode file, ContentHash digest)
    {
        if (!_open)
        {
            return;
        }

        if (_digests.TryAdd(file, digest))
        {
            Interlocked.Increment(ref _held);
        }
        else
        {
            _digests[file] = digest;
        }
    }

    /// <summary>Takes (and lets go of) <paramref name="file"/>'s digest, if one is held.</summary>
    public bool TryTake(FileNode file, out ContentHash digest)
    {
        digest = default;
        if (Volatile.Read(ref _held) == 0 || !_digests.TryRemove(file, out digest))
        {
            return false;
        }

        Interlocked.Decrement(ref _held);
        return true;
    }
}
