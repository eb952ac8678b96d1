using Dedup.Core.Caching;
using Dedup.Core.Comparison;
using Dedup.Core.Comparison.Hashing;

namespace Dedup.Core.Scanning;

/// <summary>
/// One candidate set compared with a <see cref="CacheSession"/>. Files whose stamp is unchanged take their probe key
/// from the cache; the others are probed. Files with distinct keys differ (as without a cache). A bucket of equal keys
/// is settled without reading only when every member is unchanged and all were compared with one another under these
/// very stamps (one partition: same class, equal bytes; different classes, different bytes), or when whole-content
/// digests under unchanged stamps tell them apart (or, with trusted hashes, group them). Any other bucket is compared
/// as without a cache (probe, then the strategy), and what that finds is written back.
/// </summary>
internal sealed class CachedSetComparison(WholeFileStage stage, CacheSession cache, long size, ReaderFanOut readers, bool rotational)
{
    private const int ParallelFrom = 64;

    private readonly List<SettledGroup> _found = [];

    public List<SettledGroup> Run(List<FileNode> files, CancellationToken cancellationToken)
    {
        var count = files.Count;
        var entries = new HashCacheEntry[count];
        var hit = new bool[count];
        var anyHit = false;
        for (var i = 0; i < count; i++)
        {
            hit[i] = cache.TryGet(files[i], out entries[i]);
            anyHit |= hit[i];
        }

        if (!anyHit)
        {
            // The first scan of these files: compared exactly as without a cache, keys kept on the way.
            Compare(files, previous: null, cancellationToken);
            return _found;
        }

        var keys = new ulong[count];
        var missing = new List<int>();
        for (var i = 0; i < count; i++)
        {
            if (hit[i])
            {
                keys[i] = entries[i].Probe;
            }
            else
            {
                missing.Add(i);
            }
        }

        ProbeMissing(files, missing, keys, cancellationToken);

        var order = new List<int>(count);
        for (var i = 0; i < count; i++)
        {
            if (!files[i].Dropped)
            {
                order.Add(i);
            }
        }

        order.Sort((a, b) => keys[a].CompareTo(keys[b]));
        for (var start = 0; start < order.Count;)
        {
            var end = start + 1;
            while (end < order.Count && keys[order[end]] == keys[order[start]])
            {
                end++;
            }

            if (end - start == 1)
            {
                // Alone with its probe key: different from every other file of the set.
                var only = order[start];
                if (!hit[only])
                {
                    cache.Write(files[only], keys[only], cache.NewId(), cache.NewId());
                }
            }
            else
            {
                var bucket = order.GetRange(start, end - start);
                SettleBucket(files, bucket, hit, entries, cancellationToken);
            }

            start = end;
        }

        return _found;
    }

    /// <summary>Reads the probe key of each file the cache could not vouch for; a file that fails drops out.</summary>
    private void ProbeMissing(List<FileNode> files, List<int> missing, ulong[] keys, CancellationToken cancellationToken)
    {
        if (missing.Count == 0)
        {
            return;
        }

        var subset = missing.ConvertAll(i => files[i]);
        using var set = new FileComparisonSet(subset, size, stage.State);
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

    private void SettleBucket(List<FileNode> files, List<int> bucket, bool[] hit, HashCacheEntry[] entries, CancellationToken cancellationToken)
    {
        if (!bucket.TrueForAll(i => hit[i]))
        {
            Compare(bucket.ConvertAll(i => files[i]), bucket.ConvertAll(i => (HashCacheEntry?)(hit[i] ? entries[i] : null)), cancellationToken);
            return;
        }

        if (TryReplay(files, bucket, entries))
        {
            return;
        }

        var options = stage.State.Options;
        var digests = new ContentHash[bucket.Count];
        for (var k = 0; k < bucket.Count; k++)
        {
            if (!cache.TryGetDigest(entries[bucket[k]], out digests[k]))
            {
                Compare(bucket.ConvertAll(i => files[i]), bucket.ConvertAll(i => (HashCacheEntry?)entries[i]), cancellationToken);
                return;
            }
        }

        // Different digests of unchanged files prove different bytes; equal ones prove nothing unless hashes are trusted.
        var trusted = options.TrustHashes && options.HashAlgorithm != DuplicateHashAlgorithm.XxHash3;
        foreach (var same in bucket.Select((index, k) => (index, k)).GroupBy(p => digests[p.k], p => p.index))
        {
            var members = same.ToList();
            if (members.Count < 2 || TryReplay(files, members, entries))
            {
                continue;
            }

            if (trusted)
            {
                Publish(members.ConvertAll(i => files[i]), verified: false);
            }
            else
            {
                Compare(members.ConvertAll(i => files[i]), members.ConvertAll(i => (HashCacheEntry?)entries[i]), cancellationToken);
            }
        }
    }

    /// <summary>
    /// Settles unchanged files that were all compared with one another under their current stamps (one partition):
    /// each class of two or more is a group whose bytes were compared; the classes differ from one another.
    /// </summary>
    private bool TryReplay(List<FileNode> files, List<int> bucket, HashCacheEntry[] entries)
    {
        var partition = entries[bucket[0]].Partition;
        if (partition <= 0 || !bucket.TrueForAll(i => entries[i].Partition == partition && entries[i].Class > 0))
        {
            return false;
        }

        foreach (var same in bucket.GroupBy(i => entries[i].Class))
        {
            var members = same.ToList();
            if (members.Count >= 2)
            {
                Publish(members.ConvertAll(i => files[i]), verified: true);
            }
        }

        return true;
    }

    private void Publish(List<FileNode> members, bool verified)
    {
        foreach (var member in members)
        {
            // The change time the comparison was made under, for reports acted on later.
            member.LastChangeTimeUtc = Enumeration.FileTable.ToDateTime(member.Stamp.ChangeTimeNs);
        }

        _found.Add(new SettledGroup([.. members], verified));
    }

    /// <summary>
    /// Compares <paramref name="files"/> as without a cache, then writes each file's entry: all of them one new
    /// partition (they were compared with one another), each group a class, each other file a class of its own.
    /// </summary>
    private void Compare(List<FileNode> files, List<HashCacheEntry?>? previous, CancellationToken cancellationToken)
    {
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

        for (var i = 0; i < files.Count; i++)
        {
            // A dropped file too: Write lets go of its digest and writes nothing.
            var file = files[i];
            var @class = !exhaustive || file.Dropped ? 0 : classes.TryGetValue(file, out var id) ? id : cache.NewId();
            cache.Write(file, keys[i], partition, @class, previous?[i]);
        }
    }
}
