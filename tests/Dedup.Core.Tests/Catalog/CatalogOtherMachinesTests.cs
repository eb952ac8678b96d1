using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Dedup.Core.Tests.Infrastructure;
using static Dedup.Core.Tests.Catalog.CatalogData;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// A scan given its machine's stored digests (<see cref="FileCatalog.GetDigestsAsync"/>) reads only the other
/// machines' files (<see cref="FileCatalog.FindFilesOnOtherMachinesAsync"/>) and names its own from its digests: the
/// two calls on the real server, the base class's defaults, and scans through either way reporting the same groups.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogOtherMachinesTests(PostgresFixture postgres)
{
    [PostgresFact]
    public async Task The_stored_digests_come_with_their_stamps_and_SHA256s_and_a_ctime_of_0_is_left_out()
    {
        await using var catalog = postgres.NewCatalog("otherdigests");
        var (a, b, zero) = (File("/a", 10, 1), File("/b", 20, 2), File("/z", 30, 3, ctime: 0));
        await catalog.ReplaceFilesAndRecordDigestsAsync("alpha", [a, b, zero], Digests(Digest(a, "A"), Digest(b, "B"), Digest(zero, "Z")));

        var digests = await catalog.GetDigestsAsync("alpha");

        Assert.NotNull(digests);
        Assert.Equal(
            [(a.Stamp, Convert.ToHexString(Sha("A"))), (b.Stamp, Convert.ToHexString(Sha("B")))],
            digests.Select(digest => (digest.Stamp, Convert.ToHexString(digest.Sha256.Span))).OrderBy(pair => pair.Stamp.Length));
        Assert.Equal((await catalog.GetDigestedFilesAsync("alpha")).ToHashSet(), digests.Select(digest => digest.Stamp).ToHashSet());
        Assert.Empty((await catalog.GetDigestsAsync("nobody"))!);
    }

    [PostgresFact]
    public async Task Only_other_machines_files_of_the_machines_contents_are_read_and_a_group_may_be_one_file()
    {
        await using var catalog = postgres.NewCatalog("otherfiles");
        var (a1, a2, a3) = (File("/a/1", 10, 1), File("/a/2", 10, 2), File("/a/3", 30, 3));
        await catalog.ReplaceFilesAndRecordDigestsAsync("alpha", [a1, a2, a3], Digests(Digest(a1, "X"), Digest(a2, "X"), Digest(a3, "Y")));
        var (b1, b2, b3) = (File("/b/1", 10, 1), File("/b/2", 30, 2), File("/b/3", 40, 3));
        await catalog.ReplaceFilesAndRecordDigestsAsync("beta", [b1, b2, b3], Digests(Digest(b1, "X"), Digest(b2, "Y"), Digest(b3, "W")));
        var (c1, c2) = (File("/c/1", 30, 1), File("/c/2", 30, 2));
        await catalog.ReplaceFilesAndRecordDigestsAsync("gamma", [c1, c2], Digests(Digest(c1, "Y"), Digest(c2, "V")));

        var all = await catalog.FindFilesOnOtherMachinesAsync("alpha", contents: null, static _ => { });
        var some = await catalog.FindFilesOnOtherMachinesAsync("alpha", [Digest(a3, "Y"), Digest(a3, "Y")], static _ => { });
        var none = await catalog.FindFilesOnOtherMachinesAsync("alpha", [], static _ => { });

        // Largest first; beta's /b/3 (a content alpha lacks) and gamma's /c/2 are in none; alpha's own files in none.
        Assert.Equal([["beta:/b/2", "gamma:/c/1"], ["beta:/b/1"]], all.Select(Names));
        Assert.Equal([30L, 10L], all.Select(group => group.Length));
        Assert.Equal(Sha("Y"), all[0].Sha256.ToArray());
        Assert.Equal([["beta:/b/2", "gamma:/c/1"]], some.Select(Names));
        Assert.Empty(none);
        // The same as the groups across machines without alpha's files, and as the base class's default.
        var across = await catalog.FindGroupsAcrossMachinesAsync("alpha", static _ => { });
        Assert.Equal(across.Select(group => Names(group).Where(name => !name.StartsWith("alpha:", StringComparison.Ordinal))), all.Select(Names));
        var byDefault = await new DelegatingCatalog(catalog).FindFilesOnOtherMachinesAsync("alpha", contents: null, static _ => { });
        Assert.Equal(all.Select(Names), byDefault.Select(Names));
        Assert.Equal(all.Select(group => group.Files.Select(file => file.Stamp)), byDefault.Select(group => group.Files.Select(file => file.Stamp)));
        var someByDefault = await new DelegatingCatalog(catalog).FindFilesOnOtherMachinesAsync("alpha", [Digest(a3, "Y")], static _ => { });
        Assert.Equal(some.Select(Names), someByDefault.Select(Names));
        await Assert.ThrowsAsync<ArgumentNullException>(() => catalog.FindFilesOnOtherMachinesAsync("alpha", null, null!));
        await Assert.ThrowsAsync<ArgumentNullException>(() => new DelegatingCatalog(catalog).FindFilesOnOtherMachinesAsync("alpha", null, null!));
    }

    [PostgresFact]
    public async Task A_catalog_without_digests_gives_none_and_a_scan_through_it_reports_the_same_groups()
    {
        await using var store = postgres.NewCatalog("otherscan");
        var fallback = new DelegatingCatalog(store);
        Assert.Null(await fallback.GetDigestsAsync("alpha"));
        var q = TempTree.RandomBytes(3_000, 92);
        var (alpha, beta) = PAndK();
        using var _ = alpha;
        using var __ = beta;
        alpha.Write("q.bin", q);
        beta.HardLink("one/k.bin", "one/k-link.bin");
        await EarlyRead.ConvergeAsync(store, alpha, beta);

        // Beta's rescans: one change (q's content), through the catalog's digests and through the fallback.
        EarlyRead.Rewrite(beta, "p.bin", q, minutes: 1);
        var (byContent, summary) = await EarlyRead.ScanAsync(store, "beta", beta);
        var (byGroups, fallbackSummary) = await EarlyRead.ScanAsync(fallback, "beta", beta);

        Assert.Null(summary.Catalog!.Error);
        Assert.Null(fallbackSummary.Catalog!.Error);
        Assert.Equal(1, summary.Catalog.FilesHashed);
        Assert.Equal(EarlyRead.Describe(byGroups), EarlyRead.Describe(byContent));
        Assert.Equal(
            [
                $"alpha:{alpha.PathOf("k.bin")} alpha:{alpha.PathOf("k2.bin")} beta:{beta.PathOf("k.bin")} beta:{beta.PathOf("one/k-link.bin")}={beta.PathOf("one/k.bin")}",
                $"alpha:{alpha.PathOf("q.bin")} beta:{beta.PathOf("p.bin")}",
            ],
            EarlyRead.Describe(byContent));
        Assert.Equal(summary.Catalog.GroupsAcrossMachines, fallbackSummary.Catalog.GroupsAcrossMachines);
    }

    [PostgresFact]
    public async Task A_catalog_giving_one_content_in_several_groups_is_reported_as_one_group_per_content()
    {
        await using var store = postgres.NewCatalog("othersplit");
        var (alpha, beta) = PAndK();
        using var _ = alpha;
        using var __ = beta;
        await EarlyRead.ConvergeAsync(store, alpha, beta);

        var (whole, _) = await EarlyRead.ScanAsync(store, "beta", beta);
        var splitByContent = new SplitCatalog(store, byContent: true);
        var (byContent, summary) = await EarlyRead.ScanAsync(splitByContent, "beta", beta);
        var splitGroups = new SplitCatalog(store, byContent: false);
        var (byGroups, fallbackSummary) = await EarlyRead.ScanAsync(splitGroups, "beta", beta);

        Assert.Equal(
            [
                $"alpha:{alpha.PathOf("k.bin")} alpha:{alpha.PathOf("k2.bin")} beta:{beta.PathOf("k.bin")} beta:{beta.PathOf("one/k.bin")}",
                $"alpha:{alpha.PathOf("p.bin")} beta:{beta.PathOf("p.bin")}",
            ],
            EarlyRead.Describe(whole));
        Assert.Equal(EarlyRead.Describe(whole), EarlyRead.Describe(byContent));
        Assert.Equal(EarlyRead.Describe(whole), EarlyRead.Describe(byGroups));
        Assert.Equal(2, summary.Catalog!.GroupsAcrossMachines);
        Assert.Equal(2, fallbackSummary.Catalog!.GroupsAcrossMachines);
        foreach (var groups in new[] { whole, byContent, byGroups })
        {
            // p is one file here, so its group is the catalog's alone: nothing in it was compared, nothing is this scan's
            // to act on; k's is beta's byte-compared pair with alpha's copies.
            var alone = groups.Single(group => group.Files.Any(file => file.Path.ToString() == beta.PathOf("p.bin")));
            Assert.False(alone.VerifiedByBytes);
            Assert.Empty(alone.Roots);
            Assert.All(alone.Files, file => Assert.True(file.MatchedBySha256));
            var joined = groups.Single(group => group.Files.Count == 4);
            Assert.True(joined.VerifiedByBytes);
            Assert.Equal(["alpha", "alpha"], joined.Files.Where(file => file.MatchedBySha256).Select(file => file.Machine));
        }

        Assert.Equal(1, splitByContent.Splits); // alpha's two files of k in two groups
        Assert.Equal(4, splitGroups.Splits); // with beta's two of k and one of p: six groups for two
    }

    /// <summary>
    /// Two machines' trees: p on both (one file each), k twice on alpha and as beta's own pair (k.bin, one/k.bin).
    /// </summary>
    private static (TempTree Alpha, TempTree Beta) PAndK()
    {
        var p = TempTree.RandomBytes(3_000, 91);
        var k = TempTree.RandomBytes(5_000, 93);
        var alpha = new TempTree();
        alpha.Write("p.bin", p);
        alpha.Write("k.bin", k);
        alpha.Write("k2.bin", k);
        var beta = new TempTree();
        beta.Write("p.bin", p);
        beta.Write("k.bin", k);
        beta.Write("one/k.bin", k);
        return (alpha, beta);
    }

    /// <summary>A custom catalog that gives each file of a group as a group of its own (one content in several groups).</summary>
    private sealed class SplitCatalog(PostgresCatalog store, bool byContent) : DelegatingCatalog(store)
    {
        public override Task<IReadOnlyCollection<CatalogDigest>?> GetDigestsAsync(string machine, CancellationToken cancellationToken = default) =>
            byContent ? Store.GetDigestsAsync(machine, cancellationToken) : base.GetDigestsAsync(machine, cancellationToken);

        public override async Task<IReadOnlyList<CatalogGroup>> FindFilesOnOtherMachinesAsync(string machine, IReadOnlyCollection<CatalogDigest>? contents, Action<string> skipped, CancellationToken cancellationToken = default) =>
            Split(await Store.FindFilesOnOtherMachinesAsync(machine, contents, skipped, cancellationToken));

        public override async Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, Action<string> skipped, CancellationToken cancellationToken = default) =>
            Split(await Store.FindGroupsAcrossMachinesAsync(machine, skipped, cancellationToken));

        public override async Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, IReadOnlyCollection<CatalogDigest> digests, Action<string> skipped, CancellationToken cancellationToken = default) =>
            Split(await Store.FindGroupsAcrossMachinesAsync(machine, digests, skipped, cancellationToken));

        /// <summary>How many groups more the reads gave than the catalog's.</summary>
        public int Splits { get; private set; }

        private List<CatalogGroup> Split(IReadOnlyList<CatalogGroup> groups)
        {
            var split = groups.SelectMany(group => group.Files.Select(file => group with { Files = [file] })).ToList();
            Splits += split.Count - groups.Count;
            return split;
        }
    }
}
