using System.Collections.Concurrent;
using Dedup.Core.Enumeration;
using Dedup.Core.IO;

namespace Dedup.Core.Catalog;

/// <summary>
/// Copies: a file whose bytes the comparer found equal, byte for byte, to those of its class's first file read just
/// before (<see cref="IReadObserver.OnRead"/>'s <c>sameAs</c>) takes that file's digest instead of hashing the same
/// bytes again. Measured on the 250k tree: 821 MB of its 1.78 GB hashed in a fleet's first scan were such copies (a
/// local group's files after its first).
/// </summary>
/// <remarks>
/// A copy follows its class's first file chunk by chunk, from its first byte: each of its chunks must be the one that
/// file's hash took last (same offset and length, hashed, not skipped as read again). A copy whose class's first file
/// is not hashed here (its digest is stored), whose chunk differs from it, or whose class's first file changes (its
/// read failed) gets no digest from the compare: it is read and hashed on its own afterwards, as a file the compare did
/// not read whole. Its digest is checked through its own descriptor, as any file's.
/// </remarks>
internal sealed partial class CatalogHasher
{
    private static long s_nextId;

    // The last digest hashed in one piece on this thread, by scan (not a reference: a thread keeps no scan alive): a
    // small file's copies are shown right after it (ProbeStage, LockstepPartitioner).
    [ThreadStatic]
    private static (long Scan, FileIdentity Identity, byte[]? Sha) t_lastWhole;

    private readonly long _id = Interlocked.Increment(ref s_nextId);
    private readonly ConcurrentDictionary<FileIdentity, Follow> _following = new();
    private long _bytesHashed;

    /// <summary>
    /// A copy's first bytes (<paramref name="count"/> at offset 0), equal to <paramref name="sameAs"/>'s there: follows
    /// it, or takes its digest when they are the whole file; <see langword="false"/> when that file's hash did not just
    /// take these bytes (the copy is then hashed on its own).
    /// </summary>
    private bool TryFollow(FileNode node, int count, FileNode sameAs, OpenedFile file)
    {
        var identity = node.Primary.Identity;
        var leader = sameAs.Primary.Identity;
        if (count == node.Primary.Length)
        {
            if (t_lastWhole is not { Sha: { } sha } last || last.Scan != _id || last.Identity != leader)
            {
                return false;
            }

            bool fresh;
            lock (_complete)
            {
                fresh = _complete.Add(identity);
            }

            if (fresh)
            {
                OnCompleted(node, sha, file);
            }

            return true;
        }

        if (!_partial.TryGetValue(leader, out var progress) || !progress.JustFed(0, count))
        {
            return false;
        }

        lock (_complete)
        {
            if (_complete.Contains(identity))
            {
                return true;
            }
        }

        _following[identity] = new Follow(leader, progress) { Next = count };
        return true;
    }

    /// <summary>A following copy's next bytes: still equal to its class's first file's, just hashed there, or it gives up.</summary>
    private void FollowOn(FileNode node, Follow follow, long offset, int count, FileNode? sameAs, OpenedFile file)
    {
        var identity = node.Primary.Identity;
        if (sameAs is null || sameAs.Primary.Identity != follow.Leader || follow.Next != offset || !follow.Progress.JustFed(offset, count))
        {
            _following.TryRemove(identity, out _);
            return;
        }

        follow.Next += count;
        if (follow.Next < node.Primary.Length)
        {
            return;
        }

        _following.TryRemove(identity, out _);
        if (follow.Progress.Sha is not { } sha)
        {
            return;
        }

        bool fresh;
        lock (_complete)
        {
            fresh = _complete.Add(identity);
        }

        if (fresh)
        {
            OnCompleted(node, sha, file);
        }
    }

    /// <summary>A copy following its class's first file (<see cref="Leader"/>) through that file's hash.</summary>
    private sealed class Follow(FileIdentity leader, Progress progress)
    {
        public FileIdentity Leader { get; } = leader;

        public Progress Progress { get; } = progress;

        /// <summary>The offset of the copy's next bytes.</summary>
        public long Next { get; set; }
    }
}
