using Dedup.Core.Comparison;
using Dedup.Core.Tests.Infrastructure;
using static Dedup.Core.Tests.Comparison.StrategyChecks;

namespace Dedup.Core.Tests.Comparison;

/// <summary>
/// The edges of the strategies' switches and of failure, on real files, each checked as <see cref="StrategyChecks"/> does:
/// classes of exactly 64 and 65 equal files (read in step, or pair by pair), anchors of pairwise comparison that fail
/// one after another, sets of no file, one file, or empty files; and the names, the checks on a set's settings.
/// </summary>
public sealed class StrategyEdgeTests
{
    [Theory]
    [InlineData(64, 2)]
    [InlineData(65, 1)]
    [InlineData(63, 3)]
    public void A_class_of_64_files_is_read_in_step_and_one_of_65_pair_by_pair(int classSize, int others)
    {
        // Set sizes of 66 (or 65): hashed whole by hash and hybrid, then a class of up to 64 is confirmed in step and a
        // larger one pair by pair; the same class alone in a set of its own size, so the byte strategies switch too.
        using var tree = new TempTree();
        var random = new Random(classSize);
        var content = RandomBytes(random, 300);
        var withOthers = Enumerable.Repeat(content, classSize).Concat(Enumerable.Range(0, others).Select(_ => RandomBytes(random, 300))).ToList();
        foreach (var (name, contents) in new[] { ("others", withOthers), ("alone", Enumerable.Repeat(content, classSize).ToList()) })
        {
            var files = FileSet.Write(tree.PathOf(name), [.. contents.OrderBy(_ => random.Next())], chunk: 64);
            foreach (var configuration in Configurations())
            {
                Check(files, configuration, $"class of {classSize}, {name}");
            }
        }
    }

    [Theory]
    [InlineData(70, 0L)]
    [InlineData(70, 299L)]
    [InlineData(6, 150L)]
    public void Anchors_that_fail_one_after_another_are_left_out_and_the_rest_compared(int count, long shrunkLength)
    {
        // Files 0 and 1 (the first two anchors of pairwise comparison) and the first file of the second content (the
        // second round's anchor) shrink: from the start, in the last chunk, or midway.
        using var tree = new TempTree();
        var random = new Random(count);
        var a = RandomBytes(random, 300);
        var b = RandomBytes(random, 300);
        var contents = Enumerable.Range(0, count).Select(i => i < count / 2 ? a : b).ToList();
        contents[count - 1] = RandomBytes(random, 300);
        var shrinkTo = new Dictionary<int, long> { [0] = shrunkLength, [1] = shrunkLength, [count / 2] = shrunkLength };
        var files = FileSet.Write(tree.Root, contents, chunk: 64, shrinkTo);

        foreach (var configuration in Configurations())
        {
            Check(files, configuration, $"{count} files, anchors shrunk to {shrunkLength}");
        }
    }

    [Theory]
    [InlineData(65_536)]
    [InlineData(2 * HashChunk)]
    public void Files_longer_than_the_hash_chunk_are_hashed_in_chunks(int chunk)
    {
        // Past 1 MiB (the hash pass's read) and 128 KiB (the longest read in step), with a difference in the last byte.
        using var tree = new TempTree();
        var random = new Random(chunk);
        var content = RandomBytes(random, HashChunk + 17);
        var last = (byte[])content.Clone();
        last[^1] ^= 0x01;
        var files = FileSet.Write(tree.Root, [content, last, content, last, RandomBytes(random, content.Length)], chunk);
        foreach (var configuration in Configurations())
        {
            Check(files, configuration, $"chunk {chunk}");
        }
    }

