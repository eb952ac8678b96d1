using Dedup.Core.Comparison;
using Dedup.Core.Comparison.Hashing;

namespace Dedup.Core.Scanning;

/// <summary>
/// Tells same-size candidates apart by reading as little as possible. Files up to
/// <see cref="WholeReadLimit"/> bytes are read whole once and settled here, exactly (bytes compared with
/// each class representative). Larger files are split by a prefix and, from <see cref="SuffixFrom"/>
/// bytes, a suffix probe read through the same open handle; the survivors go to the comparer strategy.
/// </summary>
internal static class ProbeStage
{
    public const int ProbeSize = 4096;
    public const int WholeReadLimit = 8192;
    public const long SuffixFrom = 64 * 1024;

    /// <summary>Memory allowed for representatives' bytes when settling small files in memory.</summary>
    private const long SmallFileBudget = 16L * 1024 * 1024;

    /// <summary>
    /// Splits <paramref name="set"/>: groups settled exactly go to <see cref="ComparisonSet.AddGroup"/>,
    /// buckets still to compare to <paramref name="unsettled"/>.
    /// </summary>
    public static void Run(FileComparisonSet set, List<List<int>> unsettled, CancellationToken cancellationToken)
    {
        var length = set.Length;
        if (length <= WholeReadLimit)
        {
            RunWhole(set, unsettled, cancellationToken);
        }
        else
        {
            RunPrefixSuffix(set, unsettled, cancellationToken);
        }
    }

    private static void RunWhole(FileComparisonSet set, List<List<int>> unsettled, CancellationToken cancellationToken)
    {
        var length = (int)set.Length;
        var keepBytes = (long)set.Count * length <= SmallFileBudget;
        var buffer = set.Buffers.Rent(length);
        var classes = new Dictionary<ulong, List<(byte[]? Bytes, List<int> Members)>>();
        try
        {
            for (var i = 0; i < set.Count; i++)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var data = buffer.AsSpan(0, length);
                var ok = set.TryRead(i, 0, data);
                set.Release(i);
                if (!ok)
                {
                    continue;
                }

                var hash = XxHash3.HashToUInt64(data);
                if (!classes.TryGetValue(hash, out var list))
                {
                    classes[hash] = list = [];
                }

                var placed = false;
                foreach (var (bytes, members) in list)
                {
                    if (bytes is null || data.SequenceEqual(bytes))
                    {
                        members.Add(i);
                        placed = true;
                        break;
                    }
                }

                if (!placed)
                {
                    list.Add((keepBytes ? data.ToArray() : null, [i]));
                }
            }
        }
        finally
        {
            set.Buffers.Return(buffer);
        }

        foreach (var list in classes.Values)
        {
            foreach (var (bytes, members) in list)
            {
                if (members.Count < 2)
                {
                    continue;
                }

                if (bytes is not null)
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

    private static void RunPrefixSuffix(FileComparisonSet set, List<List<int>> unsettled, CancellationToken cancellationToken)
    {
        var withSuffix = set.Length >= SuffixFrom;
        var buffer = set.Buffers.Rent(ProbeSize * 2);
        var buckets = new Dictionary<ContentHash, List<int>>();
        try
        {
            for (var i = 0; i < set.Count; i++)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var prefix = buffer.AsSpan(0, ProbeSize);
                var suffix = buffer.AsSpan(ProbeSize, ProbeSize);
                var ok = set.TryRead(i, 0, prefix) && (!withSuffix || set.TryRead(i, set.Length - ProbeSize, suffix));
                set.Release(i);
                if (!ok)
                {
                    continue;
                }

                var key = new ContentHash(XxHash3.HashToUInt64(prefix), withSuffix ? XxHash3.HashToUInt64(suffix) : 0);
                if (!buckets.TryGetValue(key, out var bucket))
                {
                    buckets[key] = bucket = [];
                }

                bucket.Add(i);
            }
        }
        finally
        {
            set.Buffers.Return(buffer);
        }

        foreach (var bucket in buckets.Values)
        {
            if (bucket.Count >= 2)
            {
                unsettled.Add(bucket);
            }
        }
    }
}
