using System.Security.Cryptography;
using Dedup.Core.Catalog;
using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// A fleet as a sysadmin meets it (#40): a content on several machines is one group, and a scan whose result is
/// partial (another machine has not hashed its files of a shared size yet) says so and asks that machine for them.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogFleetTests(PostgresFixture postgres)
{
    private static readonly byte[] X = TempTree.RandomBytes(1_000, 11);
    private static readonly byte[] Y = TempTree.RandomBytes(2_000, 12);
    private static readonly byte[] Z = TempTree.RandomBytes(3_000, 13);
    private static readonly byte[] W = TempTree.RandomBytes(4_000, 14);
    private static readonly byte[] V = TempTree.RandomBytes(5_000, 15);

    [PostgresFact]
    public async Task A_content_on_two_machines_is_one_group_and_its_bytes_are_counted_once()
    {
        await using var catalog = postgres.NewCatalog("fleetone");
        using var alpha = new TempTree();
        using var beta = new TempTree();
        // Five contents, each twice on alpha and twice on beta: each is one group of four files, not beta's local
        // group and again a group across machines holding the same two files of beta (the 47 groups twice).
        var contents = Enumerable.Range(0, 5).Select(i => TempTree.RandomBytes(10_000 + (i * 100), 100 + i)).ToArray();
        for (var i = 0; i < contents.Length; i++)
        {
            alpha.Write($"one/{i}.bin", contents[i]);
            alpha.Write($"two/{i}.bin", contents[i]);
            beta.Write($"x/{i}.bin", contents[i]);
            beta.Write($"y/{i}.bin", contents[i]);
        }

        await ScanAsync(catalog, "alpha", alpha);
        var (groups, summary) = await ScanAsync(catalog, "beta", beta);

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal(contents.Length, groups.Count);
        Assert.Equal(contents.Length, summary.Groups);
        Assert.Equal(contents.Length, summary.Catalog!.GroupsAcrossMachines);
        Assert.Equal(contents.Sum(content => 3L * content.Length), summary.WastedBytes); // four files, one kept
        Assert.Equal(contents.Length * 3L, summary.DuplicateFiles);
        for (var i = 0; i < contents.Length; i++)
        {
            var group = Assert.Single(groups, g => g.Size == contents[i].Length);
            Assert.Equal(SHA256.HashData(contents[i]), group.Sha256.ToArray());
            Assert.True(group.VerifiedByBytes); // beta's two files were compared byte for byte
            Assert.Equal(
                [("alpha", alpha.PathOf($"one/{i}.bin"), true), ("alpha", alpha.PathOf($"two/{i}.bin"), true), ("beta", beta.PathOf($"x/{i}.bin"), false), ("beta", beta.PathOf($"y/{i}.bin"), false)],
                group.Files.Select(f => (f.Machine, f.Path.ToString(), f.MatchedBySha256)).OrderBy(f => f.Machine, StringComparer.Ordinal).ThenBy(f => f.Item2, StringComparer.Ordinal));
            Assert.NotEmpty(group.Roots); // beta's own part is beta's to act on
        }

        // Acting locally: only beta's byte-verified files, one kept of each pair; alpha's paths are never named.
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().Plan(groups);
        Assert.Equal(contents.Length, plan.Actions.Count);
        Assert.All(plan.Actions, action =>
        {
            Assert.Null(action.Refusal);
            Assert.StartsWith(beta.Root + "/", action.Path.ToString(), StringComparison.Ordinal);
            Assert.StartsWith(beta.Root + "/", action.Kept.Path.ToString(), StringComparison.Ordinal);
        });
    }

    [PostgresFact]
    public async Task Alpha_beta_alpha_beta_converges_to_the_truth_and_round_one_says_what_is_pending()
    {
        await using var catalog = postgres.NewCatalog("fleetpending");
        using var alpha = new TempTree();
        using var beta = new TempTree();
        alpha.Write("a/x.bin", X); // sizes unique on alpha: no digest from its first scan
        alpha.Write("a/y.bin", Y);
        alpha.Write("a/z1.bin", Z); // a size shared on alpha: hashed at once
        alpha.Write("a/z2.bin", Z);
        alpha.Write("a/w.bin", W); // no copy anywhere, no size in common
        beta.Write("b/x.bin", X);
        beta.Write("b/x2.bin", X);
        beta.Write("b/y.bin", Y);
        beta.Write("b/z.bin", Z);
        beta.Write("b/v1.bin", V);
        beta.Write("b/v2.bin", V);
        beta.Write("b/v3.bin", V); // beta's own: more files outside the pending sizes than in them

        var (_, alpha1) = await ScanAsync(catalog, "alpha", alpha);
        Assert.Empty(alpha1.Catalog!.PendingMatches); // nobody else yet
        var (beta1Groups, beta1) = await ScanAsync(catalog, "beta", beta);

        // Round one: beta's X and Y may match alpha's files, which have no digest yet; the missing matches are
        // exactly beta's files whose content alpha also holds, and all of them are named as pending.
        var truth = await TruthAsync(alpha, beta);
        bool OnBeta(DuplicateFile file) => file.Path.ToString().StartsWith(beta.Root + "/", StringComparison.Ordinal);
        var missing = truth.Where(g => !g.Files.All(OnBeta)).Sum(g => g.Files.Count(OnBeta))
            - beta1Groups.Where(g => !g.Sha256.IsEmpty).Sum(g => g.Files.Count(f => f.Machine == "beta"));
        Assert.Equal(3, missing); // b/x.bin, b/x2.bin, b/y.bin
        Assert.Equal(new Dictionary<string, long> { ["alpha"] = missing }, beta1.Catalog!.PendingMatches);
        Assert.Equal(0, beta1.Catalog.FilesHashedOnRequest);

        // Round two: alpha hashes exactly the files beta asked for, and says so.
        var (alphaGroups, alpha2) = await ScanAsync(catalog, "alpha", alpha);
        Assert.Equal(2, alpha2.Catalog!.FilesHashed);
        Assert.Equal(2, alpha2.Catalog.FilesHashedOnRequest);
        Assert.Empty(alpha2.Catalog.PendingMatches);
        var (betaGroups, beta2) = await ScanAsync(catalog, "beta", beta);
        Assert.Empty(beta2.Catalog!.PendingMatches);
        Assert.Equal(0, beta2.Catalog.FilesHashedOnRequest);

        // The full truth: what one local scan of both trees finds, each group once (beta's V holds no alpha file).
        Assert.Equal(Scan.Canonical(truth), Scan.Canonical(betaGroups));
        Assert.Equal(truth.Sum(g => g.WastedBytes), beta2.WastedBytes);
        Assert.Equal(
            Scan.Canonical(truth.Where(g => g.Files.Any(f => f.Path.ToString().StartsWith(alpha.Root + "/", StringComparison.Ordinal)))),
            Scan.Canonical(alphaGroups));
    }

    [PostgresFact]
    public async Task A_catalog_failing_after_the_compare_still_reports_the_held_local_groups_once()
    {
        await using var store = postgres.NewCatalog("fleetfail");
        using var alpha = new TempTree();
        using var beta = new TempTree();
        alpha.Write("one/z.bin", Z);
        alpha.Write("two/z.bin", Z);
        beta.Write("x/z.bin", Z);
        beta.Write("y/z.bin", Z);
        await ScanAsync(store, "alpha", alpha);

        var (groups, summary) = await ScanAsync(new FailingExchange(store), "beta", beta);

        Assert.IsType<InvalidOperationException>(summary.Catalog!.Error);
        var local = Assert.Single(groups); // held back for alpha's copies, reported as found when the catalog failed
        Assert.True(local.Sha256.IsEmpty);
        Assert.True(local.VerifiedByBytes);
        Assert.Equal([beta.PathOf("x/z.bin"), beta.PathOf("y/z.bin")], local.Files.Select(f => f.Path.ToString()));
        Assert.Equal(1, summary.Groups);
        Assert.Equal(Z.Length, summary.WastedBytes);
        Assert.Equal(0, summary.Catalog.GroupsAcrossMachines);
    }

    [PostgresFact]
    public async Task Machines_of_one_layout_share_their_folders_in_the_groups_across_them()
    {
        // The same paths on two machines (one tree scanned as each, a fleet cloned from one image): the other machine's
        // files are named in this scan's own folders, one node per folder, and sorted beside them as their paths say.
        await using var catalog = postgres.NewCatalog("fleetlayout");
        using var tree = new TempTree();
        tree.Write("a/x.bin", X);
        tree.Write("c/d/x.bin", X);
        tree.Write("a/b/y.bin", Y);
        tree.Write("a/b/y2.bin", Y);
        await ScanAsync(catalog, "peer", tree);

        var (groups, summary) = await ScanAsync(catalog, "bench", tree);

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal([4, 4], groups.Select(group => group.Files.Count));
        foreach (var group in groups)
        {
            var mine = group.Files.Where(file => file.Machine == "bench").ToList();
            var theirs = group.Files.Where(file => file.Machine == "peer").ToList();
            Assert.Equal(mine.Select(file => file.Path), theirs.Select(file => file.Path));
            Assert.All(mine.Zip(theirs), pair => Assert.Same(pair.First.Path.Parent, pair.Second.Path.Parent));
            // By path, then machine: each of this machine's files before the other machine's at the same path.
            Assert.Equal(group.Files.SelectMany(_ => new[] { "bench", "peer" }).Take(group.Files.Count), group.Files.Select(file => file.Machine));
        }
    }

    /// <summary>The real catalog, but the exchange of digest requests fails.</summary>
    private sealed class FailingExchange(Dedup.Core.PostgreSql.PostgresCatalog store) : DelegatingCatalog(store)
    {
        public override Task<CatalogDigestRequests> ExchangeDigestRequestsAsync(string machine, IReadOnlyCollection<long> undigestedSizes, CancellationToken cancellationToken = default) =>
            Task.FromException<CatalogDigestRequests>(new InvalidOperationException("the exchange failed"));
    }

    /// <summary>The groups of one local scan of both trees (no catalog): what the fleet should converge to.</summary>
    private static async Task<List<DuplicateGroup>> TruthAsync(TempTree alpha, TempTree beta) =>
        (await Scan.RunAsync(b => b.AddRoot(alpha.Root).AddRoot(beta.Root))).Groups;

    private static Task<(List<DuplicateGroup> Groups, Reporting.ScanSummary Summary)> ScanAsync(FileCatalog catalog, string machine, TempTree tree) =>
        Scan.RunAsync(b => b.AddRoot(tree.Root).UseCatalog(catalog, machine));
}