    [Theory]
    [InlineData("bytewise")]
    [InlineData("vectorized")]
    [InlineData("hash")]
    [InlineData("hybrid")]
    public void A_cancelled_token_stops_every_strategy_before_it_reads(string strategy)
    {
        // Each side of the 3- and 64-file switches: read in step, pair by pair, or hashed whole.
        foreach (var count in new[] { 3, 10, 70 })
        {
            var random = new Random(count);
            var content = RandomBytes(random, 500);
            var set = new MemoryComparisonSet(Enumerable.Repeat(content, count).ToList(), trustHashes: true);

            Assert.ThrowsAny<OperationCanceledException>(() => ComparerStrategies.FromName(strategy).Partition(set, new CancellationToken(canceled: true)));
            Assert.Equal(0, set.Reads);
            Assert.Empty(set.Groups);
        }
    }

    [Fact]
    public void Sets_of_no_file_one_file_or_empty_files_are_handled()
    {
        using var tree = new TempTree();
        var sets = new (string Name, List<byte[]> Contents)[]
        {
            ("none", []),
            ("one empty", [[]]),
            ("one", [[1, 2, 3]]),
            ("two empty", [[], []]),
            ("three of a byte", [[7], [7], [8]]),
        };
        foreach (var (name, contents) in sets)
        {
            var files = FileSet.Write(tree.PathOf(name), contents, chunk: 64);
            foreach (var configuration in Configurations())
            {
                Check(files, configuration, name);
            }
        }
    }

    [Fact]
    public void Each_strategy_is_found_by_its_name_and_alias_in_any_case()
    {
        Assert.Equal("bytewise", ComparerStrategies.Bytewise.Name);
        Assert.Equal("vectorized", ComparerStrategies.Vectorized.Name);
        Assert.Equal("hash", ComparerStrategies.Hashing.Name);
        Assert.Equal("hybrid", ComparerStrategies.Hybrid.Name);
        foreach (var strategy in new[] { ComparerStrategies.Bytewise, ComparerStrategies.Vectorized, ComparerStrategies.Hashing, ComparerStrategies.Hybrid })
        {
            Assert.Same(strategy, ComparerStrategies.FromName(strategy.Name));
            Assert.Same(strategy, ComparerStrategies.FromName(strategy.Name.ToUpperInvariant()));
        }

        Assert.Same(ComparerStrategies.Hashing, ComparerStrategies.FromName("Hashing"));
        Assert.Throws<ArgumentNullException>("name", () => ComparerStrategies.FromName(null!));
        var unknown = Assert.Throws<ArgumentException>("name", () => ComparerStrategies.FromName("quantum"));
        Assert.Contains("'quantum'", unknown.Message, StringComparison.Ordinal);
        Assert.Contains("hybrid, hash, vectorized or bytewise", unknown.Message, StringComparison.Ordinal);
        Assert.Throws<ArgumentException>("name", () => ComparerStrategies.FromName(string.Empty));
    }

    [Fact]
    public void A_set_keeps_its_settings_and_refuses_a_chunk_below_one_byte_or_no_pool()
    {
        var pool = new CountingBufferPool();
        using var set = new DiskComparisonSet([], 0, DuplicateHashAlgorithm.Sha256, trustHashes: true, chunkSize: 7, pool);
        Assert.Equal(DuplicateHashAlgorithm.Sha256, set.HashAlgorithm);
        Assert.True(set.TrustHashes);
        Assert.Equal(7, set.ChunkSize);
        Assert.Same(pool, set.Buffers);

        Assert.Throws<ArgumentOutOfRangeException>("chunkSize", () => new DiskComparisonSet([], 0, DuplicateHashAlgorithm.XxHash128, false, 0, pool));
        Assert.Throws<ArgumentOutOfRangeException>("chunkSize", () => new DiskComparisonSet([], 0, DuplicateHashAlgorithm.XxHash128, false, -1, pool));
        Assert.Throws<ArgumentNullException>("buffers", () => new DiskComparisonSet([], 0, DuplicateHashAlgorithm.XxHash128, false, 1, null!));
    }

    private static byte[] RandomBytes(Random random, int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }
}
