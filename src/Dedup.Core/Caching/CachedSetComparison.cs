using Dedup.Core.Comparison;
using Dedup.Core.Comparison.Hashing;
using Dedup.Core.IO;
using Dedup.Core.Scanning;

namespace Dedup.Core.Caching;

/// <summary>
/// One candidate set compared with a <see cref="CacheSession"/>. Files whose stamp is unchanged take their probe key
/// from the cache; the others are probed. Files with distinct keys differ (as without a cache). A bucket of equal keys
/// is settled without reading only when every member is unchanged and all were compared with one another under these
/// very stamps (one partition: same class, equal bytes; different classes, different bytes), or when whole-content
/// digests under unchanged stamps tell them apart (or, with trusted hashes, group them). Any other bucket is compared
/// as without a cache (probe, then the strategy), and what that finds is written back.
/// </summary>
/// <param name="stage">Compares what the cache cannot settle.</param>
/// <param name="cache">The scan's cache.</param>
/// <param name="size">The set's file size.</param>
/// <param name="readers">Further readers of the set's device.</param>
/// <param name="rotational">Whether the set is on a rotational disk.</param>
/// <param name="enterDevices">Takes the set's device tokens; called before the first read only, so a set settled from the cache waits for no reader.</param>
internal sealed class CachedSetComparison(
    WholeFileStage stage, CacheSession cache, long size, ReaderFanOut readers, bool rotational, Func<IDisposable> enterDevices)
{
    private const int ParallelFrom = 64;

    private readonly List<SettledGroup> _found = [];
    private IDisposable? _devices;

    public List<SettledGroup> Run(List<FileNode> files, CancellationToken cancellationToken)
    {
        try
        {
            return Settle(files, cancellationToken);
        }
        finally
        {
            _devices?.Dispose();
        }
    }

    /// <summary>Takes the set's device tokens before its first read (once).</summary>
    private void EnterDevices() => _devices ??= enterDevices();

    private List<SettledGroup> Settle(List<FileNode> files, CancellationToken cancellationToken)
    {
        // Slots into the session's table, not copies of entries: an unchanged rescan allocates little per file.
        var count = files.Count;
        var slots = new int[count];
        var anyHit = false;
        for (var i = 0; i < count; i++)
        {
            slots[i] = cache.Find(files[i]);
            anyHit |= slots[i] >= 0;
        }

        if (!anyHit)
        {
            // The first scan of these files: compared exactly as without a cache, keys kept on the way.
            Compare(files, previous: null, cancellationToken);
            return _found;
        }

        var keys = new ulong[count];
        List<int>? missing = null;
        for (var i = 0; i < count; i++)
        {
            if (slots[i] >= 0)
            {
                keys[i] = cache.Entry(slots[i]).Probe;
            }
            else
            {
                (missing ??= []).Add(i);
            }
        }

        if (missing is not null)
        {
            ProbeMissing(files, missing, keys, cancellationToken);
        }

        var order = new int[count];
        var kept = 0;
        var live = stage.Context.Live;
        for (var i = 0; i < count; i++)
        {
            if (live.IsLive(files[i]))
            {
                order[kept++] = i;
            }
        }

        // By probe key, then (unchanged files) partition and class: a bucket is a run of one key, and within a
        // bucket of one partition each class is a run.
        Array.Sort(order, 0, kept, new KeyOrder(cache, keys, slots));
        for (var start = 0; start < kept;)
        {
            var end = start + 1;
            while (end < kept && keys[order[end]] == keys[order[start]])
            {
                end++;
            }

            if (end - start == 1)
            {
                // Alone with its probe key: different from every other file of the set.
                var only = order[start];
                if (slots[only] < 0)
                {
                    cache.Write(files[only], keys[only], cache.NewId(), cache.NewId());
                }
            }
            else
            {
                SettleBucket(files, order.AsSpan(start, end - start), slots, cancellationToken);
            }

            start = end;
        }

        return _found;
    }

    /// <summary>Reads the probe key of each file the cache could not vouch for; a file that fails drops out.</summary>
    private void ProbeMissing(List<FileNode> files, List<int> missing, ulong[] keys, CancellationToken cancellationToken)
    {
        EnterDevices();
        var subset = missing.ConvertAll(i => files[i]);
        using var set = new FileComparisonSet(subset, size, stage.Context);
        (missing.Count < ParallelFrom ? ReaderFanOut.Single : readers).For(missing.Count, j =>
        {
            if (ProbeStage.TryReadKey(set, j, out var key))
            {
                keys[missing[j]] = key;
            }
            else
            {
                set.MarkFailed(j);
            }
        }, cancellationToken);
    }

    /// <param name="files">The set's files.</param>
    /// <param name="bucket">Indexes into <paramref name="files"/> of equal probe keys, in <see cref="KeyOrder"/>.</param>
    /// <param name="slots">Each file's cache slot, or -1.</param>
    /// <param name="cancellationToken">Cancels reads.</param>
    private void SettleBucket(List<FileNode> files, ReadOnlySpan<int> bucket, int[] slots, CancellationToken cancellationToken)
    {
        foreach (var i in bucket)
        {
            if (slots[i] < 0)
            {
                Compare(files, bucket, slots, cancellationToken);
                return;
            }
        }

        if (TryReplay(files, bucket, slots))
        {
            return;
        }

        var options = stage.Context.Options;
        var digests = new (ContentHash Digest, int Index)[bucket.Length];
        for (var k = 0; k < bucket.Length; k++)
        {
            if (!cache.TryGetDigest(cache.Entry(slots[bucket[k]]), out digests[k].Digest))
            {
                Compare(files, bucket, slots, cancellationToken);
                return;
            }

            digests[k].Index = bucket[k];
        }

        // Different digests of unchanged files prove different bytes; equal ones prove nothing unless hashes are trusted.
        var trusted = options.TrustHashes; // never with the 64-bit XxHash3: Build() refuses that, as for uncached sets
        Array.Sort(digests, static (a, b) => CompareDigests(a.Digest, b.Digest) is var c && c != 0 ? c : a.Index.CompareTo(b.Index));
        for (var start = 0; start < digests.Length;)
        {
            var end = start + 1;
            while (end < digests.Length && digests[end].Digest == digests[start].Digest)
            {
                end++;
            }

            if (end - start >= 2)
            {
                var members = new int[end - start];
                for (var k = start; k < end; k++)
                {
                    members[k - start] = digests[k].Index;
                }

                Array.Sort(members, new KeyOrder(cache, null, slots)); // partition and class runs again for the replay
                if (!TryReplay(files, members, slots))
                {
                    if (trusted)
                    {
                        Publish(files, members, verified: false);
                    }
                    else
                    {
                        Compare(files, members, slots, cancellationToken);
                    }
                }
            }

            start = end;
        }
    }

    /// <summary>
    /// Settles unchanged files that were all compared with one another under their current stamps (one partition):
    /// each class of two or more is a group whose bytes were compared; the classes differ from one another.
    /// </summary>
    /// <param name="files">The set's files.</param>
    /// <param name="bucket">Indexes of unchanged files, classes in runs (<see cref="KeyOrder"/>).</param>
    /// <param name="slots">Each file's cache slot.</param>
    private bool TryReplay(List<FileNode> files, ReadOnlySpan<int> bucket, int[] slots)
    {
        var partition = cache.Entry(slots[bucket[0]]).Partition;
        if (partition <= 0)
        {
            return false;
        }

        foreach (var i in bucket)
        {
            ref readonly var entry = ref cache.Entry(slots[i]);
            if (entry.Partition != partition || entry.Class <= 0)
            {
                return false;
            }
        }

        for (var start = 0; start < bucket.Length;)
        {
            var @class = cache.Entry(slots[bucket[start]]).Class;
            var end = start + 1;
            while (end < bucket.Length && cache.Entry(slots[bucket[end]]).Class == @class)
            {
                end++;
            }

            if (end - start >= 2)
            {
                Publish(files, bucket.Slice(start, end - start), verified: true);
            }

            start = end;
        }

        return true;
    }

    private void Publish(List<FileNode> files, ReadOnlySpan<int> members, bool verified)
    {
        var nodes = new FileNode[members.Length];
        for (var k = 0; k < nodes.Length; k++)
        {
            // The change time the comparison was made under, for reports acted on later.
            var member = files[members[k]];
            member.LastChangeTimeUtc = Enumeration.FileTable.ToDateTime(member.Primary.Stamp.ChangeTimeNs);
            nodes[k] = member;
        }

        _found.Add(new SettledGroup(nodes, verified));
    }

    /// <summary>Compares some of the set's files as without a cache (see the other overload), their cached entries kept where unchanged.</summary>
    private void Compare(List<FileNode> files, ReadOnlySpan<int> members, int[] slots, CancellationToken cancellationToken)
    {
        var subset = new List<FileNode>(members.Length);
        var previous = new List<HashCacheEntry?>(members.Length);
        foreach (var i in members)
        {
            subset.Add(files[i]);
            previous.Add(slots[i] >= 0 ? cache.Entry(slots[i]) : null);
        }

        Compare(subset, previous, cancellationToken);
    }

    /// <summary>
    /// Compares <paramref name="files"/> as without a cache, then writes each file's entry: all of them one new
    /// partition (they were compared with one another), each group a class, each other file a class of its own.
    /// </summary>
    private void Compare(List<FileNode> files, List<HashCacheEntry?>? previous, CancellationToken cancellationToken)
    {
        EnterDevices();
        var keys = new ulong[files.Count];
        var groups = stage.CompareFiles(files, size, maps: null, readers, rotational, keys, cancellationToken);
        _found.AddRange(groups);

        // Groups resting on hashes alone are not byte-verified: such files are kept without a partition.
        var exhaustive = groups.TrueForAll(g => g.Verified);
        var partition = exhaustive ? cache.NewId() : 0;
        var classes = new Dictionary<FileNode, long>();
        foreach (var group in groups)
        {
            var id = cache.NewId();
            foreach (var member in group.Members)
            {
                classes[member] = id;
            }
        }

        var live = stage.Context.Live;
        for (var i = 0; i < files.Count; i++)
        {
            // A dropped file too: Write lets go of its digest and writes nothing.
            var file = files[i];
            var @class = !exhaustive || live.IsDropped(file) ? 0 : classes.TryGetValue(file, out var id) ? id : cache.NewId();
            cache.Write(file, keys[i], partition, @class, previous?[i]);
        }
    }

    private static int CompareDigests(ContentHash a, ContentHash b)
    {
        var c = a.A.CompareTo(b.A);
        c = c != 0 ? c : a.B.CompareTo(b.B);
        c = c != 0 ? c : a.C.CompareTo(b.C);
        return c != 0 ? c : a.D.CompareTo(b.D);
    }

    /// <summary>
    /// Orders a set's indexes by probe key (when given), then, for unchanged files, partition and class, then index;
    /// changed files (no slot) after unchanged ones of the same key.
    /// </summary>
    private sealed class KeyOrder(CacheSession cache, ulong[]? keys, int[] slots) : IComparer<int>
    {
        public int Compare(int x, int y)
        {
            var c = keys is null ? 0 : keys[x].CompareTo(keys[y]);
            if (c != 0)
            {
                return c;
            }

            int sx = slots[x], sy = slots[y];
            if ((sx < 0) != (sy < 0))
            {
                return sx < 0 ? 1 : -1;
            }

            if (sx >= 0)
            {
                ref readonly var a = ref cache.Entry(sx);
                ref readonly var b = ref cache.Entry(sy);
                c = a.Partition.CompareTo(b.Partition);
                if (c == 0)
                {
                    c = a.Class.CompareTo(b.Class);
                }
            }

            return c != 0 ? c : x.CompareTo(y);
        }
    }
}
