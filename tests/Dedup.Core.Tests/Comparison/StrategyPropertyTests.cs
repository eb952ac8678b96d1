using System.Security.Cryptography;
using Dedup.Core.Comparison;
using Dedup.Core.Comparison.Hashing;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Comparison;

/// <summary>
/// Every built-in strategy, with every hash and with and without trusted hashes, on real files in a temporary folder:
/// random sets (seeded) of files that are copies of a few contents, some changed in one byte at a random offset (the
/// first, the last, either side of a chunk boundary, anywhere), some shrunk on disk before the comparison, checked
/// against SHA-256 digests computed here with System.Security.Cryptography; and the way each strategy reads: chunk
/// sizes, each byte read once where the set is read in step, handles closed, whole-file digests reported right.
/// </summary>
public sealed class StrategyPropertyTests
{
    private const int MaxLockstepFiles = 64;
    private const int MaxLockstepChunk = 128 * 1024;
    private const int HashChunk = 1024 * 1024;

    public static TheoryData<int> SeedBatches() => [.. Enumerable.Range(0, 8)];

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

    [Theory]
    [MemberData(nameof(SeedBatches))]
    public void Random_file_sets_are_grouped_as_their_sha256_digests_say(int batch)
    {
        using var tree = new TempTree();
        for (var seed = batch * 10; seed < (batch * 10) + 10; seed++)
        {
            var files = RandomFiles.Make(seed, tree.PathOf($"s{seed}"));
            foreach (var configuration in Configurations())
            {
                Check(files, configuration, $"seed {seed}");
            }
        }
    }

    [Theory]
    [InlineData(1, 1)]
    [InlineData(31, 16)]
    [InlineData(64, 64)]
    [InlineData(65, 64)]
    [InlineData(129, 64)]
    [InlineData(100, 7)]
    public void A_file_differing_at_any_single_offset_splits_off_exactly(int length, int chunk)
    {
        // Two copies of one content and, for every offset, two copies changed at that offset alone: every pair a
        // group, no file in another's. Offsets in batches of 31 (64 files, read in step), and the last 40 together
        // (82 files: compared pair by pair, or hashed whole).
        using var tree = new TempTree();
        var random = new Random((length * 1000) + chunk);
        var content = new byte[length];
        random.NextBytes(content);
        var batches = Enumerable.Range(0, (length + 30) / 31).Select(b => (First: b * 31, Count: Math.Min(31, length - (b * 31))))
            .Append((First: Math.Max(0, length - 40), Count: Math.Min(40, length)));
        foreach (var (first, batchCount) in batches)
        {
            var contents = new List<byte[]> { content, content };
            for (var offset = first; offset < first + batchCount; offset++)
            {
                var twin = (byte[])content.Clone();
                twin[offset] ^= (byte)random.Next(1, 256);
                contents.Add(twin);
                contents.Add(twin);
            }

            var files = RandomFiles.Write(tree.PathOf($"b{first}-{batchCount}"), Shuffle(contents, random), chunk, shrunk: []);
            foreach (var configuration in Configurations())
            {
                Check(files, configuration, $"length {length}, offsets {first} to {first + batchCount - 1}");
            }
        }
    }

