using Dedup.Core.Comparison;
using Dedup.Core.Comparison.Hashing;

namespace Dedup.Core.Tests.Comparison;

/// <summary>
/// Runs a built-in strategy over a <see cref="FileSet"/> on disk and checks it: the groups are those of the SHA-256
/// digests; verified by bytes unless 128-bit hashes are trusted where the strategy hashes; every buffer returned, no
/// handle left open; and the reads each path makes: in chunks from the start, each byte once where the set is read in
/// step, whole in reads of at least a MiB to hash, no more after hashing where nothing is left to confirm.
/// </summary>
internal static class StrategyChecks
{
    public const int MaxLockstepFiles = 64;
    public const int MaxLockstepChunk = 128 * 1024;
    public const int HashChunk = 1024 * 1024;

    public static IEnumerable<(string Strategy, DuplicateHashAlgorithm Algorithm, bool Trust)> Configurations()
    {
        foreach (var strategy in new[] { "bytewise", "vectorized" })
        {
            yield return (strategy, DuplicateHashAlgorithm.XxHash128, false);
            yield return (strategy, DuplicateHashAlgorithm.Sha256, true);
        }

        foreach (var strategy in new[] { "hash", "hybrid" })
        {
            foreach (var algorithm in new[] { DuplicateHashAlgorithm.XxHash128, DuplicateHashAlgorithm.Sha256, DuplicateHashAlgorithm.XxHash3 })
            {
                yield return (strategy, algorithm, false);
                yield return (strategy, algorithm, true);
            }
        }
    }

    public static void Check(FileSet files, (string Strategy, DuplicateHashAlgorithm Algorithm, bool Trust) configuration, string trial)
    {
        var (strategy, algorithm, trust) = configuration;
        var context = $"{trial}: {strategy}, {algorithm}, trust {trust}; {files.Paths.Count} files of {files.Length} bytes, chunk {files.ChunkSize}";
        var pool = new CountingBufferPool();
        using var set = new DiskComparisonSet(files.Paths, files.Length, algorithm, trust, files.ChunkSize, pool);

        ComparerStrategies.FromName(strategy).Partition(set);

        Assert.True(pool.Outstanding == 0, $"{context}: {pool.Outstanding} buffers not returned");

        Assert.True(files.Expected().SequenceEqual(set.Canonical()), $"{context}: groups [{string.Join(" ", set.Canonical())}], expected [{string.Join(" ", files.Expected())}]");

        var trusted = trust && algorithm != DuplicateHashAlgorithm.XxHash3;
        var count = files.Paths.Count;
        var path = strategy switch
        {
            "bytewise" or "vectorized" => count <= MaxLockstepFiles ? ReadPath.Lockstep : ReadPath.Pairwise,
            "hash" => ReadPath.WholeFileHash,
            _ => count <= MaxLockstepFiles ? ReadPath.Lockstep : ReadPath.WholeFileHash,
        };

        // Groups rest on bytes unless 128-bit or longer hashes are trusted where the strategy hashes (hybrid compares
        // two or three files by bytes alone).
        var hashes = trusted && (strategy == "hash" || (strategy == "hybrid" && count > 3));
        Assert.All(set.Groups, g => Assert.True(g.Verified != hashes, $"{context}: a group verified {g.Verified}"));

        // Pairwise comparison may leave its last file, which it compared with an anchor, to the set's disposal.
        var largeClasses = Enumerable.Range(0, count).Where(i => files.ClassSize(i) > MaxLockstepFiles).Select(files.Digest).Distinct().Count();
        var mayStayOpen = path switch
        {
            ReadPath.Pairwise => 1,
            ReadPath.WholeFileHash when !trusted => largeClasses,
            _ => 0,
        };
        Assert.True(set.OpenAtEnd.Count(o => o) <= mayStayOpen, $"{context}: {set.OpenAtEnd.Count(o => o)} files left open");
        if (mayStayOpen == 0)
        {
            Assert.True(set.MostOpen <= MaxLockstepFiles, $"{context}: {set.MostOpen} files open at once");
        }

        for (var i = 0; i < count; i++)
        {
            Assert.True(set.Released[i] || set.Failed[i] || set.OpenAtEnd[i], $"{context}: file {i} neither released nor failed");
            Assert.True(set.Failed[i] == false || files.Shrunk.Contains(i), $"{context}: file {i} failed but was not shrunk");
            CheckReads(set, files, i, path, algorithm, trusted, context);
        }
    }

