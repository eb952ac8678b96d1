using System.Security.Cryptography;
using Dedup.Core.Catalog;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// A rescan reads the groups of its unchanged files at its size barrier, beside its comparison, and once its files and
/// digests are stored only those of the contents it hashed (<see cref="FileCatalog.FindGroupsAcrossMachinesAsync(string, IReadOnlyCollection{CatalogDigest}, Action{string}, CancellationToken)"/>):
/// the result is the one a single read after the scan gives, whether the catalog answers the read by contents itself
/// (PostgreSQL) or by the default (every group, filtered).
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogEarlyReadTests(PostgresFixture postgres)
{
    private static readonly byte[] P1 = TempTree.RandomBytes(3_000, 31);
    private static readonly byte[] P2 = TempTree.RandomBytes(3_000, 32);
    private static readonly byte[] K = TempTree.RandomBytes(5_000, 33);

    [PostgresFact]
    public Task A_file_changed_to_another_machines_content_moves_to_that_group_and_leaves_its_old_one() => ChangedFileAsync(defaultRead: false);

    [PostgresFact]
    public Task The_default_read_by_contents_gives_the_same_groups() => ChangedFileAsync(defaultRead: true);

    [PostgresFact]
    public Task A_file_changed_to_another_machines_content_moves_to_that_group_named_from_the_scans_digests() => ChangedFileAsync(defaultRead: false, byContent: true);

    [PostgresFact]
    public Task The_default_read_of_other_machines_files_gives_the_same_groups() => ChangedFileAsync(defaultRead: true, byContent: true);

    private async Task ChangedFileAsync(bool defaultRead, bool byContent = false)
    {
        await using var store = postgres.NewCatalog(defaultRead ? "earlydefault" : "earlyoverride");
        var catalog = new EarlyReadCatalog(store, defaultRead, byContent);
        using var alpha = EarlyRead.Alpha(P1, P2, K); // p1 and p2 of one size: alpha hashes both
        using var beta = new TempTree();
        beta.Write("f.bin", P1);
        beta.Write("k.bin", K);
        // Alpha, beta, alpha: alpha hashes k.bin (a size only it had at first) once beta asked for it.
        await EarlyRead.ScanAsync(catalog, "alpha", alpha);
        await EarlyRead.ScanAsync(catalog, "beta", beta);
        await EarlyRead.ScanAsync(catalog, "alpha", alpha); // alpha's rescan hashed k.bin: one read by contents
        Assert.Equal(1, catalog.ByContents);
        var (first, _) = await EarlyRead.ScanAsync(catalog, "beta", beta); // an unchanged rescan: the early read alone
        Assert.Equal(1, catalog.ByContents);
        catalog.ContentsAsked.Clear();
        Assert.Equal(
            [EarlyRead.K(alpha, beta), $"alpha:{alpha.PathOf("p1.bin")} beta:{beta.PathOf("f.bin")}"],
            EarlyRead.Describe(first));

        EarlyRead.Rewrite(beta, "f.bin", P2, minutes: 1);
        var (groups, summary) = await EarlyRead.ScanAsync(catalog, "beta", beta);

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal(1, summary.Catalog.FilesHashed);
        Assert.Equal(2, catalog.ByContents); // the changed file's content, read once its digest was stored
        Assert.Equal([SHA256.HashData(P2)], catalog.ContentsAsked.Select(sha => sha.ToArray()));
        Assert.Equal(
            [EarlyRead.K(alpha, beta), $"alpha:{alpha.PathOf("p2.bin")} beta:{beta.PathOf("f.bin")}"],
            EarlyRead.Describe(groups));
        Assert.Equal(2, summary.Catalog.GroupsAcrossMachines);
    }

    [PostgresFact]
    public async Task A_deleted_file_is_in_no_group_even_when_a_new_file_takes_its_inode()
    {
        await using var catalog = postgres.NewCatalog("earlydeleted");
        using var alpha = EarlyRead.Alpha(P1, P2, K);
        using var beta = new TempTree();
        beta.Write("f.bin", P1);
        beta.Write("k.bin", K);
        await EarlyRead.ScanAsync(catalog, "alpha", alpha);
        await EarlyRead.ScanAsync(catalog, "beta", beta);
        await EarlyRead.ScanAsync(catalog, "alpha", alpha);

        // The new file usually takes the freed inode (ext4, tmpfs): the early read's stale row of f.bin then names the
        // identity of a file of beta's own group of K's size, which must not be joined to P1's group.
        File.Delete(beta.PathOf("f.bin"));
        beta.Write("g1.bin", TempTree.RandomBytes(3_000, 34));
        beta.Write("g2.bin", File.ReadAllBytes(beta.PathOf("g1.bin")));
        var (groups, summary) = await EarlyRead.ScanAsync(catalog, "beta", beta);

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal(
            [EarlyRead.K(alpha, beta), $"beta:{beta.PathOf("g1.bin")} beta:{beta.PathOf("g2.bin")}"],
            EarlyRead.Describe(groups));
    }

    [PostgresFact]
    public async Task The_stored_stamps_are_asked_for_before_the_folders_are_listed()
    {
        await using var store = postgres.NewCatalog("earlystamps");
        using var tree = new TempTree();
        tree.Write("a.bin", P1);
        tree.Write("b.bin", P2);

        // The query writes a file into the tree as it is made: listed only when the query came before the listing.
        var (_, summary) = await EarlyRead.ScanAsync(new WritingOnStampQuery(store, tree.PathOf("c.bin")), "alpha", tree);

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal(3, summary.FilesScanned);
    }

    /// <summary>The real catalog; asking for the stored stamps writes a file first.</summary>
    private sealed class WritingOnStampQuery(Dedup.Core.PostgreSql.PostgresCatalog catalog, string path) : DelegatingCatalog(catalog)
    {
        public override Task<IReadOnlyCollection<Core.Enumeration.FileStamp>> GetDigestedFilesAsync(string machine, CancellationToken cancellationToken = default)
        {
            File.WriteAllBytes(path, K);
            return Store.GetDigestedFilesAsync(machine, cancellationToken);
        }
    }
}
