using Dedup.Core.Catalog;
using Dedup.Core.Tests.EnumerationTests;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// A catalog trusts the digests of a custom source's files as it trusts the walk's (#36 point 1) when they carry a
/// change time (<see cref="Enumeration.ScannedFile.FromPath"/>): a rescan hashes nothing that did not change.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogCustomSourceTests(PostgresFixture postgres)
{
    [PostgresFact]
    public async Task A_rescan_through_a_source_of_FromPath_files_keeps_every_digest()
    {
        await using var catalog = postgres.NewCatalog("custom");
        using var tree = new TempTree();
        var installer = TempTree.RandomBytes(30_000, 1);
        tree.Write("setup.exe", installer);
        tree.Write("copy/setup.exe", installer);
        tree.Write("photo.jpg", TempTree.RandomBytes(12_345, 2));

        var first = await ScanAsync(catalog, "fromPath", tree, new PathListEnumerator());
        var again = await ScanAsync(catalog, "fromPath", tree, new PathListEnumerator());

        Assert.Null(first.Catalog!.Error);
        Assert.Equal(2, first.Catalog.FilesHashed); // the two of a size shared on this machine
        Assert.Equal(3, again.Catalog!.FilesRecorded);
        Assert.Equal(0, again.Catalog.FilesHashed);
        Assert.Equal(1, again.Groups);
    }

    [PostgresFact]
    public async Task A_source_without_change_times_is_hashed_again_on_every_scan()
    {
        await using var catalog = postgres.NewCatalog("customBare");
        using var tree = new TempTree();
        var installer = TempTree.RandomBytes(30_000, 1);
        tree.Write("setup.exe", installer);
        tree.Write("copy/setup.exe", installer);

        var first = await ScanAsync(catalog, "bare", tree, new PathListEnumerator(withoutChangeTime: true));
        var again = await ScanAsync(catalog, "bare", tree, new PathListEnumerator(withoutChangeTime: true));

        Assert.Equal(2, first.Catalog!.FilesHashed);
        Assert.Equal(2, again.Catalog!.FilesHashed); // a digest is never kept under an unknown change time
    }

    private static async Task<Reporting.ScanSummary> ScanAsync(FileCatalog catalog, string machine, TempTree tree, PathListEnumerator source) =>
        (await Scan.RunAsync(b => b.AddRoot(tree.Root).UseCatalog(catalog, machine).UseFileEnumerator(source))).Summary;
}
