using System.Security.Cryptography;
using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// Scans through <see cref="DuplicateFinderBuilder.UseCatalog"/> on real trees and a real PostgreSQL server: each
/// machine is a folder scanned under its own name.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogScanTests(PostgresFixture postgres)
{
    // Content shared across machines, and content only the size of which is shared.
    private static readonly byte[] Installer = TempTree.RandomBytes(30_000, 1);
    private static readonly byte[] Photo = TempTree.RandomBytes(12_345, 2);
    private static readonly byte[] SameSizeAsInstaller = TempTree.RandomBytes(30_000, 3);

    [PostgresFact]
    public async Task Two_machines_report_groups_across_machines_by_digest_and_local_groups_by_bytes()
    {
        await using var catalog = postgres.NewCatalog("scan2");
        using var alpha = new TempTree();
        alpha.Write("setup.exe", Installer);
        alpha.Write("copy/setup.exe", Installer);
        alpha.Write("photo.jpg", Photo); // a unique size on alpha: only the catalog can pair it
        using var beta = new TempTree();
        beta.Write("downloads/setup.exe", Installer);
        beta.Write("pictures/photo.jpg", Photo);
        beta.Write("other.bin", SameSizeAsInstaller);

        var (first, firstSummary) = await ScanAsync(catalog, "alpha", alpha);
        var local = Assert.Single(first); // no other machine yet
        Assert.True(local.VerifiedByBytes);
        Assert.True(local.Sha256.IsEmpty);
        Assert.All(local.Files, file => Assert.Equal("alpha", file.Machine));
        Assert.Equal(3, firstSummary.Catalog!.FilesRecorded);
        Assert.Null(firstSummary.Catalog.Error);

        var (groups, summary) = await ScanAsync(catalog, "beta", beta);

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal(3, summary.Catalog.FilesHashed); // every file of beta shares its size with one of alpha's
        // alpha hashed its installers (a size shared on alpha), not its photo (a unique size when alpha scanned):
        // files of another machine are matched as of that machine's last scan.
        var installers = Assert.Single(groups);
        Assert.Equal(1, summary.Catalog.GroupsAcrossMachines);
        Assert.Equal(1, summary.Groups);
        Assert.Equal(SHA256.HashData(Installer), installers.Sha256.ToArray());
        Assert.Equal(
            [("alpha", alpha.PathOf("copy/setup.exe")), ("alpha", alpha.PathOf("setup.exe")), ("beta", beta.PathOf("downloads/setup.exe"))],
            Names(installers));
        Assert.False(installers.VerifiedByBytes);
        Assert.Empty(installers.Roots); // other machines' files are not this machine's to act on

        // alpha's rescan hashes its photo (beta has one of that size). Its installers are one group with beta's copy
        // (#40: not its own group again inside one across machines): its two files compared byte for byte, under the
        // scan's roots (those two are alpha's to act on), beta's matched by SHA-256 only.
        var (again, againSummary) = await ScanAsync(catalog, "alpha", alpha);
        Assert.Equal(2, again.Count);
        Assert.Equal(2, againSummary.Groups);
        Assert.Equal(2, againSummary.Catalog!.GroupsAcrossMachines);
        Assert.Equal(1, againSummary.Catalog.FilesHashed); // the installers kept their digests
        var joined = Across(again, Installer);
        Assert.True(joined.VerifiedByBytes);
        Assert.NotEmpty(joined.Roots);
        Assert.Equal([("alpha", alpha.PathOf("copy/setup.exe")), ("alpha", alpha.PathOf("setup.exe")), ("beta", beta.PathOf("downloads/setup.exe"))], Names(joined));
        Assert.Equal([false, false, true], joined.Files.OrderBy(f => f.Machine, StringComparer.Ordinal).Select(f => f.MatchedBySha256));
        Assert.Equal(2L * Installer.Length + Photo.Length, againSummary.WastedBytes); // each content once
        var photos = Across(again, Photo);
        Assert.Equal([("alpha", alpha.PathOf("photo.jpg")), ("beta", beta.PathOf("pictures/photo.jpg"))], Names(photos));
        Assert.False(photos.VerifiedByBytes);
        Assert.Empty(photos.Roots);
        Assert.All(photos.Files, file => Assert.True(file.MatchedBySha256));
    }

    [PostgresFact]
    public async Task Three_machines_each_see_the_files_of_the_other_two()
    {
        await using var catalog = postgres.NewCatalog("scan3");
        using var alpha = new TempTree();
        using var beta = new TempTree();
        using var gamma = new TempTree();
        alpha.Write("a/setup.exe", Installer);
        beta.Write("b/setup.exe", Installer);
        beta.Write("b/photo.jpg", Photo);
        gamma.Write("g/setup.exe", Installer);
        gamma.Write("g/photo.jpg", Photo);

        // One round, then a second: each file is hashed once its machine has seen a file of its size elsewhere.
        foreach (var (machine, tree) in new[] { ("alpha", alpha), ("beta", beta), ("gamma", gamma), ("alpha", alpha), ("beta", beta) })
        {
            await ScanAsync(catalog, machine, tree);
        }

        var (gammaGroups, _) = await ScanAsync(catalog, "gamma", gamma);
        var (alphaGroups, _) = await ScanAsync(catalog, "alpha", alpha);

        Assert.Equal(["alpha", "beta", "gamma"], Across(gammaGroups, Installer).Files.Select(file => file.Machine).Order(StringComparer.Ordinal));
        Assert.Equal(["beta", "gamma"], Across(gammaGroups, Photo).Files.Select(file => file.Machine).Order(StringComparer.Ordinal));
        var only = Assert.Single(alphaGroups); // alpha has no photo: that group holds none of its files
        Assert.Equal(["alpha", "beta", "gamma"], only.Files.Select(file => file.Machine).Order(StringComparer.Ordinal));
    }

    [PostgresFact]
    public async Task A_name_that_is_not_utf8_and_its_hard_link_come_back_exactly_from_another_machine()
    {
        await using var catalog = postgres.NewCatalog("scanbytes");
        using var alpha = new TempTree();
        using var beta = new TempTree();
        alpha.Write("setup.exe", Installer);
        byte[] folder = [.. System.Text.Encoding.UTF8.GetBytes(beta.Root + "/r"), 0xFF];
        ExactNames.CreateFolder(folder);
        ExactNames.WriteFile([.. folder, .. "/setup.exe"u8], Installer);
        var file = Dedup.Core.Paths.KernelNames.GetString([.. folder, .. "/setup.exe"u8]);
        var link = Dedup.Core.Paths.KernelNames.GetString([.. folder, .. "/link.exe"u8]);
        Assert.Equal(0, Link([.. folder, .. "/setup.exe"u8, 0], [.. folder, .. "/link.exe"u8, 0]));

        foreach (var (machine, tree) in new[] { ("beta", beta), ("alpha", alpha), ("beta", beta) })
        {
            await ScanAsync(catalog, machine, tree);
        }

        var (groups, _) = await ScanAsync(catalog, "alpha", alpha);

        var across = Across(groups, Installer);
        var remote = Assert.Single(across.Files, f => f.Machine == "beta");
        Assert.Equal(link, remote.Path.ToString()); // the exact bytes (0xff kept as U+DCFF), not U+FFFD; first in path order
        Assert.Equal([file], remote.OtherLinks.Select(l => l.ToString())); // one file, its second name folded

        // beta's own file in its group across machines: named from beta's listing (the catalog sends no path for it),
        // both names, the exact bytes.
        var (betaGroups, _) = await ScanAsync(catalog, "beta", beta);
        var own = Assert.Single(Across(betaGroups, Installer).Files, f => f.Machine == "beta");
        Assert.Equal(link, own.Path.ToString());
        Assert.Equal([file], own.OtherLinks.Select(l => l.ToString()));
        Assert.Equal(2, own.LinkCount);
    }

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "link", SetLastError = true)]
    private static extern int Link(byte[] existing, byte[] created);

    [PostgresFact]
    public async Task Machines_scanning_at_once_lose_no_rows_and_converge()
    {
        await using var catalog = postgres.NewCatalog("scanmany");
        var trees = Enumerable.Range(0, 4).Select(_ => new TempTree()).ToArray();
        try
        {
            for (var i = 0; i < trees.Length; i++)
            {
                trees[i].Write("setup.exe", Installer);
                trees[i].Write($"own{i}.bin", TempTree.RandomBytes(1000 + i, 20 + i));
            }

            // Three rounds, each with all machines at once: the second hashes every installer (the others' rows are
            // in), the third reads every digest back.
            (List<DuplicateGroup> Groups, Reporting.ScanSummary Summary)[] last = [];
            for (var round = 0; round < 3; round++)
            {
                last = await Task.WhenAll(trees.Select((tree, i) => ScanAsync(catalog, $"m{i}", tree)));
                Assert.All(last, scan => Assert.Null(scan.Summary.Catalog!.Error));
            }

            Assert.All(last, scan => Assert.Equal(["m0", "m1", "m2", "m3"], Assert.Single(scan.Groups).Files.Select(file => file.Machine).Order(StringComparer.Ordinal)));
            Assert.All(await catalog.GetMachinesAsync(), machine => Assert.Equal(2, machine.Files));
            Assert.Equal(4, (await catalog.GetMachinesAsync()).Count);
        }
        finally
        {
            foreach (var tree in trees)
            {
                tree.Dispose();
            }
        }
    }

    [PostgresFact]
    public async Task A_machine_rescanned_after_edits_replaces_its_rows()
    {
        await using var catalog = postgres.NewCatalog("scanedit");
        using var alpha = new TempTree();
        using var beta = new TempTree();
        alpha.Write("setup.exe", Installer);
        alpha.Write("photo.jpg", Photo);
        beta.Write("setup.exe", Installer);
        beta.Write("photo.jpg", Photo);
        await ScanAsync(catalog, "alpha", alpha);
        await ScanAsync(catalog, "beta", beta);
        Assert.Equal(2, (await ScanAsync(catalog, "alpha", alpha)).Groups.Count);

        // beta changes its installer (same size, other bytes) and deletes its photo.
        beta.Write("setup.exe", SameSizeAsInstaller);
        File.SetLastWriteTimeUtc(beta.PathOf("setup.exe"), DateTime.UtcNow.AddMinutes(1));
        File.Delete(beta.PathOf("photo.jpg"));
        var (betaGroups, betaSummary) = await ScanAsync(catalog, "beta", beta);

        Assert.Empty(betaGroups);
        Assert.Equal(1, betaSummary.Catalog!.FilesHashed); // the new content; the photo's row is gone
        var (alphaGroups, _) = await ScanAsync(catalog, "alpha", alpha);
        Assert.Empty(alphaGroups);
        Assert.Equal(1, (await catalog.GetMachinesAsync()).Single(machine => machine.Name == "beta").Files);
    }

    [PostgresFact]
    public async Task A_server_lost_before_the_group_query_leaves_the_local_groups_and_reports_the_error()
    {
        using var cluster = PostgresCluster.Start();
        await using var store = new PostgresCatalog(cluster.ConnectionString());
        using var alpha = new TempTree();
        using var beta = new TempTree();
        alpha.Write("setup.exe", Installer);
        beta.Write("setup.exe", Installer);
        beta.Write("copy/setup.exe", Installer);
        await ScanAsync(store, "alpha", alpha);

        // The server goes away after beta's files and digests were stored, before its groups are read.
        var stopping = new StopBeforeGroups(store, cluster);
        var (groups, summary) = await ScanAsync(stopping, "beta", beta);

        Assert.True(stopping.Stopped);
        var local = Assert.Single(groups);
        Assert.True(local.VerifiedByBytes);
        Assert.Equal([beta.PathOf("copy/setup.exe"), beta.PathOf("setup.exe")], local.Files.Select(file => file.Path.ToString()));
        var error = Assert.IsType<CatalogException>(summary.Catalog!.Error);
        Assert.Contains(error.Kind, new[] { CatalogErrorKind.ConnectionLost, CatalogErrorKind.Unreachable });
        Assert.Contains("the dedup catalog", error.Message, StringComparison.Ordinal);
        Assert.Equal(1, summary.Groups);
        Assert.Equal(0, summary.Catalog.GroupsAcrossMachines);
    }

    [LinuxFact] // Linux paths with bytes that are not UTF-8
    public async Task Paths_of_other_machines_become_this_platforms_paths_or_are_left_out()
    {
        using var tree = new TempTree();
        tree.Write("setup.exe", Installer);
        byte[] odd = [.. "/srv/r"u8, 0xFF, .. "/n"u8, 0xE9, .. ".exe"u8];
        byte[] sameFolder = [.. "/srv/r"u8, 0xFF, .. "/m.exe"u8];
        var remote = new[]
        {
            "/root.exe"u8.ToArray(), odd, sameFolder, "/srv/other/a.exe"u8.ToArray(),
            @"C:\Users\x\setup.exe"u8.ToArray(), "relative/setup.exe"u8.ToArray(), "/srv/trailing/"u8.ToArray(), "/srv/r/.."u8.ToArray(), "/srv/r/."u8.ToArray(),
        };
        var catalog = new OneGroup(remote);

        var (groups, summary) = await ScanAsync(catalog, "alpha", tree);

        Assert.Null(summary.Catalog!.Error);
        var group = Assert.Single(groups);
        Assert.Equal(
            [
                ("alpha", Path.Combine(tree.Root, "setup.exe")),
                ("beta", "/root.exe"),
                ("beta", "/srv/other/a.exe"),
                ("beta", Dedup.Core.Paths.KernelNames.GetString(sameFolder)),
                ("beta", Dedup.Core.Paths.KernelNames.GetString(odd)),
            ],
            Names(group));
    }

    /// <summary>A catalog whose only group holds the scan's one file and files of machine "beta" at the given paths, one identity each.</summary>
    private sealed class OneGroup(byte[][] paths) : FileCatalog
    {
        private Core.Enumeration.FileStamp _own;

        public override Task<long> ReplaceFilesAsync(string machine, IEnumerable<CatalogFile> files, CancellationToken cancellationToken = default)
        {
            _own = Assert.Single(files).Stamp;
            return Task.FromResult(1L);
        }

        public override Task<IReadOnlyCollection<Core.Enumeration.FileStamp>> GetDigestedFilesAsync(string machine, CancellationToken cancellationToken = default) =>
            Task.FromResult<IReadOnlyCollection<Core.Enumeration.FileStamp>>([]);

        public override Task<IReadOnlyCollection<long>> GetSizesOnOtherMachinesAsync(string machine, IReadOnlyCollection<long> sizes, CancellationToken cancellationToken = default) =>
            Task.FromResult<IReadOnlyCollection<long>>([.. sizes]);

        public override Task<long> RecordDigestsAsync(string machine, IEnumerable<CatalogDigest> digests, CancellationToken cancellationToken = default) =>
            Task.FromResult((long)digests.Count());

        public override Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, CancellationToken cancellationToken = default)
        {
            var files = new List<CatalogMatch> { new(machine, ReadOnlyMemory<byte>.Empty, _own) };
            files.AddRange(paths.Select((path, i) => new CatalogMatch("beta", path, new Core.Enumeration.FileStamp(new Enumeration.FileIdentity(7, (ulong)i + 1), _own.Length, 1, 2))));
            return Task.FromResult<IReadOnlyList<CatalogGroup>>([new CatalogGroup(_own.Length, SHA256.HashData(Installer), files)]);
        }
    }

    private static Task<(List<DuplicateGroup> Groups, Reporting.ScanSummary Summary)> ScanAsync(FileCatalog catalog, string machine, TempTree tree) =>
        Scan.RunAsync(b => b.AddRoot(tree.Root).UseCatalog(catalog, machine));

    private static DuplicateGroup Across(IEnumerable<DuplicateGroup> groups, byte[] content) =>
        Assert.Single(groups, group => group.Sha256.Span.SequenceEqual(SHA256.HashData(content)));

    /// <summary>(machine, path) of each file, by machine then path (the group's own order is by path: temp folders' names are random).</summary>
    private static (string?, string)[] Names(DuplicateGroup group) =>
        group.Files.Select(file => (file.Machine, file.Path.ToString())).OrderBy(name => name.Machine, StringComparer.Ordinal).ThenBy(name => name.Item2, StringComparer.Ordinal).ToArray();

    /// <summary>The real catalog, but the server is stopped when the scan asks for its groups.</summary>
    private sealed class StopBeforeGroups(PostgresCatalog store, PostgresCluster cluster) : DelegatingCatalog(store)
    {
        public bool Stopped { get; private set; }

        public override Task<IReadOnlyList<CatalogGroup>> FindGroupsAcrossMachinesAsync(string machine, CancellationToken cancellationToken = default)
        {
            cluster.Stop();
            Stopped = true;
            return Store.FindGroupsAcrossMachinesAsync(machine, cancellationToken);
        }
    }
}
