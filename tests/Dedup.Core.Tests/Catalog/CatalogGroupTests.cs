using Dedup.Core.Enumeration;
using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using static Dedup.Core.Tests.Catalog.CatalogData;

namespace Dedup.Core.Tests.Catalog;

/// <summary>Groups across machines on a real PostgreSQL server: which files get hashed, and what each machine sees.</summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogGroupTests(PostgresFixture postgres)
{
    [PostgresFact]
    public async Task Two_machines_share_a_group_and_only_shared_sizes_are_hashed()
    {
        await using var catalog = postgres.NewCatalog("two");
        var content = new Dictionary<string, string> { ["/a/photo"] = "X", ["/a/unique"] = "U", ["/b/photo-copy"] = "X", ["/b/other"] = "Y" };

        await catalog.ReplaceMachineFilesAsync("alpha", [File("/a/photo", 100, 1), File("/a/unique", 200, 2)]);
        // Alone in the catalog, alpha's sizes are its own: nothing to hash.
        Assert.Empty(await catalog.GetSharedSizesAsync("alpha"));
        await catalog.ReplaceMachineFilesAsync("beta", [File("/b/photo-copy", 100, 7), File("/b/other", 100, 8)]);

        Assert.Equal([100L], await catalog.GetSharedSizesAsync("alpha"));
        Assert.Equal([100L], await catalog.GetSharedSizesAsync("beta"));
        Assert.Equal(["/a/photo"], (await catalog.GetFilesToHashAsync("alpha")).Select(PathOf));
        Assert.Equal(1, await HashRequestedAsync(catalog, "alpha", content));
        Assert.Equal(2, await HashRequestedAsync(catalog, "beta", content));
        Assert.Empty(await catalog.GetFilesToHashAsync("beta"));

        foreach (var machine in new[] { "alpha", "beta" })
        {
            var group = Assert.Single(await catalog.FindGroupsAsync(machine));
            Assert.Equal(100, group.Length);
            Assert.Equal(Sha("X"), group.Sha256.ToArray());
            Assert.True(group.SpansMachines);
            Assert.Equal(["alpha:/a/photo", "beta:/b/photo-copy"], Names(group));
            Assert.Equal(Stamp(100, 7), group.Files[1].Stamp);
        }
    }

    [PostgresFact]
    public async Task Groups_come_largest_first_then_by_sha256()
    {
        await using var catalog = postgres.NewCatalog("order");
        string[] contents = ["P", "Q", "S", "T"]; // four contents of one size: their order is their digests'
        var content = new Dictionary<string, string> { ["/a/big"] = "R", ["/a/big2"] = "R" };
        var files = new List<CatalogFile> { File("/a/big", 20, 100), File("/a/big2", 20, 101) };
        for (var i = 0; i < contents.Length; i++)
        {
            content[$"/a/{contents[i]}1"] = contents[i];
            content[$"/a/{contents[i]}2"] = contents[i];
            files.Add(File($"/a/{contents[i]}1", 10, (ulong)(2 * i) + 1));
            files.Add(File($"/a/{contents[i]}2", 10, (ulong)(2 * i) + 2));
        }

        await catalog.ReplaceMachineFilesAsync("alpha", files);
        await catalog.ReplaceMachineFilesAsync("beta", [File("/b/big", 20, 1), File("/b/small", 10, 2)]); // shares both sizes
        await HashRequestedAsync(catalog, "alpha", content);

        var groups = await catalog.FindGroupsAsync("alpha");

        byte[][] expected = [Sha("R"), .. contents.Select(Sha).Order(Comparer<byte[]>.Create((x, y) => x.AsSpan().SequenceCompareTo(y)))];
        Assert.Equal(expected, groups.Select(group => group.Sha256.ToArray()));
        Assert.Equal([20L, 10, 10, 10, 10], groups.Select(group => group.Length));
    }

    [PostgresFact]
    public async Task Groups_across_machines_leave_out_the_groups_of_one_machine_alone()
    {
        await using var catalog = postgres.NewCatalog("across");
        var content = new Dictionary<string, string> { ["/a/x"] = "X", ["/a/x2"] = "X", ["/a/l"] = "L", ["/a/l2"] = "L", ["/b/x"] = "X", ["/b/m"] = "M", ["/b/m2"] = "M" };
        await catalog.ReplaceMachineFilesAsync("alpha", [File("/a/x", 10, 1), File("/a/x2", 10, 2), File("/a/l", 20, 3), File("/a/l2", 20, 4)]);
        await catalog.ReplaceMachineFilesAsync("beta", [File("/b/x", 10, 1), File("/b/m", 30, 2), File("/b/m2", 30, 3)]);
        await HashRequestedAsync(catalog, "alpha", content);
        await HashRequestedAsync(catalog, "beta", content);

        Assert.Equal(2, (await catalog.FindGroupsAsync("alpha")).Count); // X across machines, L on alpha alone
        // The asking machine's own files come by stamp, without their paths (the scan has them), ordered by identity.
        var across = Assert.Single(await catalog.FindGroupsAcrossMachinesAsync("alpha"));
        Assert.Equal(["alpha:", "alpha:", "beta:/b/x"], Names(across));
        Assert.Equal([Stamp(10, 1), Stamp(10, 2)], across.Files.Take(2).Select(file => file.Stamp));
        Assert.Equal(["alpha:/a/x", "alpha:/a/x2", "beta:"], Names(Assert.Single(await catalog.FindGroupsAcrossMachinesAsync("beta"))));
    }

    [PostgresFact]
    public async Task A_digest_recorded_again_replaces_the_stored_one_unless_its_stamp_has_no_row()
    {
        await using var catalog = postgres.NewCatalog("again");
        var mine = File("/m/f", 10, 1);
        await catalog.ReplaceMachineFilesAsync("m", [mine]);
        await catalog.ReplaceMachineFilesAsync("o", [File("/o/a", 10, 1), File("/o/b", 10, 2)]);
        await catalog.RecordDigestsAsync("o", [Digest(File("/o/a", 10, 1), "A"), Digest(File("/o/b", 10, 2), "B")]);

        Assert.Equal(1, await catalog.RecordDigestsAsync("m", [Digest(mine, "A")]));
        Assert.Equal(["m:/m/f", "o:/o/a"], Names(Assert.Single(await catalog.FindGroupsAsync("m"))));
        // The same file's digest again (the first given of an identity counts): it replaces the stored one.
        Assert.Equal(1, await catalog.RecordDigestsAsync("m", [Digest(mine, "B"), Digest(mine, "A")]));
        Assert.Equal(["m:/m/f", "o:/o/b"], Names(Assert.Single(await catalog.FindGroupsAsync("m"))));
        // A digest under a stamp the file no longer has is ignored and leaves the stored one.
        Assert.Equal(0, await catalog.RecordDigestsAsync("m", [new CatalogDigest(Stamp(10, 1, mtime: 5), Sha("A"))]));
        Assert.Equal(["m:/m/f", "o:/o/b"], Names(Assert.Single(await catalog.FindGroupsAsync("m"))));
        Assert.Single(await catalog.GetDigestedFilesAsync("m"));
    }

    [PostgresFact]
    public async Task Three_machines_each_see_the_groups_that_hold_their_own_files()
    {
        await using var catalog = postgres.NewCatalog("three");
        var content = new Dictionary<string, string>
        {
            ["/a/x"] = "X", ["/a/solo"] = "S1",
            ["/b/x"] = "X", ["/b/y"] = "Y",
            ["/c/x"] = "X", ["/c/y"] = "Y", ["/c/solo"] = "S2",
        };
        await catalog.ReplaceMachineFilesAsync("a", [File("/a/x", 10, 1), File("/a/solo", 30, 2)]);
        await catalog.ReplaceMachineFilesAsync("b", [File("/b/x", 10, 1), File("/b/y", 20, 2)]);
        await catalog.ReplaceMachineFilesAsync("c", [File("/c/x", 10, 1), File("/c/y", 20, 2), File("/c/solo", 30, 3)]);
        foreach (var machine in new[] { "a", "b", "c" })
        {
            await HashRequestedAsync(catalog, machine, content);
        }

        // Same size 30, different content: hashed, but no group.
        var groupsOfA = await catalog.FindGroupsAsync("a");
        Assert.Equal(["a:/a/x", "b:/b/x", "c:/c/x"], Names(Assert.Single(groupsOfA)));
        var groupsOfB = await catalog.FindGroupsAsync("b");
        Assert.Equal([["b:/b/y", "c:/c/y"], ["a:/a/x", "b:/b/x", "c:/c/x"]], groupsOfB.Select(Names).ToArray());
        Assert.Equal(2, (await catalog.FindGroupsAsync("c")).Count);
        Assert.Equal(["a", "b", "c"], (await catalog.GetMachinesAsync()).Select(machine => machine.Name));
        Assert.Equal([2L, 2, 3], (await catalog.GetMachinesAsync()).Select(machine => machine.Files));
    }

    [PostgresFact]
    public async Task Local_duplicates_share_a_size_but_hard_links_of_one_file_do_not()
    {
        await using var catalog = postgres.NewCatalog("local");
        await catalog.ReplaceMachineFilesAsync("solo", [
            File("/d/one", 500, 1), File("/d/one-copy", 500, 2),
            File("/d/linked", 700, 3), File("/d/linked-too", 700, 3),
        ]);

        Assert.Equal([500L], await catalog.GetSharedSizesAsync("solo"));
        Assert.Equal(2, await HashRequestedAsync(catalog, "solo", new Dictionary<string, string> { ["/d/one"] = "Q", ["/d/one-copy"] = "Q" }));
        var group = Assert.Single(await catalog.FindGroupsAsync("solo"));
        Assert.False(group.SpansMachines);

        // A digest on both names of one inode is still one file: no group.
        await catalog.RecordDigestsAsync("solo", [new CatalogDigest(Stamp(700, 3), Sha("L"))]);
        Assert.Single(await catalog.FindGroupsAsync("solo"));
    }

    [PostgresFact]
    public async Task Path_bytes_that_are_not_UTF8_round_trip_exactly()
    {
        await using var catalog = postgres.NewCatalog("bytes");
        byte[] latin1 = [(byte)'/', 0xE9, (byte)'t', 0xE9, 0xFF, 0xC3, 0x28, 0x80];
        byte[] other = [(byte)'/', 0xFE, 0x01, 0x7F];
        var mine = new CatalogFile(latin1, Stamp(64, 1));
        var theirs = new CatalogFile(other, Stamp(64, 9));
        await catalog.ReplaceMachineFilesAsync("m1", [mine]);
        await catalog.ReplaceMachineFilesAsync("m2", [theirs]);

        var toHash = Assert.Single(await catalog.GetFilesToHashAsync("m1"));
        Assert.Equal(latin1, toHash.Path.ToArray());
        await catalog.RecordDigestsAsync("m1", [new CatalogDigest(mine.Stamp, Sha("same"))]);
        await catalog.RecordDigestsAsync("m2", [new CatalogDigest(theirs.Stamp, Sha("same"))]);

        var group = Assert.Single(await catalog.FindGroupsAsync("m2"));
        Assert.Equal(latin1, group.Files[0].Path.ToArray());
        Assert.Equal(other, group.Files[1].Path.ToArray());
    }

    [PostgresFact]
    public async Task Rows_and_digests_of_any_length_and_value_round_trip_through_the_binary_copy()
    {
        // The rows are encoded by the catalog itself into 64 KiB writes: thousands of rows cross the writes' boundaries,
        // one path is longer than a write, and stamps hold the extremes of their bits (unsigned identities past
        // long.MaxValue, negative times).
        await using var catalog = postgres.NewCatalog("copy-format");
        var files = new List<CatalogFile>();
        for (var i = 0; i < 5_000; i++)
        {
            var path = new byte[8 + (i * 37 % 300)];
            path.AsSpan().Fill((byte)('a' + (i % 26)));
            path[0] = (byte)'/';
            BitConverter.TryWriteBytes(path.AsSpan(1), i); // unique: the index's bytes, 0 and 0xFF among them
            files.Add(new CatalogFile(path, new FileStamp(new FileIdentity(ulong.MaxValue - (ulong)(i % 3), (ulong)i + 1), 4096 + (i % 7), -1_000_000_007L * i, long.MinValue + i)));
        }

        var longPath = new byte[70_000];
        longPath.AsSpan().Fill((byte)'x');
        longPath[0] = (byte)'/';
        files.Add(new CatalogFile(longPath, new FileStamp(new FileIdentity(1, ulong.MaxValue), long.MaxValue, long.MaxValue, 1)));
        await catalog.ReplaceMachineFilesAsync("m", files);
        var other = new CatalogFile("/other"u8.ToArray(), new FileStamp(new FileIdentity(2, 2), long.MaxValue, 0, 1));
        await catalog.ReplaceMachineFilesAsync("n", [other]);

        var toHash = await catalog.GetFilesToHashAsync("m");
        Assert.Equal(files.Count, toHash.Count);
        var byPath = files.ToDictionary(file => Convert.ToHexString(file.Path.Span));
        foreach (var file in toHash)
        {
            Assert.Equal(byPath[Convert.ToHexString(file.Path.Span)].Stamp, file.Stamp);
        }

        Assert.Equal(files.Count, await catalog.RecordDigestsAsync("m", files.Select(file => new CatalogDigest(file.Stamp, Sha(file.Stamp.Length.ToString(System.Globalization.CultureInfo.InvariantCulture))))));
        await catalog.RecordDigestsAsync("n", [new CatalogDigest(other.Stamp, Sha(long.MaxValue.ToString(System.Globalization.CultureInfo.InvariantCulture)))]);
        var group = Assert.Single(await catalog.FindGroupsAsync("n"));
        Assert.Equal(Sha(long.MaxValue.ToString(System.Globalization.CultureInfo.InvariantCulture)), group.Sha256.ToArray());
        Assert.Equal(longPath, group.Files[0].Path.ToArray());
        Assert.Equal(files[^1].Stamp, group.Files[0].Stamp);
        Assert.Equal(8, (await catalog.FindGroupsAsync("m")).Count); // one per size of m, one with n
    }

    [PostgresFact]
    public async Task A_digest_whose_stamp_no_row_has_is_ignored()
    {
        await using var catalog = postgres.NewCatalog("stale");
        await catalog.ReplaceMachineFilesAsync("m", [File("/f", 10, 1), File("/g", 10, 2)]);

        Assert.Equal(0, await catalog.RecordDigestsAsync("m", [new CatalogDigest(Stamp(10, 1, mtime: 5), Sha("F"))]));
        Assert.Equal(0, await catalog.RecordDigestsAsync("unknown-machine", [new CatalogDigest(Stamp(10, 1), Sha("F"))]));
        Assert.Equal(2, (await catalog.GetFilesToHashAsync("m")).Count);
        Assert.Empty(await catalog.FindGroupsAsync("unknown-machine"));
        Assert.Empty(await catalog.GetSharedSizesAsync("unknown-machine"));
    }

    [PostgresFact]
    public async Task The_schema_is_versioned_and_a_newer_one_is_refused()
    {
        string database = postgres.NewDatabase("schema");
        await using (var catalog = new PostgresCatalog(database))
        {
            Assert.Equal(0, await catalog.MigrateAsync());
            Assert.Equal(PostgresCatalog.SchemaVersion, await catalog.MigrateAsync());
        }

        await using (var connection = new Npgsql.NpgsqlConnection(database))
        {
            await connection.OpenAsync();
            await using var command = new Npgsql.NpgsqlCommand("INSERT INTO dedup.schema_version (version) VALUES (99)", connection);
            await command.ExecuteNonQueryAsync();
        }

        await using var newer = new PostgresCatalog(database);
        var error = await Assert.ThrowsAsync<CatalogException>(() => newer.GetMachinesAsync());
        Assert.Equal(CatalogErrorKind.SchemaTooNew, error.Kind);
        Assert.Contains("version 99", error.Message, StringComparison.Ordinal);
    }

    [PostgresFact]
    public async Task A_version_1_catalog_loses_the_content_index_and_keeps_its_groups()
    {
        string database = postgres.NewDatabase("schema2");
        await using (var catalog = new PostgresCatalog(database))
        {
            await catalog.ReplaceFilesAsync("a", [File("/a/x", 10, 1), File("/a/y", 20, 2)]);
            await catalog.ReplaceFilesAsync("b", [File("/b/x", 10, 3)]);
            await catalog.RecordDigestsAsync("a", [new CatalogDigest(Stamp(10, 1), Sha("A"))]);
            await catalog.RecordDigestsAsync("b", [new CatalogDigest(Stamp(10, 3), Sha("A"))]);
        }

        // Back to version 1 as an older library left it: its content index and size index, no step 2 or later.
        await ExecuteSqlAsync(database, "ALTER TABLE dedup.machines DROP COLUMN rows_fingerprint; CREATE INDEX digests_content ON dedup.digests (size, sha256); DROP TABLE dedup.machine_sizes; DROP TABLE dedup.digest_requests; CREATE INDEX files_size ON dedup.files (size, machine_id); DELETE FROM dedup.schema_version WHERE version > 1");
        Assert.Equal(1L, await ScalarSqlAsync(database, "SELECT count(*) FROM pg_indexes WHERE schemaname = 'dedup' AND indexname = 'digests_content'"));

        await using (var catalog = new PostgresCatalog(database))
        {
            Assert.Equal(1, await catalog.MigrateAsync());
            Assert.Equal(0L, await ScalarSqlAsync(database, "SELECT count(*) FROM pg_indexes WHERE schemaname = 'dedup' AND indexname = 'digests_content'"));
            var group = Assert.Single(await catalog.FindGroupsAsync("a"));
            Assert.Equal(["a", "b"], group.Files.Select(file => file.Machine));
        }
    }

    [PostgresFact]
    public async Task A_version_2_catalog_gets_the_machines_sizes_from_its_files_and_keeps_its_groups()
    {
        string database = postgres.NewDatabase("schema3");
        await using (var catalog = new PostgresCatalog(database))
        {
            await catalog.ReplaceFilesAsync("a", [File("/a/x", 10, 1), File("/a/y", 20, 2), File("/a/z", 20, 3)]);
            await catalog.ReplaceFilesAsync("b", [File("/b/x", 10, 3), File("/b/w", 30, 4)]);
            await catalog.RecordDigestsAsync("a", [new CatalogDigest(Stamp(10, 1), Sha("A"))]);
            await catalog.RecordDigestsAsync("b", [new CatalogDigest(Stamp(10, 3), Sha("A"))]);
        }

        // Back to version 2 as the previous library left it: the size index on the files, no sizes table.
        await ExecuteSqlAsync(database, "ALTER TABLE dedup.machines DROP COLUMN rows_fingerprint; DROP TABLE dedup.machine_sizes; DROP TABLE dedup.digest_requests; CREATE INDEX files_size ON dedup.files (size, machine_id); DELETE FROM dedup.schema_version WHERE version > 2");

        await using (var catalog = new PostgresCatalog(database))
        {
            Assert.Equal(2, await catalog.MigrateAsync());
            Assert.Equal(5, PostgresCatalog.SchemaVersion);
            Assert.Equal(0L, await ScalarSqlAsync(database, "SELECT count(*) FROM pg_indexes WHERE schemaname = 'dedup' AND indexname = 'files_size'"));
            // One row per (size, machine) of the files: a's 20 once though two files have it.
            Assert.Equal(4L, await ScalarSqlAsync(database, "SELECT count(*) FROM dedup.machine_sizes"));
            Assert.Equal(0L, await ScalarSqlAsync(database, SizesMismatchSql));
            var group = Assert.Single(await catalog.FindGroupsAsync("a"));
            Assert.Equal(["a", "b"], group.Files.Select(file => file.Machine));
            Assert.Equal([10L, 30L], (await catalog.GetSizesOnOtherMachinesAsync("a", [10, 20, 30])).Order());
            Assert.Equal([10L, 20L], (await catalog.GetSizesOnOtherMachinesAsync("b", [10, 20, 30])).Order());
            Assert.Equal([10L, 20L], (await catalog.GetSharedSizesAsync("a")).Order());
        }
    }

    [PostgresFact]
    public async Task A_machines_sizes_follow_its_rescans_and_go_with_it()
    {
        string database = postgres.NewDatabase("sizes");
        await using var catalog = new PostgresCatalog(database);
        await catalog.ReplaceMachineFilesAsync("a", [File("/a/x", 10, 1), File("/a/y", 20, 2)]);
        await catalog.ReplaceMachineFilesAsync("b", [File("/b/x", 10, 3)]);
        Assert.Equal([10L, 20L], (await catalog.GetSizesOnOtherMachinesAsync("c", [10, 20, 30])).Order());

        // A rescan: 20 gone, 30 new, 10 kept (its row stays the same row: only sizes that come or go are written).
        string kept = await TextAsync(database, "SELECT ctid::text FROM dedup.machine_sizes WHERE size = 10 AND machine_id = (SELECT id FROM dedup.machines WHERE name = 'a')");
        await catalog.ReplaceMachineFilesAsync("a", [File("/a/x", 10, 1), File("/a/z", 30, 4), File("/a/w", 30, 5)]);
        Assert.Equal([10L, 30L], (await catalog.GetSizesOnOtherMachinesAsync("b", [10, 20, 30])).Order());
        Assert.Equal([10L, 30L], (await catalog.GetSizesOnOtherMachinesAsync("c", [10, 20, 30])).Order());
        Assert.Equal(kept, await TextAsync(database, "SELECT ctid::text FROM dedup.machine_sizes WHERE size = 10 AND machine_id = (SELECT id FROM dedup.machines WHERE name = 'a')"));
        Assert.Equal(0L, await ScalarSqlAsync(database, SizesMismatchSql));

        // Through the scan's own call too, first scan and rescan.
        await catalog.ReplaceFilesAndRecordDigestsAsync("c", [File("/c/x", 40, 1)], Empty());
        Assert.Equal([40L], await catalog.GetSizesOnOtherMachinesAsync("a", [40, 50]));
        await catalog.ReplaceFilesAndRecordDigestsAsync("c", [File("/c/y", 50, 2)], Empty());
        Assert.Equal([50L], await catalog.GetSizesOnOtherMachinesAsync("a", [40, 50]));
        Assert.Equal(0L, await ScalarSqlAsync(database, SizesMismatchSql));

        // An empty rescan leaves the machine no sizes; a deleted machine leaves none behind.
        await catalog.ReplaceMachineFilesAsync("c", []);
        Assert.Empty(await catalog.GetSizesOnOtherMachinesAsync("a", [40, 50]));
        Assert.True(await catalog.DeleteMachineAsync("a"));
        Assert.Empty(await catalog.GetSizesOnOtherMachinesAsync("b", [10, 20, 30]));
        Assert.Equal(0L, await ScalarSqlAsync(database, SizesMismatchSql));
        Assert.Equal(1L, await ScalarSqlAsync(database, "SELECT count(*) FROM dedup.machine_sizes"));

        static async IAsyncEnumerable<CatalogDigest> Empty()
        {
            await Task.Yield();
            yield break;
        }
    }

    /// <summary>Rows of <c>dedup.machine_sizes</c> that the files do not have, and sizes of the files it lacks.</summary>
    internal const string SizesMismatchSql = """
        SELECT count(*) FROM (SELECT DISTINCT size, machine_id FROM dedup.files) f
        FULL JOIN dedup.machine_sizes s ON s.size = f.size AND s.machine_id = f.machine_id
        WHERE s.size IS NULL OR f.size IS NULL
        """;

    private static async Task<string> TextAsync(string database, string sql)
    {
        await using var connection = new Npgsql.NpgsqlConnection(database);
        await connection.OpenAsync();
        await using var command = new Npgsql.NpgsqlCommand(sql, connection);
        return (string)(await command.ExecuteScalarAsync())!;
    }
}
