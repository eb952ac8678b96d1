using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// A rescan's early groups joined with the groups it found itself: a file that left a local pair for another local
/// pair's content is no longer in its old group (its identity now names the other pair), and the files of one group
/// are in path order, then machine order, when two machines hold the same paths.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogEarlyReadJoinTests(PostgresFixture postgres)
{
    private static readonly byte[] P1 = TempTree.RandomBytes(3_000, 71);
    private static readonly byte[] P2 = TempTree.RandomBytes(3_000, 72);
    private static readonly byte[] K = TempTree.RandomBytes(5_000, 73);

    [PostgresFact]
    public Task A_file_that_left_a_local_pair_for_another_pairs_content_leaves_its_old_group_and_joins_the_new_one() => LeftPairAsync(byContent: false);

    [PostgresFact]
    public Task A_file_that_left_a_local_pair_joins_the_new_one_named_from_the_scans_digests() => LeftPairAsync(byContent: true);

    private async Task LeftPairAsync(bool byContent)
    {
        await using var store = postgres.NewCatalog("earlyjoinpair");
        var catalog = new EarlyReadCatalog(store, defaultRead: false, byContent);
        using var alpha = EarlyRead.Alpha(P1, P2, K);
        using var beta = new TempTree();
        beta.Write("x.bin", P1);
        beta.Write("y.bin", P1);
        beta.Write("z.bin", P2);
        beta.Write("w.bin", P2);
        beta.Write("k.bin", K);
        await EarlyRead.ConvergeAsync(catalog, alpha, beta);

        // x.bin takes P2: the early read's P1 group holds y.bin (unchanged) and x.bin's old stamp, whose identity is
        // now in beta's own group of P2; only P2 is read again.
        EarlyRead.Rewrite(beta, "x.bin", P2, minutes: 1);
        var (groups, summary) = await EarlyRead.ScanAsync(catalog, "beta", beta);

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal(1, summary.Catalog.FilesHashed);
        Assert.Equal(
            [
                EarlyRead.K(alpha, beta),
                $"alpha:{alpha.PathOf("p1.bin")} beta:{beta.PathOf("y.bin")}",
                $"alpha:{alpha.PathOf("p2.bin")} beta:{beta.PathOf("w.bin")} beta:{beta.PathOf("x.bin")} beta:{beta.PathOf("z.bin")}",
            ],
            EarlyRead.Describe(groups));
        Assert.Equal(3, summary.Catalog.GroupsAcrossMachines);
        var p2 = Assert.Single(groups, group => group.Files.Count == 4);
        Assert.True(p2.VerifiedByBytes);
        Assert.Equal([false, false, false], p2.Files.Where(file => file.Machine == "beta").Select(file => file.MatchedBySha256));
        await EarlyRead.SameAfterAsync(catalog, beta, groups);
    }

    [PostgresFact]
    public async Task The_same_paths_on_two_machines_are_listed_by_path_then_machine()
    {
        await using var catalog = postgres.NewCatalog("earlyjoinsame");
        // One tree scanned as two machines: every path is on both.
        using var tree = new TempTree();
        tree.Write("a.bin", K);
        tree.Write("b.bin", K);
        tree.Write("c.bin", P1);
        await EarlyRead.ScanAsync(catalog, "beta", tree);

        var (groups, summary) = await EarlyRead.ScanAsync(catalog, "alpha", tree);

        Assert.Null(summary.Catalog!.Error);
        var group = Assert.Single(groups);
        Assert.Equal(
            [("alpha", "a.bin"), ("beta", "a.bin"), ("alpha", "b.bin"), ("beta", "b.bin")],
            group.Files.Select(file => (file.Machine, Path.GetRelativePath(tree.Root, file.Path.ToString()))));
    }
}