    private static void Check(RandomFiles files, (string Strategy, DuplicateHashAlgorithm Algorithm, bool Trust) configuration, string trial)
    {
        var (strategy, algorithm, trust) = configuration;
        var context = $"{trial}: {strategy}, {algorithm}, trust {trust}; {files.Paths.Count} files of {files.Length} bytes, chunk {files.ChunkSize}";
        using var set = new DiskComparisonSet(files.Paths, files.Length, algorithm, trust, files.ChunkSize);

        ComparerStrategies.FromName(strategy).Partition(set);

        Assert.True(files.Expected().SequenceEqual(set.Canonical()), $"{context}: groups [{string.Join(" ", set.Canonical())}], expected [{string.Join(" ", files.Expected())}]");

        var trusted = trust && algorithm != DuplicateHashAlgorithm.XxHash3;
        var count = files.Paths.Count;
        var path = strategy switch
        {
            "bytewise" or "vectorized" => count <= MaxLockstepFiles ? Path.Lockstep : Path.Pairwise,
            "hash" => Path.WholeFileHash,
            _ => count <= MaxLockstepFiles ? Path.Lockstep : Path.WholeFileHash,
        };

        // Groups rest on bytes unless 128-bit or longer hashes are trusted where the strategy hashes (hybrid compares
        // two or three files by bytes alone).
        var hashes = trusted && (strategy == "hash" || (strategy == "hybrid" && count > 3));
        Assert.All(set.Groups, g => Assert.True(g.Verified != hashes, $"{context}: a group verified {g.Verified}"));

        // Pairwise comparison may leave its last file, which it compared with an anchor, to the set's disposal.
        var largeClasses = Enumerable.Range(0, count).Where(i => files.ClassSize(i) > MaxLockstepFiles).Select(files.Digest).Distinct().Count();
        var mayStayOpen = path switch
        {
            Path.Pairwise => 1,
            Path.WholeFileHash when !trusted => largeClasses,
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
            CheckReads(set, files, i, path, trusted, context);
        }
    }

    private static void CheckReads(DiskComparisonSet set, RandomFiles files, int index, Path path, bool trusted, string context)
    {
        var reads = set.Reads[index];
        var length = files.Length;
        var lockstepChunk = (int)Math.Min(Math.Min(files.ChunkSize, MaxLockstepChunk), Math.Max(1, length));
        var pairChunk = (int)Math.Min(files.ChunkSize, Math.Max(1, length));
        var skip = 0;
        if (path == Path.WholeFileHash)
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
            Assert.Equal(ContentHash.Compute(set.HashAlgorithm, files.Contents[index]), set.Digests[index]);

            var classSize = files.ClassSize(index);
            if (trusted || classSize < 2)
            {
                Assert.True(skip == reads.Count, $"{context}: file {index} read again after hashing ({reads.Count - skip} reads)");
                return;
            }

            path = classSize <= MaxLockstepFiles ? Path.Lockstep : Path.Pairwise;
        }
        else
        {
            Assert.True(set.Digests[index] is null, $"{context}: file {index} has a digest but was not hashed whole");
        }

        if (path == Path.Lockstep)
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
                skip = AssertChunked(reads, skip, pairChunk, length, context, index, "pairwise");
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

    private static List<byte[]> Shuffle(List<byte[]> items, Random random) => [.. items.OrderBy(_ => random.Next())];

    private enum Path
    {
        Lockstep,
        Pairwise,
        WholeFileHash,
    }

    /// <summary>A set of equal-length files on disk, with their SHA-256 digests taken before any was shrunk.</summary>
    private sealed class RandomFiles
    {
        private static readonly int[] Counts = [2, 2, 3, 3, 4, 5, 6, 9, 16, 33, 63, 64, 65, 66, 80];
        private static readonly int[] Lengths = [0, 1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 4095, 4096, 4097];
        private static readonly int[] LargeLengths = [MaxLockstepChunk - 1, MaxLockstepChunk, MaxLockstepChunk + 1, HashChunk + 17];
        private static readonly int[] ChunkSizes = [1, 3, 16, 64, 100, 4096, 65_536, 200_000, 2 * HashChunk];

        private readonly string[] _digests;

        private RandomFiles(List<string> paths, List<byte[]> contents, int chunkSize, HashSet<int> shrunk)
        {
            Paths = paths;
            Contents = contents;
            Length = contents.Count == 0 ? 0 : contents[0].Length;
            ChunkSize = chunkSize;
            Shrunk = shrunk;
            _digests = paths.Select(p => Convert.ToHexString(SHA256.HashData(File.ReadAllBytes(p)))).ToArray();
            foreach (var index in shrunk)
            {
                using var stream = new FileStream(paths[index], FileMode.Open, FileAccess.Write);
                stream.SetLength(Length == 0 ? 0 : new Random(index).Next((int)Length));
            }
        }

