using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// Found by attacking the early read (catmut), each failing on 5648610 and passing since c5b5baa: a cancellation the
/// catalog throws (not the scan's) is the catalog's failure; a content the later read finds in no group is in none.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogEarlyReadFixTests(PostgresFixture postgres)
{
    private static readonly byte[] P1 = TempTree.RandomBytes(3_000, 61);
    private static readonly byte[] P2 = TempTree.RandomBytes(3_000, 62);
    private static readonly byte[] K = TempTree.RandomBytes(5_000, 63);

    [PostgresFact]
    public Task An_early_read_cancelled_by_the_catalog_not_the_scan_leaves_the_local_groups_and_the_catalogs_error() =>
        CatalogEarlyReadFaultTests.FailedEarlyReadAsync(postgres, () => new OperationCanceledException("the catalog gave up"), expected: typeof(OperationCanceledException));

    [PostgresFact]
    public async Task A_content_the_late_read_finds_in_no_group_is_not_reported_from_the_early_read()
    {
        await using var store = postgres.NewCatalog("earlyasked");
        using var alpha = EarlyRead.Alpha(P1, P2, K);
        using var beta = new TempTree();
        beta.Write("f.bin", P1);
        beta.Write("k.bin", K);
        await EarlyRead.ConvergeAsync(store, alpha, beta);

        // Beta makes a second copy of P1 (hashed: its group is read again once stored); alpha drops its copy of P1 and
        // rescans after beta's early read, just before beta's late read asks for P1 and finds no group across machines.
        beta.Write("g.bin", P1);
        var racing = new RescanBeforeLateRead(store, async () =>
        {
            File.Delete(alpha.PathOf("p1.bin"));
            var (_, alphaSummary) = await EarlyRead.ScanAsync(store, "alpha", alpha);
            Assert.Null(alphaSummary.Catalog!.Error);
        });
        var (groups, summary) = await EarlyRead.ScanAsync(racing, "beta", beta);

        Assert.True(racing.Ran);
        Assert.Null(summary.Catalog!.Error);
        // The late read is the whole truth for P1: beta's own pair alone, not joined with alpha's deleted file.
        Assert.Equal(["A/k.bin B/k.bin", "B/f.bin B/g.bin"], Short(groups, alpha, beta));
    }

    /// <summary>Each group as its files' paths with alpha's root as A and beta's as B, sorted; the groups sorted.</summary>
    private static List<string> Short(List<DuplicateGroup> groups, TempTree alpha, TempTree beta) =>
        [.. groups.Select(group => string.Join(" ", group.Files.Select(file => file.Path.ToString().Replace(alpha.Root, "A", StringComparison.Ordinal).Replace(beta.Root, "B", StringComparison.Ordinal)).Order(StringComparer.Ordinal))).Order(StringComparer.Ordinal)];

    /// <summary>The catalog; a rescan's read by contents first runs another machine's scan (after the early read was answered).</summary>
    private sealed class RescanBeforeLateRead(PostgresCatalog store, Func<Task> other) : DelegatingCatalog(store)
    {
        public bool Ran { get; private set; }

        public override Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, Action<string> skipped, CancellationToken cancellationToken = default) =>
            Store.FindGroupsAcrossMachinesAsync(machine, skipped, cancellationToken);

        public override async Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, IReadOnlyCollection<CatalogDigest> digests, Action<string> skipped, CancellationToken cancellationToken = default)
        {
            if (!Ran)
            {
                Ran = true;
                await other();
            }

            return await Store.FindGroupsAcrossMachinesAsync(machine, digests, skipped, cancellationToken);
        }
    }
}
