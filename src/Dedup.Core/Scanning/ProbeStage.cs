using Dedup.Core.Comparison.Hashing;

namespace Dedup.Core.Scanning;

/// <summary>
/// Tells same-size candidates apart by reading as little as possible, each file opened once. Files up to
/// <see cref="WholeReadLimit"/> bytes are read whole and settled here, exactly (bytes compared with each
/// class representative). Larger files are split by a prefix and, from <see cref="SuffixFrom"/> bytes, a
/// suffix probe through the same handle; the survivors go to the comparer strategy. Large sets are read
/// by several threads (files are independent here), unless the device admits one reader.
/// </summary>
internal static class ProbeStage
{
    public const int ProbeSize = 4096;
    public const int WholeReadLimit = 8192;
    public const long SuffixFrom = 64 * 1024;

    /// <summary>Sets smaller than this are read on the calling thread.</summary>
    private const int ParallelFrom = 64;

    /// <summary>
    /// Memory allowed for the small files' bytes when settling them in memory. Larger sets are hashed and
    /// their colliding members confirmed by the strategy: a bigger arena only grows the pool's retained
    /// arrays (every power of two up to it, per thread), measured as peak RSS.
    /// </summary>
    private const long SmallFileBudget = 1024 * 1024;

    /// <summary>
    /// Splits <paramref name="set"/>: groups settled exactly go to <see cref="Comparison.ComparisonSet.AddGroup"/>,
    /// buckets still to compare to <paramref name="unsettled"/>.
    /// </summary>
    public static void Run(FileComparisonSet set, int readers, List<List<int>> unsettled, CancellationToken cancellationToken)
    {
        if (set.Length <= WholeReadLimit)
        {
            RunWhole(set, readers, unsettled, cancellationToken);
        }
        else
        {
            RunPrefixSuffix(set, readers, unsettled, cancellationToken);
        }
    }

    private static void ForEachFile(FileComparisonSet set, int readers, CancellationToken cancellationToken, Action<int> body)
    {
        if (set.Count < ParallelFrom || readers <= 1)
        {
            for (var i = 0; i < set.Count; i++)
            {
                cancellationToken.ThrowIfCancellationRequested();
                body(i);
            }

            return;
        }

        Parallel.For(0, set.Count, new ParallelOptions { MaxDegreeOfParallelism = readers, CancellationToken = cancellationToken }, body);
    }

    private static void RunWhole(FileComparisonSet set, int readers, List<List<int>> unsettled, CancellationToken cancellationToken)
    {
        var length = (int)set.Length;
        var keepBytes = (long)set.Count * length <= SmallFileBudget;
        var hashes = new ulong[set.Count];
        var ok = new bool[set.Count];
        var arena = keepBytes ? set.Buffers.Rent(Math.Max(1, set.Count * length)) : null;
        try
        {
            ForEachFile(set, readers, cancellationToken, i =>
            {
                var buffer = arena is null ? set.Buffers.Rent(Math.Max(1, length)) : null;
                var data = arena is null ? buffer.AsSpan(0, length) : arena.AsSpan(i * length, length);
                ok[i] = ContentReader.TryRead(set[i], set.State, 0, data, 0, default, set.RecordPhysicalOffsets);
                if (ok[i])
                {
                    hashes[i] = XxHash3.HashToUInt64(data);
                }

                if (buffer is not null)
                {
                    set.Buffers.Return(buffer);
                }
            });

            if (set.Count == 2)
            {
                SettlePair(set, ok, hashes[0] == hashes[1] && (arena is null || arena.AsSpan(0, length).SequenceEqual(arena.AsSpan(length, length))), arena is not null, unsettled);
                return;
            }

            // Classes: same hash, then (when the bytes are at hand) same bytes as the class representative.
            var classes = new Dictionary<ulong, List<List<int>>>();
            for (var i = 0; i < set.Count; i++)
            {
                if (!ok[i])
                {
                    set.MarkFailed(i);
                    continue;
                }

                if (!classes.TryGetValue(hashes[i], out var list))
                {
                    classes[hashes[i]] = list = [];
                }

                var placed = false;
                foreach (var members in list)
                {
                    if (arena is null || arena.AsSpan(i * length, length).SequenceEqual(arena.AsSpan(members[0] * length, length)))
                    {
                        members.Add(i);
                        placed = true;
                        break;
                    }
                }

                if (!placed)
                {
                    list.Add([i]);
                }
            }

            foreach (var list in classes.Values)
            {
                foreach (var members in list)
                {
                    if (members.Count < 2)
                    {
                        continue;
                    }

                    if (arena is not null)
                    {
                        set.AddGroup(members.ToArray(), verifiedByBytes: true);
                    }
                    else
                    {
                        unsettled.Add(members);
                    }
                }
            }
        }
        finally
        {
            if (arena is not null)
            {
                set.Buffers.Return(arena);
            }
        }
    }

    private static void RunPrefixSuffix(FileComparisonSet set, int readers, List<List<int>> unsettled, CancellationToken cancellationToken)
    {
        var withSuffix = set.Length >= SuffixFrom;
        var keys = new ContentHash[set.Count];
        var ok = new bool[set.Count];
        ForEachFile(set, readers, cancellationToken, i =>
        {
            var buffer = set.Buffers.Rent(ProbeSize * 2);
            try
            {
                var prefix = buffer.AsSpan(0, ProbeSize);
                var suffix = withSuffix ? buffer.AsSpan(ProbeSize, ProbeSize) : default;
                ok[i] = ContentReader.TryRead(set[i], set.State, 0, prefix, set.Length - ProbeSize, suffix, set.RecordPhysicalOffsets, probe: true);
                if (ok[i])
                {
                    keys[i] = new ContentHash(XxHash3.HashToUInt64(prefix), withSuffix ? XxHash3.HashToUInt64(suffix) : 0);
                }
            }
            finally
            {
                set.Buffers.Return(buffer);
            }
        });

        if (set.Count == 2)
        {
            SettlePair(set, ok, keys[0] == keys[1], settled: false, unsettled);
            return;
        }

        var buckets = new Dictionary<ContentHash, List<int>>();
        for (var i = 0; i < set.Count; i++)
        {
            if (!ok[i])
            {
                set.MarkFailed(i);
                continue;
            }

            if (!buckets.TryGetValue(keys[i], out var bucket))
            {
                buckets[keys[i]] = bucket = [];
            }

            bucket.Add(i);
        }

        foreach (var bucket in buckets.Values)
        {
            if (bucket.Count >= 2)
            {
                unsettled.Add(bucket);
            }
        }
    }

    /// <summary>
    /// Most candidate sets are pairs; they are settled here without the class tables, whose dictionaries and lists
    /// were a large share of a scan's short-lived allocations (and so of its peak memory).
    /// </summary>
    private static void SettlePair(FileComparisonSet set, bool[] ok, bool same, bool settled, List<List<int>> unsettled)
    {
        for (var i = 0; i < 2; i++)
        {
            if (!ok[i])
            {
                set.MarkFailed(i);
            }
        }

        if (ok[0] && ok[1] && same)
        {
            if (settled)
            {
                set.AddGroup([0, 1], verifiedByBytes: true);
            }
            else
            {
                unsettled.Add([0, 1]);
            }
        }
    }
}
