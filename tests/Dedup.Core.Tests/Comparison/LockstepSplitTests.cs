using Dedup.Core.Comparison;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Comparison;

/// <summary>
/// Sets read in step whose classes split late or into several classes at once: the paths of hybrid's 4–64-file
/// branch (compare with the first class's chunk, hash only a chunk that differs, look the other classes up by a hash
/// computed when first needed, confirm by bytes), checked against every strategy.
/// </summary>
public sealed class LockstepSplitTests
{
    private const int Chunk = 64;

    public static TheoryData<string, int> StrategiesAndCounts()
    {
        var data = new TheoryData<string, int>();
        foreach (var strategy in new[] { "bytewise", "vectorized", "hash", "hybrid" })
        {
            foreach (var count in new[] { 4, 8, 64 })
            {
                data.Add(strategy, count);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(StrategiesAndCounts))]
    public void Files_differing_only_in_the_last_chunk_are_split_there(string strategy, int count)
    {
        // Two classes equal up to the last (partial) chunk's last byte, interleaved, plus one file alone that differs
        // from the first class in the last chunk's first byte.
        var length = (Chunk * 10) + 5;
        var baseFile = Bytes(length, seed: count);
        var files = new List<byte[]>();
        for (var i = 0; i < count - 1; i++)
        {
            var file = (byte[])baseFile.Clone();
            if (i % 2 == 1)
            {
                file[length - 1] ^= 0x01;
            }

            files.Add(file);
        }

        var alone = (byte[])baseFile.Clone();
        alone[Chunk * 10] ^= 0x40;
        files.Insert(count / 2, alone);
        var set = new MemoryComparisonSet(files, chunkSize: Chunk);

        ComparerStrategies.FromName(strategy).Partition(set);

        Assert.Equal(count == 4 ? 1 : 2, set.Groups.Count);
        Assert.Equal(set.Expected(), set.Canonical());
        Assert.All(set.Groups, g => Assert.True(g.Verified));
    }

    [Theory]
    [MemberData(nameof(StrategiesAndCounts))]
    public void Files_splitting_into_three_classes_midway_are_grouped_exactly(string strategy, int count)
    {
        // Equal for five chunks, then three classes (by i % 3) that differ from the sixth chunk on, in their last byte
        // only, so a class other than the first is found by its hash and confirmed; the first file of the second class
        // leaves the set after the split when it is its class's only member (count 4: classes of 2, 1 and 1).
        var length = Chunk * 12;
        var shared = Bytes(length, seed: 100 + count);
        var files = new List<byte[]>();
        for (var i = 0; i < count; i++)
        {
            var file = (byte[])shared.Clone();
            var cls = i % 3;
            for (var offset = Chunk * 5; offset < length; offset += Chunk)
            {
                file[offset + Chunk - 1] = (byte)(cls * 7);
            }

            files.Add(file);
        }

        var set = new MemoryComparisonSet(files, chunkSize: Chunk);

        ComparerStrategies.FromName(strategy).Partition(set);

        Assert.Equal(set.Expected(), set.Canonical());
        Assert.Equal(count == 4 ? 1 : 3, set.Groups.Count);
        Assert.All(set.Groups, g => Assert.True(g.Verified));
    }

    [Theory]
    [MemberData(nameof(StrategiesAndCounts))]
    public void A_class_whose_first_file_fails_after_the_split_keeps_its_other_members(string strategy, int count)
    {
        // Two classes from the third chunk; the first file of each fails in the last chunk, so the next file
        // represents its class there (its chunk compared with, or hashed for, the others).
        var length = Chunk * 6;
        var shared = Bytes(length, seed: 200 + count);
        var files = new List<byte[]>();
        for (var i = 0; i < count; i++)
        {
            var file = (byte[])shared.Clone();
            if (i % 2 == 1)
            {
                file[(Chunk * 2) + 3] ^= 0x10;
            }

            files.Add(file);
        }

        var set = new MemoryComparisonSet(files, chunkSize: Chunk);
        set.FailFrom(0, length - 1);
        set.FailFrom(1, length - 1);

        ComparerStrategies.FromName(strategy).Partition(set);

        Assert.Equal(set.Expected(), set.Canonical());
        Assert.All(set.Groups, g => Assert.True(g.Verified));
    }

    private static byte[] Bytes(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }
}
