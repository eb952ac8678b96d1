using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using static Dedup.Core.Tests.Catalog.CatalogData;

namespace Dedup.Core.Tests.Catalog;

/// <summary>A rescan replaces a machine's rows, keeping a digest only under an unchanged, complete stamp.</summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogRescanTests(PostgresFixture postgres)
{
    [PostgresFact]
    public async Task A_rescan_after_edits_replaces_the_rows_and_rehashes_only_changed_files()
    {
        await using var catalog = postgres.NewCatalog("rescan");
        await catalog.ReplaceMachineFilesAsync("other", [File("/o/1", 100, 1), File("/o/2", 100, 2), File("/o/3", 100, 3), File("/o/4", 100, 4)]);
        var first = new[] { File("/m/same", 100, 11), File("/m/touched", 100, 12), File("/m/chmodded", 100, 13), File("/m/deleted", 100, 14) };
        Assert.Equal(new CatalogReplaceResult(4, 0), await catalog.ReplaceMachineFilesAsync("m", first));
        Assert.Equal(4, await catalog.RecordDigestsAsync("m", first.Select(file => Digest(file, PathOf(file)))));

        var second = new[]
        {
            File("/m/same", 100, 11),
            File("/m/touched", 100, 12, mtime: 1_800_000_000_000_000_000, ctime: 1_800_000_000_000_000_000),
            File("/m/chmodded", 100, 13, ctime: 1_800_000_000_000_000_000),
            File("/m/added", 100, 15),
        };
        Assert.Equal(new CatalogReplaceResult(4, 1), await catalog.ReplaceMachineFilesAsync("m", second));

        Assert.Equal(["/m/added", "/m/chmodded", "/m/touched"], (await catalog.GetFilesToHashAsync("m")).Select(PathOf).Order(StringComparer.Ordinal));
        Assert.Equal(4, (await catalog.GetMachinesAsync()).Single(machine => machine.Name == "m").Files);

        // The old rows are gone; only the new ones remain, each once.
        await catalog.RecordDigestsAsync("m", second.Select(file => Digest(file, "shared")));
        await catalog.RecordDigestsAsync("other", [Digest(File("/o/1", 100, 1), "shared")]);
        var group = Assert.Single(await catalog.FindGroupsAsync("m"), g => g.Files.Count > 2);
        Assert.Equal(["m:/m/added", "m:/m/chmodded", "m:/m/same", "m:/m/touched", "other:/o/1"], Names(group));
        Assert.DoesNotContain(await catalog.FindGroupsAsync("m"), g => Names(g).Contains("m:/m/deleted"));
    }
    [PostgresFact]
    public async Task A_digest_is_not_reused_under_a_changed_ctime_or_an_unknown_one()
    {
        await using var catalog = postgres.NewCatalog("ctime");
        await catalog.ReplaceMachineFilesAsync("other", [File("/o", 100, 1)]);
        var noCtime = File("/m/no-ctime", 100, 2, ctime: 0);
        var kept = File("/m/kept", 100, 3);
        var changed = File("/m/changed", 100, 4);
        await catalog.ReplaceMachineFilesAsync("m", [noCtime, kept, changed]);
        Assert.Equal(3, await catalog.RecordDigestsAsync("m", [Digest(noCtime, "a"), Digest(kept, "b"), Digest(changed, "c")]));

        var result = await catalog.ReplaceMachineFilesAsync("m", [noCtime, kept, File("/m/changed", 100, 4, ctime: changed.Stamp.ChangeTimeNs + 1)]);

        Assert.Equal(1, result.DigestsKept);
        Assert.Equal(["/m/no-ctime", "/m/changed"], (await catalog.GetFilesToHashAsync("m")).OrderBy(file => file.Stamp.Identity.FileId).Select(PathOf));
    }

    [PostgresFact]
    public async Task Renamed_files_keep_their_digest_and_hard_links_get_it_on_every_name()
    {
        await using var catalog = postgres.NewCatalog("rename");
        await catalog.ReplaceMachineFilesAsync("other", [File("/o", 100, 1)]);
        var original = File("/m/before", 100, 2);
        await catalog.ReplaceMachineFilesAsync("m", [original]);
        await catalog.RecordDigestsAsync("m", [Digest(original, "x")]);

        var result = await catalog.ReplaceMachineFilesAsync("m", [File("/m/after", 100, 2), File("/m/after-link", 100, 2)]);

        Assert.Equal(1, result.DigestsKept);
        Assert.Empty(await catalog.GetFilesToHashAsync("m"));
    }

    [PostgresFact]
    public async Task Deleting_a_machine_removes_its_rows_from_other_machines_groups()
    {
        await using var catalog = postgres.NewCatalog("delete");
        await catalog.ReplaceMachineFilesAsync("a", [File("/a", 100, 1)]);
        await catalog.ReplaceMachineFilesAsync("b", [File("/b", 100, 1)]);
        await catalog.RecordDigestsAsync("a", [Digest(File("/a", 100, 1), "x")]);
        await catalog.RecordDigestsAsync("b", [Digest(File("/b", 100, 1), "x")]);
        Assert.Single(await catalog.FindGroupsAsync("a"));

        Assert.True(await catalog.DeleteMachineAsync("b"));
        Assert.False(await catalog.DeleteMachineAsync("b"));

        Assert.Empty(await catalog.FindGroupsAsync("a"));
        Assert.Equal(["a"], (await catalog.GetMachinesAsync()).Select(machine => machine.Name));
    }

    [PostgresFact]
    public async Task A_rescan_rewrites_only_the_rows_that_changed()
    {
        string database = postgres.NewDatabase("difference");
        await using var catalog = new PostgresCatalog(database);
        var unchanged = File("/m/unchanged", 100, 1);
        await catalog.ReplaceMachineFilesAsync("m", [unchanged, File("/m/edited", 100, 2), File("/m/removed", 100, 3)]);
        string before = await RowVersionAsync(database, "/m/unchanged");

        var result = await catalog.ReplaceMachineFilesAsync("m", [unchanged, File("/m/edited", 101, 2, mtime: 5), File("/m/new", 100, 4)]);

        Assert.Equal(3, result.Files);
        // The same physical row version: an unchanged file costs no write.
        Assert.Equal(before, await RowVersionAsync(database, "/m/unchanged"));
        await using var connection = new Npgsql.NpgsqlConnection(database);
        await connection.OpenAsync();
        await using var command = new Npgsql.NpgsqlCommand("SELECT convert_from(path, 'UTF8') || ' ' || size FROM dedup.files ORDER BY path", connection);
        var rows = new List<string>();
        await using (var reader = await command.ExecuteReaderAsync())
        {
            while (await reader.ReadAsync())
            {
                rows.Add(reader.GetString(0));
            }
        }

        Assert.Equal(["/m/edited 101", "/m/new 100", "/m/unchanged 100"], rows);
        Assert.Equal(3, Assert.Single(await catalog.GetMachinesAsync()).Files);
    }

    private static async Task<string> RowVersionAsync(string database, string path)
    {
        await using var connection = new Npgsql.NpgsqlConnection(database);
        await connection.OpenAsync();
        await using var command = new Npgsql.NpgsqlCommand("SELECT xmin::text || ctid::text FROM dedup.files WHERE path = $1", connection);
        command.Parameters.Add(new Npgsql.NpgsqlParameter { Value = System.Text.Encoding.UTF8.GetBytes(path) });
        return (string)(await command.ExecuteScalarAsync())!;
    }
}
