using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// A rescan's groups across machines come from two reads (its unchanged files' groups at the size barrier, the groups
/// of the contents it hashed once they are stored): after each change a file can go through between two scans, the
/// scan reports what one read of the catalog after it gives, which an unchanged rescan right after it reports too.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogEarlyReadRescanTests(PostgresFixture postgres)
{
    private static readonly byte[] P1 = TempTree.RandomBytes(3_000, 41);
    private static readonly byte[] P2 = TempTree.RandomBytes(3_000, 42);
    private static readonly byte[] K = TempTree.RandomBytes(5_000, 43);

    [PostgresFact]
    public Task A_file_changed_to_another_content_and_back_rejoins_its_old_group() => ChangedBackAsync(defaultRead: false);

    [PostgresFact]
    public Task A_file_changed_to_another_content_and_back_rejoins_its_old_group_by_the_default_read() => ChangedBackAsync(defaultRead: true);

    [PostgresFact]
    public Task A_file_changed_to_another_content_and_back_rejoins_its_old_group_named_from_the_scans_digests() => ChangedBackAsync(defaultRead: false, byContent: true);

    [PostgresFact]
    public Task A_file_changed_to_another_content_and_back_rejoins_its_old_group_named_from_the_scans_digests_by_the_default_read() => ChangedBackAsync(defaultRead: true, byContent: true);

    private async Task ChangedBackAsync(bool defaultRead, bool byContent = false)
    {
        await using var store = postgres.NewCatalog("earlyback");
        var catalog = new EarlyReadCatalog(store, defaultRead, byContent);
        using var alpha = EarlyRead.Alpha(P1, P2, K);
        using var beta = new TempTree();
        beta.Write("f.bin", P1);
        beta.Write("k.bin", K);
        await EarlyRead.ConvergeAsync(catalog, alpha, beta);

        EarlyRead.Rewrite(beta, "f.bin", P2, minutes: 1);
        var (changed, _) = await EarlyRead.ScanAsync(catalog, "beta", beta);
        Assert.Equal([EarlyRead.K(alpha, beta), $"alpha:{alpha.PathOf("p2.bin")} beta:{beta.PathOf("f.bin")}"], EarlyRead.Describe(changed));

        EarlyRead.Rewrite(beta, "f.bin", P1, minutes: 2);
        var (groups, summary) = await EarlyRead.ScanAsync(catalog, "beta", beta);

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal(1, summary.Catalog.FilesHashed);
        Assert.Equal(3, catalog.ByContents); // alpha's k.bin, then each change, by contents
        Assert.Equal([EarlyRead.K(alpha, beta), $"alpha:{alpha.PathOf("p1.bin")} beta:{beta.PathOf("f.bin")}"], EarlyRead.Describe(groups));
        Assert.Equal(2, summary.Catalog.GroupsAcrossMachines);
        await EarlyRead.SameAfterAsync(catalog, beta, groups);
    }

    [PostgresFact]
    public Task A_file_changed_to_the_content_of_another_file_of_the_machine_joins_that_group_and_leaves_its_own() => SiblingAsync(storedFirst: false);

    [PostgresFact]
    public Task An_early_read_answered_after_the_files_were_stored_gives_the_same_groups_for_a_sibling_content() => SiblingAsync(storedFirst: true);

    [PostgresFact]
    public Task A_file_changed_to_the_content_of_another_file_of_the_machine_joins_that_group_named_from_the_scans_digests() => SiblingAsync(storedFirst: false, byContent: true);

    [PostgresFact]
    public Task An_early_read_of_other_machines_files_answered_after_the_files_were_stored_gives_the_same_groups_for_a_sibling_content() => SiblingAsync(storedFirst: true, byContent: true);

    private async Task SiblingAsync(bool storedFirst, bool byContent = false)
    {
        await using var store = postgres.NewCatalog("earlysibling");
        var catalog = new EarlyReadCatalog(store, defaultRead: false, byContent);
        using var alpha = EarlyRead.Alpha(P1, P2, K);
        using var beta = new TempTree();
        beta.Write("f1.bin", P1);
        beta.Write("f2.bin", P2);
        beta.Write("k.bin", K);
        await EarlyRead.ConvergeAsync(catalog, alpha, beta);

        EarlyRead.Rewrite(beta, "f2.bin", P1, minutes: 1);
        catalog.EarlyAfterStore = storedFirst;
        var (groups, summary) = await EarlyRead.ScanAsync(catalog, "beta", beta);
        catalog.EarlyAfterStore = false;

        Assert.Null(summary.Catalog!.Error);
        // P2's early group held f2.bin's old stamp only: alpha's p2.bin alone is no group of beta's.
        Assert.Equal(
            [EarlyRead.K(alpha, beta), $"alpha:{alpha.PathOf("p1.bin")} beta:{beta.PathOf("f1.bin")} beta:{beta.PathOf("f2.bin")}"],
            EarlyRead.Describe(groups));
        var p1 = Assert.Single(groups, group => group.Size == P1.Length);
        Assert.True(p1.VerifiedByBytes); // beta's two files, compared here, joined with alpha's
        Assert.Equal(2, summary.Catalog.GroupsAcrossMachines);
        await EarlyRead.SameAfterAsync(catalog, beta, groups);
    }

    [PostgresFact]
    public async Task Files_of_swapped_folders_keep_their_stamps_and_are_named_by_their_new_paths()
    {
        await using var store = postgres.NewCatalog("earlyswap");
        var catalog = new EarlyReadCatalog(store, defaultRead: false);
        using var alpha = EarlyRead.Alpha(P1, P2, K);
        using var beta = new TempTree();
        beta.Write("d1/f.bin", P1);
        beta.Write("d2/f.bin", P2);
        beta.Write("k.bin", K);
        await EarlyRead.ConvergeAsync(catalog, alpha, beta);
        var before = catalog.ByContents;

        // A folder's rename changes no stamp of the files in it: the catalog's rows name the old paths.
        Directory.Move(beta.PathOf("d1"), beta.PathOf("tmp"));
        Directory.Move(beta.PathOf("d2"), beta.PathOf("d1"));
        Directory.Move(beta.PathOf("tmp"), beta.PathOf("d2"));
        var (groups, summary) = await EarlyRead.ScanAsync(catalog, "beta", beta);

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal(0, summary.Catalog.FilesHashed);
        Assert.Equal(before, catalog.ByContents); // the early read alone
        Assert.Equal(
            [EarlyRead.K(alpha, beta), $"alpha:{alpha.PathOf("p1.bin")} beta:{beta.PathOf("d2/f.bin")}", $"alpha:{alpha.PathOf("p2.bin")} beta:{beta.PathOf("d1/f.bin")}"],
            EarlyRead.Describe(groups));
        await EarlyRead.SameAfterAsync(catalog, beta, groups);
    }

    [PostgresFact]
    public async Task A_hard_link_added_then_the_first_name_removed_names_the_file_as_it_is_now()
    {
        await using var store = postgres.NewCatalog("earlylink");
        var catalog = new EarlyReadCatalog(store, defaultRead: false);
        using var alpha = EarlyRead.Alpha(P1, P2, K);
        using var beta = new TempTree();
        beta.Write("f.bin", P1);
        beta.Write("k.bin", K);
        await EarlyRead.ConvergeAsync(catalog, alpha, beta);

        beta.HardLink("f.bin", "l/g.bin");
        var (linked, linkedSummary) = await EarlyRead.ScanAsync(catalog, "beta", beta);
        Assert.Null(linkedSummary.Catalog!.Error);
        Assert.Equal(
            [EarlyRead.K(alpha, beta), $"alpha:{alpha.PathOf("p1.bin")} beta:{beta.PathOf("f.bin")}={beta.PathOf("l/g.bin")}"],
            EarlyRead.Describe(linked));

        File.Delete(beta.PathOf("f.bin"));
        var (groups, summary) = await EarlyRead.ScanAsync(catalog, "beta", beta);

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal([EarlyRead.K(alpha, beta), $"alpha:{alpha.PathOf("p1.bin")} beta:{beta.PathOf("l/g.bin")}"], EarlyRead.Describe(groups));
        await EarlyRead.SameAfterAsync(catalog, beta, groups);
    }

    [PostgresFact]
    public Task A_content_whose_early_group_lost_the_machines_file_comes_back_from_the_late_read() => LostAndFoundAsync(defaultRead: false);

    [PostgresFact]
    public Task A_content_whose_early_group_lost_the_machines_file_comes_back_from_the_default_late_read() => LostAndFoundAsync(defaultRead: true);

    [PostgresFact]
    public Task An_early_read_answered_after_the_files_were_stored_gives_the_same_groups_for_a_lost_content() => LostAndFoundAsync(defaultRead: false, storedFirst: true);

    [PostgresFact]
    public Task A_content_whose_early_group_lost_the_machines_file_comes_back_named_from_the_scans_digests() => LostAndFoundAsync(defaultRead: false, byContent: true);

    [PostgresFact]
    public Task A_content_whose_early_group_lost_the_machines_file_comes_back_named_from_the_scans_digests_by_the_default_read() => LostAndFoundAsync(defaultRead: true, byContent: true);

    [PostgresFact]
    public Task An_early_read_of_other_machines_files_answered_after_the_files_were_stored_gives_the_same_groups_for_a_lost_content() => LostAndFoundAsync(defaultRead: false, storedFirst: true, byContent: true);

    private async Task LostAndFoundAsync(bool defaultRead, bool storedFirst = false, bool byContent = false)
    {
        await using var store = postgres.NewCatalog(defaultRead ? "earlylostdefault" : "earlylost");
        var catalog = new EarlyReadCatalog(store, defaultRead, byContent);
        using var alpha = EarlyRead.Alpha(P1, P2, K);
        using var beta = new TempTree();
        beta.Write("f.bin", P1);
        beta.Write("k.bin", K);
        await EarlyRead.ConvergeAsync(catalog, alpha, beta);

        // f.bin leaves P1 for P2, and a new file (another inode) takes P1: the early read's P1 group is left with
        // none of beta's files, the late read has it again.
        EarlyRead.Rewrite(beta, "f.bin", P2, minutes: 1);
        beta.Write("g.bin", P1);
        catalog.EarlyAfterStore = storedFirst;
        var (groups, summary) = await EarlyRead.ScanAsync(catalog, "beta", beta);
        catalog.EarlyAfterStore = false;

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal(2, summary.Catalog.FilesHashed);
        Assert.Equal(
            [EarlyRead.K(alpha, beta), $"alpha:{alpha.PathOf("p1.bin")} beta:{beta.PathOf("g.bin")}", $"alpha:{alpha.PathOf("p2.bin")} beta:{beta.PathOf("f.bin")}"],
            EarlyRead.Describe(groups));
        Assert.Equal(3, summary.Catalog.GroupsAcrossMachines);
        await EarlyRead.SameAfterAsync(catalog, beta, groups);
    }
}
