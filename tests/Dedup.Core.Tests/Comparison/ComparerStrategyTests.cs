using Dedup.Core.Comparison;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Comparison;

/// <summary>
/// Each built-in strategy on in-memory sets (see <see cref="MemoryComparisonSet"/>, which also enforces
/// the <see cref="ComparisonSet"/> contract): exact partitions, more than 64 files, failing files left out.
/// </summary>
public sealed class ComparerStrategyTests
{
    public static TheoryData<string> Strategies => new() { "bytewise", "vectorized", "hash", "hybrid" };

    public static TheoryData<string, DuplicateHashAlgorithm, bool> StrategiesAndHashes()
    {
        var data = new TheoryData<string, DuplicateHashAlgorithm, bool>();
        foreach (var strategy in new[] { "bytewise", "vectorized", "hash", "hybrid" })
        {
            foreach (var algorithm in Enum.GetValues<DuplicateHashAlgorithm>())
            {
                data.Add(strategy, algorithm, false);
                data.Add(strategy, algorithm, true);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(StrategiesAndHashes))]
    public void Groups_files_of_equal_bytes_exactly(string strategy, DuplicateHashAlgorithm algorithm, bool trust)
    {
        // Set sizes on both sides of the 3-file and 64-file switches; lengths not a multiple of the chunk.
        foreach (var (count, length) in new[] { (2, 1000), (3, 1000), (10, 999), (64, 333), (65, 777), (130, 1025) })
        {
            var set = new MemoryComparisonSet(MakeFiles(count, length, seed: count), algorithm, trust);

            ComparerStrategies.FromName(strategy).Partition(set);

            Assert.NotEmpty(set.Expected());
            Assert.Equal(set.Expected(), set.Canonical());
        }
    }

    [Theory]
    [MemberData(nameof(Strategies))]
    public void Files_failing_mid_read_are_left_out(string strategy)
    {
        foreach (var count in new[] { 12, 70, 130 })
        {
            var set = new MemoryComparisonSet(MakeFiles(count, 1000, seed: 100 + count));

            // The first file (the first anchor of pairwise comparison) fails late, the second at once, and
            // every fourth file somewhere else, so failures meet anchors and members of every class.
            set.FailFrom(0, 990);
            set.FailFrom(1, 0);
            for (var i = 2; i < count; i += 4)
            {
                set.FailFrom(i, i * 53 % 1000);
            }

            ComparerStrategies.FromName(strategy).Partition(set);

            Assert.NotEmpty(set.Expected());
            Assert.Equal(set.Expected(), set.Canonical());
        }
    }

    [Theory]
    [MemberData(nameof(Strategies))]
    public void Byte_verified_groups_only_unless_hashes_are_trusted(string strategy)
    {
        var verified = new MemoryComparisonSet(MakeFiles(70, 2000, seed: 7));
        var trustedWith64Bits = new MemoryComparisonSet(MakeFiles(70, 2000, seed: 7), DuplicateHashAlgorithm.XxHash3, trustHashes: true);

        ComparerStrategies.FromName(strategy).Partition(verified);
        ComparerStrategies.FromName(strategy).Partition(trustedWith64Bits);

        Assert.All(verified.Groups, g => Assert.True(g.Verified));

        // Only 128-bit and longer hashes may stand in for bytes; a set that asks to trust XXH3-64 is still verified.
        Assert.Equal(verified.Expected(), trustedWith64Bits.Canonical());
        Assert.All(trustedWith64Bits.Groups, g => Assert.True(g.Verified));
    }

    [Theory]
    [InlineData("hash", DuplicateHashAlgorithm.XxHash128)]
    [InlineData("hash", DuplicateHashAlgorithm.Sha256)]
    [InlineData("hybrid", DuplicateHashAlgorithm.XxHash128)]
    [InlineData("hybrid", DuplicateHashAlgorithm.Sha256)]
    public void Trusted_hashes_mark_groups_unverified(string strategy, DuplicateHashAlgorithm algorithm)
    {
        var set = new MemoryComparisonSet(MakeFiles(20, 2000, seed: 8), algorithm, trustHashes: true);

        ComparerStrategies.FromName(strategy).Partition(set);

        Assert.Equal(set.Expected(), set.Canonical());
        Assert.All(set.Groups, g => Assert.False(g.Verified));
    }

    [Theory]
    [MemberData(nameof(Strategies))]
    public void Degenerate_sets_are_handled(string strategy)
    {
        var comparer = ComparerStrategies.FromName(strategy);
        var none = new MemoryComparisonSet([]);
        var one = new MemoryComparisonSet([[1, 2, 3]]);
        var empties = new MemoryComparisonSet([[], [], []]);
        var singleBytes = new MemoryComparisonSet([[1], [2], [1], [3], [2]]);

        comparer.Partition(none);
        comparer.Partition(one);
        comparer.Partition(empties);
        comparer.Partition(singleBytes);

        Assert.Empty(none.Groups);
        Assert.Empty(one.Groups);
        Assert.Equal(["0,1,2"], empties.Canonical());
        Assert.Equal(["0,2", "1,4"], singleBytes.Canonical());
        Assert.Throws<ArgumentNullException>(() => comparer.Partition(null!));
    }

    [Theory]
    [MemberData(nameof(Strategies))]
    public void A_cancelled_token_stops_the_comparison(string strategy)
    {
        var set = new MemoryComparisonSet(MakeFiles(10, 5000, seed: 9));

        Assert.ThrowsAny<OperationCanceledException>(() => ComparerStrategies.FromName(strategy).Partition(set, new CancellationToken(canceled: true)));
        Assert.Empty(set.Groups);
    }

    [Theory]
    [MemberData(nameof(Strategies))]
    public void A_file_differing_early_is_not_read_to_the_end(string strategy)
    {
        // Reading every byte of a file that already differs in its first chunk would waste the disk.
        var files = MakeFiles(2, 64 * 100, seed: 10);
        files.Add((byte[])files[0].Clone());
        files[2][0] ^= 1;
        var set = new MemoryComparisonSet([files[0], files[2]], chunkSize: 64);

        ComparerStrategies.FromName(strategy).Partition(set);

        Assert.Empty(set.Groups);
        if (strategy != "hash")
        {
            Assert.True(set.Reads <= 4, $"{set.Reads} reads");
        }
    }

    /// <summary>
    /// Files in three content classes (the first two files always equal), plus near-twins of the first class differing in
    /// the first, middle or last byte, and unique files.
    /// </summary>
    private static List<byte[]> MakeFiles(int count, int length, int seed)
    {
        var random = new Random(seed);
        var classes = Enumerable.Range(0, 3).Select(_ => RandomBytes(random, length)).ToArray();
        var files = new List<byte[]>(count);
        for (var i = 0; i < count; i++)
        {
            var kind = i == 1 ? 0 : i % 7;
            byte[] file;
            if (kind <= 3)
            {
                file = (byte[])classes[kind % 3].Clone();
            }
            else if (kind == 6)
            {
                file = RandomBytes(random, length);
            }
            else
            {
                file = (byte[])classes[0].Clone();
                file[new[] { 0, length / 2, length - 1 }[i % 3]] ^= 0x80;
            }

            files.Add(file);
        }

        // Shuffle so that equal files are not neighbours and the anchor varies.
        return [.. files.OrderBy(_ => random.Next())];
    }

    private static byte[] RandomBytes(Random random, int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }
}
