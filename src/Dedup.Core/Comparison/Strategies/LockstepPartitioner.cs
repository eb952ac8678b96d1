using Dedup.Core.Comparison.Hashing;

namespace Dedup.Core.Comparison.Strategies;

/// <summary>How a chunk is matched to the chunks of the classes found so far.</summary>
internal enum ChunkMatchMode
{
    /// <summary>Naive byte loop against each class representative.</summary>
    Bytewise,

    /// <summary>Vectorized compare against each class representative.</summary>
    Vectorized,

    /// <summary>
    /// Compare with the first class's chunk; only a chunk that differs from it is hashed to find its class among
    /// the others, then confirmed by bytes. With trusted 128-bit+ hashes every chunk is hashed and a hash match
    /// stands for equal bytes.
    /// </summary>
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
        // Shown to the scan once compared, with the class's first file when the bytes equal its own (not when a hash
        // stood for them): a catalog scan then hashes each class's bytes once, not once per copy.
        var copies = set.ObservesCopies;
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
                    if (!(copies ? set.TryReadUnobserved(index, offset, data) : set.TryRead(index, offset, data)))
                    {
                        set.Buffers.Return(buffer);
                        continue;
                    }

                    var match = FindMatch(reps, data, mode, trusted, hashAlgorithm, out var hash);
                    if (copies)
                    {
                        set.Observe(index, offset, data, match >= 0 && !trusted ? reps[match].Members[0] : -1);
                    }

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

    /// <summary>The index of the class whose chunk equals the data, or -1; the hash is the chunk's when it was computed.</summary>
    private static int FindMatch(List<Representative> reps, ReadOnlySpan<byte> data, ChunkMatchMode mode, bool trusted, DuplicateHashAlgorithm algorithm, out ContentHash? hash)
    {
        hash = null;
        if (mode == ChunkMatchMode.HashIndexed && trusted)
        {
            // Trusted hashes: a hash match stands for equal bytes, so every chunk is hashed.
            var own = ContentHash.Compute(algorithm, data);
            hash = own;
            for (var r = 0; r < reps.Count; r++)
            {
                if (reps[r].Hash == own)
                {
                    return r;
                }
            }

            return -1;
        }

        if (mode == ChunkMatchMode.HashIndexed)
        {
            // Most chunks of a class that is still together equal its first class's chunk: one vectorized compare,
            // no hashing (hashing each chunk as well cost 1.5x the compare alone on identical large files).
            // Only a chunk that differs is hashed to find its class among the others, each confirmed by bytes.
            if (reps.Count == 0 || BufferComparison.Vectorized(reps[0].Data(data.Length), data))
            {
                return reps.Count == 0 ? -1 : 0;
            }

            if (reps.Count == 1)
            {
                return -1;
            }

            var own = ContentHash.Compute(algorithm, data);
            hash = own;
            for (var r = 1; r < reps.Count; r++)
            {
                var rep = reps[r];
                rep.Hash ??= ContentHash.Compute(algorithm, rep.Data(data.Length));
                if (rep.Hash == own && BufferComparison.Vectorized(rep.Data(data.Length), data))
                {
                    return r;
                }
            }

            return -1;
        }

        for (var r = 0; r < reps.Count; r++)
        {
            var repData = reps[r].Data(data.Length);
            var equal = mode == ChunkMatchMode.Bytewise
                ? BufferComparison.Bytewise(repData, data)
                : BufferComparison.Vectorized(repData, data);
            if (equal)
            {
                return r;
            }
        }

        return -1;
    }

    /// <summary>A class's first file's chunk; its hash is computed only when a chunk must be looked up by hash.</summary>
    private sealed class Representative(byte[] buffer, ContentHash? hash, List<int> members)
    {
        public byte[] Buffer { get; } = buffer;

        public ContentHash? Hash { get; set; } = hash;

        public List<int> Members { get; } = members;

        public ReadOnlySpan<byte> Data(int length) => Buffer.AsSpan(0, length);
    }
}
