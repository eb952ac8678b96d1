using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// A rescan's read of its unchanged files' groups at the size barrier, when it fails, and when the catalog has rows it
/// leaves out: the scan's local groups and one error, as with one read after the scan.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogEarlyReadFaultTests(PostgresFixture postgres)
{
    private static readonly byte[] P1 = TempTree.RandomBytes(3_000, 51);
    private static readonly byte[] P2 = TempTree.RandomBytes(3_000, 52);
    private static readonly byte[] K = TempTree.RandomBytes(5_000, 53);

    [PostgresFact]
    public Task A_failed_early_read_leaves_the_local_groups_and_the_catalogs_error() =>
        FailedEarlyReadAsync(postgres, () => new InvalidOperationException("the early read failed"), expected: typeof(InvalidOperationException));

    internal static async Task FailedEarlyReadAsync(PostgresFixture postgres, Func<Exception> failure, Type expected)
    {
        await using var store = postgres.NewCatalog("earlyfail");
        using var alpha = EarlyRead.Alpha(P1, P2, K);
        using var beta = new TempTree();
        beta.Write("f.bin", P1);
        beta.Write("k.bin", K);
        beta.Write("copy/k.bin", K);
        await EarlyRead.ConvergeAsync(store, alpha, beta);
        EarlyRead.Rewrite(beta, "f.bin", P2, minutes: 1); // a late read too, were the early one answered

        var failing = new FailingEarlyRead(store, failure);
        var (groups, summary) = await EarlyRead.ScanAsync(failing, "beta", beta);

        Assert.Equal(1, failing.EarlyReads);
        Assert.IsType(expected, summary.Catalog!.Error, exactMatch: false);
        // Beta's own group of K, held back for alpha's copy, reported as found; nothing of alpha's.
        var local = Assert.Single(groups);
        Assert.True(local.VerifiedByBytes);
        Assert.True(local.Sha256.IsEmpty);
        Assert.Equal([$"{beta.PathOf("copy/k.bin")} | {beta.PathOf("k.bin")}"], Scan.Canonical(groups));
        Assert.Equal(1, summary.Groups);
        Assert.Equal(0, summary.Catalog.GroupsAcrossMachines);
    }

    /// <summary>The catalog, but the read of all groups across machines (a rescan's early read) fails.</summary>
    internal sealed class FailingEarlyRead(PostgresCatalog store, Func<Exception> failure) : DelegatingCatalog(store)
    {
        public int EarlyReads { get; private set; }

        public override Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, Action<string> skipped, CancellationToken cancellationToken = default)
        {
            EarlyReads++;
            return Task.FromException<IReadOnlyList<CatalogGroup>>(failure());
        }

        public override Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, IReadOnlyCollection<CatalogDigest> digests, Action<string> skipped, CancellationToken cancellationToken = default) =>
            Store.FindGroupsAcrossMachinesAsync(machine, digests, skipped, cancellationToken);
    }
}
