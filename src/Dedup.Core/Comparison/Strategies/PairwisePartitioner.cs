namespace Dedup.Core.Comparison.Strategies;

/// <summary>
/// For sets too large to read in step: compares every file with one anchor, pair by pair (two open
/// handles at a time), then repeats with the files that differed. Exact; reads the anchor repeatedly.
/// </summary>
internal static class PairwisePartitioner
{
    public static void Partition(ComparisonSet set, List<int> members, ChunkMatchMode mode, CancellationToken cancellationToken)
    {
        var chunk = (int)Math.Min(set.ChunkSize, Math.Max(1, set.Length));
        var a = set.Buffers.Rent(chunk);
        var b = set.Buffers.Rent(chunk);
        try
        {
            var remaining = members;
            while (remaining.Count >= 2)
            {
                var anchor = remaining[0];
                var same = new List<int> { anchor };
                var different = new List<int>();
                var anchorFailed = false;
                for (var i = 1; i < remaining.Count && !anchorFailed; i++)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    switch (ComparePair(set, anchor, remaining[i], a, b, chunk, mode))
                    {
                        case PairResult.Equal:
                            same.Add(remaining[i]);
                            break;
                        case PairResult.Different:
                            different.Add(remaining[i]);
                            break;
                        case PairResult.AnchorFailed:
                            anchorFailed = true;
                            break;
                        default:
                            set.Release(remaining[i]);
                            break;
                    }
                }

                if (anchorFailed)
                {
                    // Start over without the anchor; files already matched are compared again.
                    remaining = remaining.GetRange(1, remaining.Count - 1);
                    continue;
                }

                if (same.Count >= 2)
                {
                    set.AddGroup(same.ToArray(), verifiedByBytes: true);
                }

                foreach (var index in same)
                {
                    set.Release(index);
                }

                remaining = different;
            }
        }
        finally
        {
            set.Buffers.Return(a);
            set.Buffers.Return(b);
        }
    }

    private static PairResult ComparePair(ComparisonSet set, int anchor, int other, byte[] a, byte[] b, int chunk, ChunkMatchMode mode)
    {
        for (long offset = 0; offset < set.Length; offset += chunk)
        {
            var length = (int)Math.Min(chunk, set.Length - offset);
            if (!set.TryRead(anchor, offset, a.AsSpan(0, length)))
            {
                return PairResult.AnchorFailed;
            }

            if (!set.TryRead(other, offset, b.AsSpan(0, length)))
            {
                return PairResult.OtherFailed;
            }

            var equal = mode == ChunkMatchMode.Bytewise
                ? BufferComparison.Bytewise(a.AsSpan(0, length), b.AsSpan(0, length))
                : BufferComparison.Vectorized(a.AsSpan(0, length), b.AsSpan(0, length));
            if (!equal)
            {
                return PairResult.Different;
            }
        }

        return PairResult.Equal;
    }

    private enum PairResult
    {
        Equal,
        Different,
        AnchorFailed,
        OtherFailed,
    }
}
