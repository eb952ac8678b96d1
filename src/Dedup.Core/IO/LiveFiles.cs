using System.Collections.Concurrent;

namespace Dedup.Core.IO;

/// <summary>
/// Which of one scan's files are still in it. A file drops out when a stage finds it unreadable, vanished or changed
/// (its error reported where that was found); the comparison sets skip it, and the cache, the catalog and media leave
/// it out. Created with the scan's context and written only through it (<see cref="Drop"/>): a node carries no flag,
/// so a node built outside a scan (a test's, the catalog's one-file hash) is in no scan's record.
/// </summary>
/// <remarks>
/// A set of the dropped nodes, not a flag or a bit per file: drops are rare (each is a reported error), so most scans
/// never add one and <see cref="IsDropped"/> is one read of a counter; a scan that drops files holds those nodes till
/// it ends, as its error list holds their errors. By node, not by identity: media's payload node of a file drops out on
/// its own, before the file's member node does.
/// </remarks>
internal sealed class LiveFiles
{
    private readonly ConcurrentDictionary<FileNode, byte> _dropped = new(ReferenceEqualityComparer.Instance);
    private int _count;

    /// <summary>How many nodes dropped out so far.</summary>
    public int DroppedCount => Volatile.Read(ref _count);

    /// <summary>Drops <paramref name="node"/> out of the scan; once dropped, it stays out.</summary>
    public void Drop(FileNode node)
    {
        if (_dropped.TryAdd(node, 0))
        {
            Interlocked.Increment(ref _count);
        }
    }

    /// <summary>Whether <paramref name="node"/> dropped out of the scan.</summary>
    public bool IsDropped(FileNode node) => Volatile.Read(ref _count) != 0 && _dropped.ContainsKey(node);

    /// <summary>Whether <paramref name="node"/> is still in the scan (not <see cref="IsDropped"/>).</summary>
    public bool IsLive(FileNode node) => !IsDropped(node);
}
