using System.Security.Cryptography;
using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// Where a catalog scan's SHA-256s come from: the compare stage's own reads for the files it reads whole (each file is
/// read once), a read of their own for the others; and which files get none (changed since they were listed).
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogHashingTests(PostgresFixture postgres)
{
    // Several read chunks (the compare reads 128 KiB at a time), and one small file read whole by the probe.
    private static readonly byte[] Large = TempTree.RandomBytes(300_000, 41);
    private static readonly byte[] Small = TempTree.RandomBytes(5_000, 42);

    [PostgresFact]
    public async Task A_catalog_scan_reads_the_files_it_compares_whole_once_and_hashes_them_from_those_reads()
    {
        await using var catalog = postgres.NewCatalog("readonce");
        using var alpha = new TempTree();
        alpha.Write("big/1.bin", Large);
        alpha.Write("big/2.bin", Large);
        alpha.Write("small/1.bin", Small);
        alpha.Write("small/2.bin", Small);
        using var beta = new TempTree();
        beta.Write("big.bin", Large);
        beta.Write("small.bin", Small);

        var plain = new DuplicateFinderBuilder().AddRoot(alpha.Root).Build().FindAsync();
        await foreach (var _ in plain)
        {
        }

        var (_, first) = await ScanAsync(catalog, "alpha", alpha);

        // Every file of alpha is read whole by the comparison: the catalog's digests cost no byte more. The plain scan
        // reads the small pair twice, once to key each file while listing and once to compare them; a catalog scan does
        // not key files while listing (every file's digest comes from the compare stage), so it reads them once.
        Assert.Null(first.Catalog!.Error);
        Assert.Equal(4, first.Catalog.FilesHashed);
        Assert.Equal(plain.Summary.BytesRead - (2 * Small.Length), first.BytesRead);

        // The digests are the files' SHA-256s: beta's files, hashed by reads of their own (unique sizes on beta), match them.
        var (groups, summary) = await ScanAsync(catalog, "beta", beta);
        Assert.Equal(2, summary.Catalog!.FilesHashed);
        Assert.Equal(2, groups.Count);
        Assert.Equal(3, Assert.Single(groups, group => group.Sha256.Span.SequenceEqual(SHA256.HashData(Large))).Files.Count);
        Assert.Equal(3, Assert.Single(groups, group => group.Sha256.Span.SequenceEqual(SHA256.HashData(Small))).Files.Count);
    }

    [PostgresFact]
    public async Task Only_files_of_a_size_another_file_has_here_or_on_another_machine_get_a_sha256()
    {
        string database = postgres.NewDatabase("which");
        await using var catalog = new PostgresCatalog(database);
        var x = TempTree.RandomBytes(1_000, 51);
        var z = TempTree.RandomBytes(3_000, 53);
        using var beta = new TempTree();
        beta.Write("x.bin", x);
        beta.Write("z.bin", z);
        beta.Write("v.bin", TempTree.RandomBytes(4_000, 54));
        await ScanAsync(catalog, "beta", beta);

        // alpha: x's size only beta has; y's size nobody else has; z's size two files here (and beta) have.
        using var alpha = new TempTree();
        alpha.Write("x.bin", x);
        alpha.Write("y.bin", TempTree.RandomBytes(2_000, 52));
        alpha.Write("z1.bin", z);
        alpha.Write("z2.bin", z);
        var (groups, summary) = await ScanAsync(catalog, "alpha", alpha);

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal(3, summary.Catalog.FilesHashed); // x (read for it), z1 and z2 (from the compare's reads); not y
        await using var connection = new Npgsql.NpgsqlConnection(database);
        await connection.OpenAsync();
        await using var command = new Npgsql.NpgsqlCommand(
            "SELECT d.size FROM dedup.digests d JOIN dedup.machines m ON m.id = d.machine_id WHERE m.name = 'alpha' ORDER BY d.size", connection);
        var sizes = new List<long>();
        await using (var reader = await command.ExecuteReaderAsync())
        {
            while (await reader.ReadAsync())
            {
                sizes.Add(reader.GetInt64(0));
            }
        }

        Assert.Equal([1_000L, 3_000L, 3_000L], sizes);
        Assert.Single(groups); // z1 and z2, byte-verified: beta's files have no digests yet

        // beta's rescan hashes its x and z (now shared with alpha), not v, and finds both groups.
        var (betaGroups, betaSummary) = await ScanAsync(catalog, "beta", beta);
        Assert.Equal(2, betaSummary.Catalog!.FilesHashed);
        Assert.Equal(2, betaGroups.Count);
    }

    [PostgresFact]
    public async Task A_file_rewritten_after_the_listing_with_its_size_and_time_put_back_gets_no_digest()
    {
        await using var store = postgres.NewCatalog("rewritten");
        using var alpha = new TempTree();
        using var beta = new TempTree();
        // Same size, same first and last 4 KiB: the probes cannot tell them apart, so the comparison reads both.
        var other = (byte[])Large.Clone();
        other[150_000] ^= 0xFF;
        alpha.Write("a.bin", Large);
        var rewritten = alpha.Write("b.bin", Large);
        beta.Write("other.bin", other);
        await ScanAsync(store, "beta", beta);

        // Between alpha's listing and its first read, b.bin gets beta's content; its size and modification time stay.
        var rewriting = new RewriteAtBarrier(store, rewritten, other);
        var (groups, summary) = await ScanAsync(rewriting, "alpha", alpha);

        Assert.True(rewriting.Rewritten);
        Assert.Null(summary.Catalog!.Error);
        Assert.Empty(groups); // a.bin and b.bin now differ; b.bin's new bytes are not recorded under its listed stamp
        Assert.Equal(1, summary.Catalog.FilesHashed); // a.bin only
        var (betaGroups, _) = await ScanAsync(store, "beta", beta);
        Assert.Empty(betaGroups);
    }

    [PostgresFact]
    public async Task Copies_in_a_local_group_take_their_class_digest_and_every_digest_stored_is_its_files_sha256()
    {
        string database = postgres.NewDatabase("copies");
        await using var catalog = new PostgresCatalog(database);
        using var alpha = new TempTree();
        // Copies read whole by the probe (three), read in one chunk by the comparison (two), read in several chunks
        // (three); and two copies of one file beside a file the probes cannot tell from them (same size, first and last
        // 4 KiB), which differs from them in the comparison's second chunk: it leaves their class there.
        var medium = TempTree.RandomBytes(100_000, 61);
        var twin = (byte[])Large.Clone();
        twin[200_000] ^= 0x5A;
        var contents = new Dictionary<string, byte[]>
        {
            ["s/1.bin"] = Small, ["s/2.bin"] = Small, ["s/3.bin"] = Small,
            ["m/1.bin"] = medium, ["m/2.bin"] = medium,
            ["l/1.bin"] = Large, ["l/2.bin"] = Large, ["l/3.bin"] = Large,
            ["t/1.bin"] = twin, ["t/2.bin"] = twin, ["t/0.bin"] = Large,
        };
        foreach (var (name, bytes) in contents)
        {
            alpha.Write(name, bytes);
        }

        var (groups, summary) = await ScanAsync(catalog, "alpha", alpha);

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal(contents.Count, summary.Catalog.FilesHashed);
        Assert.Equal([2, 2, 3, 4], groups.Select(group => group.Files.Count).Order());
        // Each stored digest is the SHA-256 of its file's bytes (by inode: one file system; every file is in a group).
        var inodes = groups.SelectMany(group => group.Files).ToDictionary(file => file.Path.ToString(), file => unchecked((long)file.Identity.FileId));
        var shaByInode = new Dictionary<long, byte[]>();
        await using (var connection = new Npgsql.NpgsqlConnection(database))
        {
            await connection.OpenAsync();
            await using var command = new Npgsql.NpgsqlCommand("SELECT d.inode, d.sha256 FROM dedup.digests d JOIN dedup.machines m ON m.id = d.machine_id WHERE m.name = 'alpha'", connection);
            await using var reader = await command.ExecuteReaderAsync();
            while (await reader.ReadAsync())
            {
                shaByInode[reader.GetInt64(0)] = reader.GetFieldValue<byte[]>(1);
            }
        }

        Assert.Equal(contents.Count, shaByInode.Count);
        foreach (var (name, bytes) in contents)
        {
            Assert.True(SHA256.HashData(bytes).AsSpan().SequenceEqual(shaByInode[inodes[alpha.PathOf(name)]]), name);
        }
    }

    [PostgresFact]
    public async Task A_file_gone_after_the_listing_is_one_error_not_one_per_read()
    {
        await using var store = postgres.NewCatalog("vanished");
        using var alpha = new TempTree();
        alpha.Write("a.bin", Large);
        var gone = alpha.Write("b.bin", Large);

        // Deleted at the barrier: the compare stage fails to open it (reported); the catalog must not try again.
        var (groups, summary) = await ScanAsync(new RewriteAtBarrier(store, gone, content: null), "alpha", alpha);

        Assert.Empty(groups);
        Assert.Null(summary.Catalog!.Error);
        var error = Assert.Single(summary.Errors);
        Assert.Equal(gone, error.Path);
        Assert.Equal(1, summary.Catalog.FilesHashed); // a.bin, by a read of its own (its twin dropped out)
    }

    [PostgresFact]
    public async Task Sizes_on_other_machines_leave_out_the_asking_machines_own_and_answer_a_machine_not_known_yet()
    {
        await using var catalog = postgres.NewCatalog("sizes");
        await catalog.ReplaceMachineFilesAsync("alpha", [CatalogData.File("/a/1", 100, 1), CatalogData.File("/a/2", 200, 2)]);
        await catalog.ReplaceMachineFilesAsync("beta", [CatalogData.File("/b/1", 200, 1), CatalogData.File("/b/2", 300, 2)]);

        Assert.Equal([200L], (await catalog.GetSizesOnOtherMachinesAsync("alpha", [100, 200, 400])).Order());
        Assert.Equal([100L, 200L], (await catalog.GetSizesOnOtherMachinesAsync("beta", [200, 300, 300, 100])).Order()); // 300 is its own
        Assert.Equal([100L, 200L, 300L], (await catalog.GetSizesOnOtherMachinesAsync("gamma", [100, 200, 300, 500])).Order());
        Assert.Empty(await catalog.GetSizesOnOtherMachinesAsync("alpha", []));
    }

    private static Task<(List<DuplicateGroup> Groups, Reporting.ScanSummary Summary)> ScanAsync(FileCatalog catalog, string machine, TempTree tree) =>
        Scan.RunAsync(b => b.AddRoot(tree.Root).UseCatalog(catalog, machine));

    [PostgresFact]
    public async Task A_scans_rows_go_to_the_catalog_in_identity_order()
    {
        // Listed folder by folder, files are in no inode order; the catalog's identity index takes them in its own order.
        await using var store = postgres.NewCatalog("identity-order");
        using var tree = new TempTree();
        for (var i = 0; i < 200; i++)
        {
            tree.Write($"d{i % 7}/f{(i * 53) % 200:D3}.bin", $"content {i % 50}");
        }

        var recording = new RecordingRows(store);
        var (_, summary) = await ScanAsync(recording, "m", tree);

        Assert.Null(summary.Catalog!.Error);
        Assert.Equal(200, recording.Stamps.Count);
        var sorted = recording.Stamps.OrderBy(stamp => unchecked((long)stamp.Identity.Device)).ThenBy(stamp => unchecked((long)stamp.Identity.FileId)).ToList();
        Assert.Equal(sorted, recording.Stamps);
    }

    /// <summary>The real catalog; the stamps of the rows a scan hands to it, in the order it hands them.</summary>
    private sealed class RecordingRows(PostgresCatalog store) : DelegatingCatalog(store)
    {
        public List<Core.Enumeration.FileStamp> Stamps { get; } = [];

        public override Task<long> ReplaceFilesAsync(string machine, IEnumerable<CatalogFile> files, CancellationToken cancellationToken = default) =>
            Store.ReplaceFilesAsync(machine, files.Select(file =>
            {
                Stamps.Add(file.Stamp);
                return file;
            }), cancellationToken);
    }

    /// <summary>The real catalog; when the scan asks for its stored digests (at its size barrier, before it reads any file), one file is rewritten.</summary>
    /// <remarks>With no content the file is deleted.</remarks>
    private sealed class RewriteAtBarrier(PostgresCatalog store, string path, byte[]? content) : DelegatingCatalog(store)
    {
        public bool Rewritten { get; private set; }

        // The sizes of other machines are asked at the barrier, once the folders are listed (the stamps are asked as the
        // scan starts, before the listing).
        public override async Task<IReadOnlyCollection<long>> GetSizesOnOtherMachinesAsync(string machine, IReadOnlyCollection<long> sizes, CancellationToken cancellationToken = default)
        {
            if (content is null)
            {
                File.Delete(path);
                Rewritten = true;
                return await Store.GetSizesOnOtherMachinesAsync(machine, sizes, cancellationToken);
            }

            var written = File.GetLastWriteTimeUtc(path);
            await Task.Delay(50, cancellationToken); // past the kernel's coarse clock: the change time moves
            await File.WriteAllBytesAsync(path, content, cancellationToken);
            File.SetLastWriteTimeUtc(path, written);
            Rewritten = true;
            return await Store.GetSizesOnOtherMachinesAsync(machine, sizes, cancellationToken);
        }
    }
}
