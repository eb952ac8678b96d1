using Dedup.Core.Comparison.Hashing;

namespace Dedup.Core.Comparison.Strategies;

/// <summary>How a chunk is matched to the chunks of the classes found so far.</summary>
internal enum ChunkMatchMode
{
    /// <summary>Naive byte loop against each class representative.</summary>
    Bytewise,

    /// <summary>Vectorized compare against each class representative.</summary>
    Vectorized,

    /// <summary>Hash the chunk to find its class, then confirm bytes (unless hashes are trusted).</summary>
    HashIndexed,
}

/// <summary>
/// Reads all files of a set chunk by chunk in step and splits them into classes of equal content as it
/// goes: each file is read once, a file leaves as soon as it differs from every other, and the result
/// is exact because every chunk is compared with its class representative's bytes.
/// </summary>
internal static class LockstepPartitioner
{
    /// <summary>The most files read in step (bounds open handles and buffer memory).</summary>
    public const int MaxFiles = 64;

    private const int MaxChunk = 128 * 1024;

    public static void Partition(ComparisonSet set, List<int> members, ChunkMatchMode mode, CancellationToken cancellationToken)
    {
        // Trusted chunk hashes use the user's algorithm (SHA-256 stays cryptographic); the 64-bit XXH3 is
        // only ever an index into the classes, confirmed by bytes.
        var trusted = mode == ChunkMatchMode.HashIndexed && set.TrustHashes && set.HashAlgorithm != DuplicateHashAlgorithm.XxHash3;
        var hashAlgorithm = trusted ? set.HashAlgorithm : DuplicateHashAlgorithm.XxHash3;
        var chunk = (int)Math.Min(Math.Min(set.ChunkSize, MaxChunk), Math.Max(1, set.Length));
        var classes = new List<List<int>> { members };
        var reps = new List<Representative>();
        long offset = 0;
        while (classes.Count > 0 && offset < set.Length)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var length = (int)Math.Min(chunk, set.Length - offset);
            var next = new List<List<int>>();
            foreach (var cls in classes)
            {
                reps.Clear();
                foreach (var index in cls)
                {
                    var buffer = set.Buffers.Rent(length);
                    var data = buffer.AsSpan(0, length);
                    if (!set.TryRead(index, offset, data))
                    {
                        set.Buffers.Return(buffer);
                        continue;
                    }

                    var hash = mode == ChunkMatchMode.HashIndexed ? ContentHash.Compute(hashAlgorithm, data) : default;
                    var match = FindMatch(reps, data, hash, mode, trusted, length);
                    if (match >= 0)
                    {
                        reps[match].Members.Add(index);
                        set.Buffers.Return(buffer);
                    }
                    else
                    {
                        reps.Add(new Representative(buffer, hash, [index]));
                    }
                }

                foreach (var rep in reps)
                {
                    set.Buffers.Return(rep.Buffer);
                    if (rep.Members.Count >= 2)
                    {
                        next.Add(rep.Members);
                    }
                    else
                    {
                        set.Release(rep.Members[0]);
                    }
                }
            }

            classes = next;
            offset += length;
        }

        foreach (var cls in classes)
        {
            if (cls.Count >= 2)
            {
                set.AddGroup(cls.ToArray(), verifiedByBytes: !trusted);
            }

            foreach (var index in cls)
            {
                set.Release(index);
            }
        }
    }

    private static int FindMatch(List<Representative> reps, ReadOnlySpan<byte> data, ContentHash hash, ChunkMatchMode mode, bool trusted, int length)
    {
        for (var r = 0; r < reps.Count; r++)
        {
            var rep = reps[r];
            var repData = rep.Buffer.AsSpan(0, length);
            var equal = mode switch
            {
                ChunkMatchMode.Bytewise => BufferComparison.Bytewise(repData, data),
                ChunkMatchMode.Vectorized => BufferComparison.Vectorized(repData, data),
                _ => rep.Hash == hash && (trusted || BufferComparison.Vectorized(repData, data)),
            };
            if (equal)
            {
                return r;
            }
        }

        return -1;
    }

    private readonly record struct Representative(byte[] Buffer, ContentHash Hash, List<int> Members);
}