    private static void CheckReads(DiskComparisonSet set, FileSet files, int index, ReadPath path, DuplicateHashAlgorithm algorithm, bool trusted, string context)
    {
        var reads = set.Reads[index];
        var length = files.Length;
        var lockstepChunk = (int)Math.Min(Math.Min(files.ChunkSize, MaxLockstepChunk), Math.Max(1, length));
        var pairChunk = (int)Math.Min(files.ChunkSize, Math.Max(1, length));
        var skip = 0;
        if (path == ReadPath.WholeFileHash)
        {
            // First the file whole in reads of at least a MiB, then (untrusted, in a class of two or more) the check.
            var hashChunk = (int)Math.Min(Math.Max(files.ChunkSize, HashChunk), Math.Max(1, length));
            skip = AssertChunked(reads, 0, hashChunk, length, context, index, "hash pass");
            var hashReads = (int)((length + hashChunk - 1) / hashChunk);
            if (files.Shrunk.Contains(index))
            {
                // A shrunk file fails in the hash pass: no digest, no more reads.
                Assert.True(set.Failed[index] && skip == reads.Count && skip <= hashReads, $"{context}: shrunk file {index} read after hashing");
                Assert.True(set.Digests[index] is null, $"{context}: shrunk file {index} has a digest");
                return;
            }

            Assert.True(skip == hashReads, $"{context}: file {index} hashed in {skip} reads, expected {hashReads}");
            Assert.Equal(ContentHash.Compute(algorithm, files.Contents[index]), set.Digests[index]);

            var classSize = files.ClassSize(index);
            if (trusted || classSize < 2)
            {
                Assert.True(skip == reads.Count, $"{context}: file {index} read again after hashing ({reads.Count - skip} reads)");
                return;
            }

            path = classSize <= MaxLockstepFiles ? ReadPath.Lockstep : ReadPath.Pairwise;
        }
        else
        {
            Assert.True(set.Digests[index] is null, $"{context}: file {index} has a digest but was not hashed whole");
        }

        if (path == ReadPath.Lockstep)
        {
            // Read in step: each chunk once, in order.
            var end = AssertChunked(reads, skip, lockstepChunk, length, context, index, "lockstep");
            Assert.True(end == reads.Count, $"{context}: file {index} read again after a lockstep pass");
        }
        else
        {
            // Pair by pair: passes over the file from its start, each in chunks.
            while (skip < reads.Count)
            {
                var end = AssertChunked(reads, skip, pairChunk, length, context, index, "pairwise");
                Assert.True(end > skip, $"{context}: file {index}, pairwise: read {skip} of {reads[skip].Length} bytes at {reads[skip].Offset} past a whole pass");
                skip = end;
            }
        }
    }

    /// <summary>Checks reads from <paramref name="from"/> that run from offset 0 in chunks; returns where the run ends.</summary>
    private static int AssertChunked(List<(long Offset, int Length)> reads, int from, int chunk, long length, string context, int index, string pass)
    {
        long expected = 0;
        var i = from;
        for (; i < reads.Count && expected < length; i++)
        {
            var (offset, size) = reads[i];
            if (offset != expected)
            {
                // A new pass from the start (pairwise) ends this one.
                Assert.True(offset == 0 && i > from, $"{context}: file {index}, {pass}: read {i} at {offset}, expected {expected}");
                return i;
            }

            Assert.True(size == Math.Min(chunk, length - offset), $"{context}: file {index}, {pass}: {size} bytes at {offset}, chunk {chunk}");
            expected += size;
        }

        return i;
    }

    private enum ReadPath
    {
        Lockstep,
        Pairwise,
        WholeFileHash,
    }
}