        public List<string> Paths { get; }

        public List<byte[]> Contents { get; }

        public long Length { get; }

        public int ChunkSize { get; }

        public HashSet<int> Shrunk { get; }

        public static RandomFiles Make(int seed, string folder)
        {
            var random = new Random(seed);
            var count = Counts[random.Next(Counts.Length)];
            int length;
            if (seed % 8 == 7)
            {
                // Lengths at the lockstep chunk's cap and past the hash chunk, in few files.
                length = LargeLengths[random.Next(LargeLengths.Length)];
                count = Math.Min(count, 2 + random.Next(4));
            }
            else
            {
                length = random.Next(3) == 0 ? random.Next(1, 20_000) : Lengths[random.Next(Lengths.Length)];
            }

            // No more than ~64 chunks per file (a read of a byte at a time is right but slow).
            var chunks = ChunkSizes.Where(c => (long)c * 64 >= length).ToArray();
            var chunk = chunks[random.Next(chunks.Length)];

            var classes = new List<byte[]> { RandomBytes(random, length) };
            for (var k = random.Next(Math.Min(count, 6)); k > 0; k--)
            {
                // Near-twins of the first content (one byte changed) or unrelated contents.
                classes.Add(random.Next(2) == 0 && length > 0 ? Changed(classes[0], random, chunk) : RandomBytes(random, length));
            }

            var contents = new List<byte[]>();
            for (var i = 0; i < count; i++)
            {
                var content = classes[random.Next(classes.Count)];
                contents.Add(random.Next(5) == 0 && length > 0 ? Changed(content, random, chunk) : content);
            }

            var shrunk = new HashSet<int>();
            if (length > 0 && random.Next(3) == 0)
            {
                for (var k = 1 + random.Next(3); k > 0; k--)
                {
                    shrunk.Add(random.Next(count));
                }
            }

            return Write(folder, contents, chunk, shrunk);
        }

        public static RandomFiles Write(string folder, List<byte[]> contents, int chunk, HashSet<int> shrunk)
        {
            Directory.CreateDirectory(folder);
            var paths = new List<string>();
            for (var i = 0; i < contents.Count; i++)
            {
                var path = System.IO.Path.Combine(folder, $"f{i}");
                File.WriteAllBytes(path, contents[i]);
                paths.Add(path);
            }

            return new RandomFiles(paths, contents, chunk, shrunk);
        }

        /// <summary>The groups the SHA-256 digests make among the files not shrunk.</summary>
        public List<string> Expected() =>
            Enumerable.Range(0, Paths.Count)
                .Where(i => !Shrunk.Contains(i))
                .GroupBy(i => _digests[i])
                .Where(g => g.Count() >= 2)
                .Select(g => string.Join(",", g.Order()))
                .Order(StringComparer.Ordinal)
                .ToList();

        public string Digest(int index) => _digests[index];

        /// <summary>How many files not shrunk have file <paramref name="index"/>'s digest.</summary>
        public int ClassSize(int index) =>
            Enumerable.Range(0, Paths.Count).Count(i => !Shrunk.Contains(i) && _digests[i] == _digests[index]);

        /// <summary>A copy with one byte changed: the first, the last, either side of a chunk boundary, or anywhere.</summary>
        private static byte[] Changed(byte[] content, Random random, int chunk)
        {
            var copy = (byte[])content.Clone();
            var boundary = chunk * (long)random.Next(1, (int)Math.Max(1, copy.Length / chunk) + 1);
            var offset = random.Next(5) switch
            {
                0 => 0,
                1 => copy.Length - 1,
                2 => boundary - 1,
                3 => boundary,
                _ => random.Next(copy.Length),
            };
            offset = Math.Clamp(offset, 0, copy.Length - 1);
            copy[offset] ^= (byte)random.Next(1, 256);
            return copy;
        }

        private static byte[] RandomBytes(Random random, int length)
        {
            var bytes = new byte[length];
            random.NextBytes(bytes);
            return bytes;
        }
    }
}
