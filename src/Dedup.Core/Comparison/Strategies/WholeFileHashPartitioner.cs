using Dedup.Core.Comparison.Hashing;

namespace Dedup.Core.Comparison.Strategies;

/// <summary>
/// Hashes each file whole, one file at a time (one open handle), groups by digest, then confirms each
/// group byte for byte unless the user trusts 128-bit hashes.
/// </summary>
internal static class WholeFileHashPartitioner
{
    private const int HashChunk = 1024 * 1024;

    public static void Partition(ComparisonSet set, List<int> members, CancellationToken cancellationToken)
    {
        var buckets = new Dictionary<ContentHash, List<int>>();
        var chunk = (int)Math.Min(Math.Max(set.ChunkSize, HashChunk), Math.Max(1, set.Length));
        var buffer = set.Buffers.Rent(chunk);
        using (var hasher = new IncrementalContentHasher(set.HashAlgorithm))
        {
            try
            {
                foreach (var index in members)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    var ok = true;
                    for (long offset = 0; offset < set.Length && ok; offset += chunk)
                    {
                        var length = (int)Math.Min(chunk, set.Length - offset);
                        ok = set.TryRead(index, offset, buffer.AsSpan(0, length));
                        if (ok)
                        {
                            hasher.Append(buffer.AsSpan(0, length));
                        }
                    }

                    var digest = hasher.Finish();
                    set.Release(index);
                    if (!ok)
                    {
                        continue;
                    }

                    set.OnContentDigest(index, digest);

                    if (!buckets.TryGetValue(digest, out var bucket))
                    {
                        buckets[digest] = bucket = [];
                    }

                    bucket.Add(index);
                }
            }
            finally
            {
                set.Buffers.Return(buffer);
            }
        }

        var trusted = set.TrustHashes && set.HashAlgorithm != DuplicateHashAlgorithm.XxHash3;
        foreach (var bucket in buckets.Values)
        {
            if (bucket.Count < 2)
            {
                continue;
            }

            if (trusted)
            {
                set.AddGroup(bucket.ToArray(), verifiedByBytes: false);
            }
            else if (bucket.Count <= LockstepPartitioner.MaxFiles)
            {
                LockstepPartitioner.Partition(set, bucket, ChunkMatchMode.Vectorized, cancellationToken);
            }
            else
            {
                PairwisePartitioner.Partition(set, bucket, ChunkMatchMode.Vectorized, cancellationToken);
            }
        }
    }
}
