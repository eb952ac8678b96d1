using System.Security.Cryptography;
using Dedup.Core.Comparison;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Comparison;

/// <summary>
/// Whole scans with each strategy and hash over a tree of files that are copies of a few contents, some changed in one
/// byte at a random offset: the groups a scan reports are the groups of equal SHA-256 digests, computed here with
/// System.Security.Cryptography, whatever the comparer.
/// </summary>
public sealed class ScanAgainstSha256Tests(ScanAgainstSha256Tests.Files files) : IClassFixture<ScanAgainstSha256Tests.Files>
{
    public static TheoryData<string, DuplicateHashAlgorithm, bool> Configurations()
    {
        var data = new TheoryData<string, DuplicateHashAlgorithm, bool>
        {
            { "bytewise", DuplicateHashAlgorithm.XxHash128, false },
            { "vectorized", DuplicateHashAlgorithm.XxHash128, false },
        };
        foreach (var strategy in new[] { "hash", "hybrid" })
        {
            foreach (var algorithm in new[] { DuplicateHashAlgorithm.XxHash128, DuplicateHashAlgorithm.Sha256, DuplicateHashAlgorithm.XxHash3 })
            {
                data.Add(strategy, algorithm, false);
            }

            data.Add(strategy, DuplicateHashAlgorithm.XxHash128, true);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Configurations))]
    public async Task A_scan_groups_files_as_their_sha256_digests_say(string strategy, DuplicateHashAlgorithm algorithm, bool trust)
    {
        var (groups, _) = await Scan.RunAsync(f => f.AddRoot(files.Tree.Root)
            .UseComparer(ComparerStrategies.FromName(strategy))
            .UseHashAlgorithm(algorithm)
            .TrustHashes(trust));

        Assert.True(files.Expected.Count >= 5, $"only {files.Expected.Count} groups");
        Assert.Equal(files.Expected, Scan.Canonical(groups));
    }

    /// <summary>The tree, written once for all configurations, and its groups by SHA-256.</summary>
    public sealed class Files : IDisposable
    {
        public Files()
        {
            var random = new Random(4242);

            // Per size: 3 to 70 files (each side of the three- and 64-file switches) of up to four contents, a third of
            // them then changed in one byte anywhere, the first and last bytes included.
            foreach (var (size, count) in new[] { (1, 5), (100, 9), (4097, 3), (70_000, 70), (300_001, 12) })
            {
                var contents = Enumerable.Range(0, 1 + random.Next(4)).Select(_ => TempTree.RandomBytes(size, random.Next())).ToArray();
                for (var i = 0; i < count; i++)
                {
                    var content = (byte[])contents[random.Next(contents.Length)].Clone();
                    if (random.Next(3) == 0)
                    {
                        var offset = random.Next(4) switch
                        {
                            0 => 0,
                            1 => size - 1,
                            _ => random.Next(size),
                        };
                        content[offset] ^= (byte)random.Next(1, 256);
                    }

                    Tree.Write($"s{size}/f{i}.bin", content);
                }
            }

            Expected = Directory.EnumerateFiles(Tree.Root, "*", SearchOption.AllDirectories)
                .GroupBy(p => (new FileInfo(p).Length, Convert.ToHexString(SHA256.HashData(File.ReadAllBytes(p)))))
                .Where(g => g.Count() >= 2)
                .Select(g => string.Join(" | ", g.Order(StringComparer.Ordinal)))
                .Order(StringComparer.Ordinal)
                .ToList();
        }

        public TempTree Tree { get; } = new();

        public List<string> Expected { get; }

        public void Dispose() => Tree.Dispose();
    }
}
