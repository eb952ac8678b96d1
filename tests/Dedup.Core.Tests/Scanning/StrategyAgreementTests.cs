using Dedup.Core.Comparison;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>One seeded tree of ~1,500 real files, written once for the class.</summary>
public sealed class GeneratedTreeFixture : IDisposable
{
    private readonly TempTree _tree = new();

    public GeneratedTreeFixture()
    {
        Tree = TreeGenerator.Generate(_tree.Root, seed: 20_240_611);
    }

    public GeneratedTree Tree { get; }

    public void Dispose() => _tree.Dispose();
}

/// <summary>
/// Every strategy, hash algorithm, trust setting and degree of parallelism must find exactly the groups
/// the generator recorded while writing the tree: the same files, the same hard-link folding, nothing more.
/// </summary>
public sealed class StrategyAgreementTests(GeneratedTreeFixture fixture) : IClassFixture<GeneratedTreeFixture>
{
    public static TheoryData<string, DuplicateHashAlgorithm, bool, int> Configurations()
    {
        var data = new TheoryData<string, DuplicateHashAlgorithm, bool, int>();
        foreach (var parallelism in new[] { 1, 4 })
        {
            data.Add("bytewise", DuplicateHashAlgorithm.XxHash128, false, parallelism);
            data.Add("vectorized", DuplicateHashAlgorithm.XxHash128, false, parallelism);
            foreach (var strategy in new[] { "hash", "hybrid" })
            {
                foreach (var algorithm in Enum.GetValues<DuplicateHashAlgorithm>())
                {
                    data.Add(strategy, algorithm, false, parallelism);
                    if (algorithm != DuplicateHashAlgorithm.XxHash3)
                    {
                        data.Add(strategy, algorithm, true, parallelism);
                    }
                }
            }
        }

        return data;
    }

    [LinuxFact]
    public void The_generated_tree_has_every_kind_of_case()
    {
        // Guards the premise: a tree without these cases would let the agreement tests pass vacuously.
        var tree = fixture.Tree;
        Assert.InRange(tree.NameCount, 1500, 1600);
        Assert.InRange(tree.ExpectedGroupCount, 150, 1500);
        Assert.Contains(tree.Files, f => f.Names.Count > 1);
        Assert.Contains(tree.Files, f => f.Length == 0);
        Assert.Contains(tree.Files, f => f.Length == 2 * 1024 * 1024);
        Assert.True(tree.Files.GroupBy(f => f.ContentKey).Max(g => g.Count()) > 64);
        Assert.Contains(tree.ExpectedGroups(), g => g.Contains('[', StringComparison.Ordinal));

        // Same size, different content: files the scan must read and then keep apart.
        var sameSizeDifferent = tree.Files.Where(f => f.Length > 8192).GroupBy(f => f.Length).Count(g => g.Select(f => f.ContentKey).Distinct().Count() > 1);
        Assert.True(sameSizeDifferent > 20, $"{sameSizeDifferent} sizes with distinct contents");
    }

    [LinuxTheory]
    [MemberData(nameof(Configurations))]
    public async Task All_strategies_find_exactly_the_recorded_groups(string strategy, DuplicateHashAlgorithm algorithm, bool trustHashes, int parallelism)
    {
        var (groups, summary) = await Scan.RunAsync(f => f
            .AddRoot(fixture.Tree.Root)
            .UseComparer(ComparerStrategies.FromName(strategy))
            .UseHashAlgorithm(algorithm)
            .TrustHashes(trustHashes)
            .WithMaxDegreeOfParallelism(parallelism));

        var expected = fixture.Tree.ExpectedGroups();
        var actual = Expect.WithLinks(groups);
        Assert.True(expected.SequenceEqual(actual), Difference(expected, actual));
        Assert.Empty(summary.Errors);
        Assert.Equal(fixture.Tree.NameCount, summary.FilesScanned);
        Assert.Equal(expected.Count, summary.Groups);
        if (trustHashes)
        {
            // The option must have been exercised: some groups rest on hashes alone.
            Assert.Contains(groups, g => !g.VerifiedByBytes);
        }
        else
        {
            Assert.All(groups, g => Assert.True(g.VerifiedByBytes));
        }
    }

    [LinuxFact]
    public async Task Empty_files_are_grouped_when_asked()
    {
        var (groups, _) = await Scan.RunAsync(f => f.AddRoot(fixture.Tree.Root).IncludeEmptyFiles());

        var expected = fixture.Tree.ExpectedGroups(includeEmpty: true);
        var actual = Expect.WithLinks(groups);
        Assert.True(expected.SequenceEqual(actual), Difference(expected, actual));
        Assert.Equal(fixture.Tree.ExpectedGroupCount + 1, groups.Count);
    }

    private static string Difference(List<string> expected, List<string> actual)
    {
        var missing = expected.Except(actual).Take(3).ToList();
        var extra = actual.Except(expected).Take(3).ToList();
        return $"{expected.Count} groups expected, {actual.Count} found.\nMissing: {string.Join("\n  ", missing)}\nExtra: {string.Join("\n  ", extra)}";
    }
}
