using Dedup.Core.Tests.Infrastructure;
using static Dedup.Core.Tests.Comparison.StrategyChecks;

namespace Dedup.Core.Tests.Comparison;

/// <summary>
/// Every built-in strategy, with every hash and with and without trusted hashes, on real files in a temporary folder:
/// random sets (seeded) of files that are copies of a few contents, some changed in one byte at a random offset (the
/// first, the last, either side of a chunk boundary, anywhere), some shrunk on disk before the comparison, checked
/// against SHA-256 digests computed here with System.Security.Cryptography; and the way each strategy reads: chunk
/// sizes, each byte read once where the set is read in step, handles closed, whole-file digests reported right (see
/// <see cref="StrategyChecks"/>).
/// </summary>
public sealed class StrategyPropertyTests
{
    public static TheoryData<int> SeedBatches() => [.. Enumerable.Range(0, 5)];

    [Theory]
    [MemberData(nameof(SeedBatches))]
    public void Random_file_sets_are_grouped_as_their_sha256_digests_say(int batch)
    {
        using var tree = new TempTree();
        for (var seed = batch * 10; seed < (batch * 10) + 10; seed++)
        {
            var files = FileSet.Make(seed, tree.PathOf($"s{seed}"));
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
    [InlineData(129, 64)]
    [InlineData(40, 7)]
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

            var files = FileSet.Write(tree.PathOf($"b{first}-{batchCount}"), Shuffle(contents, random), chunk);
            foreach (var configuration in Configurations())
            {
                Check(files, configuration, $"length {length}, offsets {first} to {first + batchCount - 1}");
            }
        }
    }

    private static List<byte[]> Shuffle(List<byte[]> items, Random random) => [.. items.OrderBy(_ => random.Next())];
}
