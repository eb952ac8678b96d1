using System.Text;
using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Npgsql;
using static Dedup.Core.Tests.Catalog.CatalogData;

namespace Dedup.Core.Tests.Catalog;

/// <summary>The fleet view on the library: machines, groups across machines in keyset pages, forgetting a machine.</summary>
[Collection(PostgresCollection.Name)]
public sealed class FleetViewTests(PostgresFixture postgres)
{
    [PostgresFact]
    public async Task Groups_come_largest_waste_first_across_pages_with_ties_each_once_and_every_name()
    {
        string database = postgres.NewDatabase("fleetgroups");
        await using var catalog = new PostgresCatalog(database);
        var content = await ThreeMachinesAsync(catalog);

        // Page sizes 1, 2, 4…: every page boundary falls inside a run of equal wastes.
        catalog.FleetFirstPageSize = 1;
        var skipped = new List<string>();
        var groups = await ToListAsync(catalog.ReadFleetGroupsAsync(skipped: skipped.Add));

        // W (size 500, 3 copies: 1000 wasted), then the ties at 600 wasted (size 600 twice, two digests: the higher
        // digest first), then X (size 300, 2 copies) and Z (size 100, 4 copies: 300 wasted; X's larger size first).
        // Y is on one machine only (no group); b's hard link of W is one copy.
        string[] expected = ["W", .. new[] { "U", "V" }.OrderByDescending(name => Sha(name), ByteOrder), "X", "Z"];
        Assert.Equal(expected, groups.Select(group => ContentOf(content, group)).ToArray());
        Assert.Equal([1000L, 600, 600, 300, 300], groups.Select(group => group.WastedBytes).ToArray());
        Assert.Equal(["a:/a/w", "b:/b/w", "b:/b/w-link", "c:/c/w"], Names(groups[0]));
        Assert.Equal(Sha("W"), groups[0].Sha256.ToArray());
        Assert.Equal(500, groups[0].Length);
        Assert.Empty(skipped);
        // Pages of 2, 4…: U and V, of equal waste, now fall on both sides of the first page's end.
        catalog.FleetFirstPageSize = 2;
        Assert.Equal(expected, (await ToListAsync(catalog.ReadFleetGroupsAsync())).Select(group => ContentOf(content, group)).ToArray());

        // One machine: the groups holding its files, in the same order.
        catalog.FleetFirstPageSize = 2;
        var ofB = await ToListAsync(catalog.ReadFleetGroupsAsync("b"));
        Assert.Equal(["W", "V", "Z"], ofB.Select(group => ContentOf(content, group)).ToArray());
        Assert.Empty(await ToListAsync(catalog.ReadFleetGroupsAsync("nobody")));
    }

    [PostgresFact]
    public async Task Machines_list_files_and_the_files_waiting_for_a_digest_another_machine_may_match()
    {
        string database = postgres.NewDatabase("fleetmachines");
        await using var catalog = new PostgresCatalog(database);
        var content = new Dictionary<string, string> { ["/a/p"] = "P", ["/a/q"] = "Q", ["/b/p"] = "P", ["/b/r"] = "R" };
        // a scans alone: its sizes are unique, nothing is hashed. Then b with a file of a's size 10: b hashes its own
        // and asks a for its digest of size 10.
        await ScanAsync(catalog, "a", [File("/a/p", 10, 1), File("/a/q", 20, 2)], content);
        await ScanAsync(catalog, "b", [File("/b/p", 10, 1), File("/b/r", 30, 2)], content);

        var machines = await catalog.GetFleetMachinesAsync();

        Assert.Equal(["a", "b"], machines.Select(machine => machine.Name).ToArray());
        Assert.Equal([2L, 2], machines.Select(machine => machine.Files).ToArray());
        // a's /a/p waits for a's next scan; b's files are hashed or of a size nobody else has.
        Assert.Equal([1L, 0], machines.Select(machine => machine.PendingDigests).ToArray());
        Assert.All(machines, machine => Assert.InRange(machine.ScannedAt, DateTimeOffset.UtcNow.AddHours(-1), DateTimeOffset.UtcNow.AddHours(1)));
        Assert.Empty(await ToListAsync(catalog.ReadFleetGroupsAsync()));

        await ScanAsync(catalog, "a", [File("/a/p", 10, 1), File("/a/q", 20, 2)], content);

        var after = await catalog.GetFleetMachinesAsync();
        Assert.Equal([0L, 0], after.Select(machine => machine.PendingDigests).ToArray());
        Assert.Equal(["a:/a/p", "b:/b/p"], Names(Assert.Single(await ToListAsync(catalog.ReadFleetGroupsAsync()))));
    }

    [PostgresFact]
    public async Task Pending_digests_count_each_file_asked_of_a_machine_once_whatever_its_names()
    {
        string database = postgres.NewDatabase("fleetpendinglinks");
        await using var catalog = new PostgresCatalog(database);
        var content = new Dictionary<string, string> { ["/a/p"] = "P", ["/a/p-link"] = "P", ["/a/q"] = "Q", ["/b/p"] = "P" };
        // a's /a/p has two names (one inode) and a size nobody else had: one file without a digest, asked for by b.
        await ScanAsync(catalog, "a", [File("/a/p", 10, 1), File("/a/p-link", 10, 1), File("/a/q", 20, 2)], content);
        await ScanAsync(catalog, "b", [File("/b/p", 10, 1)], content);

        var machines = await catalog.GetFleetMachinesAsync();

        // One file waits for one digest (as a scan's summary counts it), not two names; b has nothing asked of it.
        Assert.Equal([3L, 1], machines.Select(machine => machine.Files).ToArray());
        Assert.Equal([1L, 0], machines.Select(machine => machine.PendingDigests).ToArray());
    }

    [PostgresFact]
    public async Task Two_machines_that_scanned_at_once_each_ask_the_other_for_the_size_neither_saw()
    {
        string database = postgres.NewDatabase("fleetpendingrace");
        await using var catalog = new PostgresCatalog(database);
        var content = new Dictionary<string, string> { ["/a/p"] = "P", ["/b/p"] = "P" };
        // Both stored their files before either exchanged (their barriers saw neither the other's size 10): neither
        // hashed its file, and a's exchange ran before b's marks.
        await catalog.ReplaceMachineFilesAsync("a", [File("/a/p", 10, 1)]);
        await catalog.ReplaceMachineFilesAsync("b", [File("/b/p", 10, 1)]);
        await catalog.ExchangeDigestRequestsAsync("a", [10]);
        await catalog.ExchangeDigestRequestsAsync("b", [10]);

        await using (var connection = new NpgsqlConnection(database))
        {
            await connection.OpenAsync();
            await using var command = new NpgsqlCommand(
                "SELECT m.name || '<-' || r.name FROM dedup.digest_requests q JOIN dedup.machines m ON m.id = q.machine_id JOIN dedup.machines r ON r.id = q.requested_by ORDER BY 1",
                connection);
            var requests = new List<string>();
            await using var reader = await command.ExecuteReaderAsync();
            while (await reader.ReadAsync())
            {
                requests.Add(reader.GetString(0));
            }

            Assert.Equal(["a<-b", "b<-a"], requests);
        }

        Assert.Equal(new long[] { 1, 1 }, (await catalog.GetFleetMachinesAsync()).Select(machine => machine.PendingDigests).ToArray());

        // Each one's next scan hashes its file (the other's size is in the catalog now): nothing pending, one group.
        await ScanAsync(catalog, "a", [File("/a/p", 10, 1)], content);
        await ScanAsync(catalog, "b", [File("/b/p", 10, 1)], content);
        Assert.Equal(new long[] { 0, 0 }, (await catalog.GetFleetMachinesAsync()).Select(machine => machine.PendingDigests).ToArray());
        Assert.Equal(["a:/a/p", "b:/b/p"], Names(Assert.Single(await ToListAsync(catalog.ReadFleetGroupsAsync()))));
    }

    [PostgresFact]
    public async Task Deleting_a_machine_removes_all_its_rows_and_requests_and_leaves_the_other_machines_rows_as_they_were()
    {
        string database = postgres.NewDatabase("fleetforget");
        await using var catalog = new PostgresCatalog(database);
        await ThreeMachinesAsync(catalog);
        await using var connection = new NpgsqlConnection(database);
        await connection.OpenAsync();
        int aId = (int)(await Sql(connection, "SELECT id FROM dedup.machines WHERE name = 'a'"))!;
        int bId = (int)(await Sql(connection, "SELECT id FROM dedup.machines WHERE name = 'b'"))!;
        // Digest requests name machines both ways: asked of b, asked by b, and one between the others that stays.
        int cId = (int)(await Sql(connection, "SELECT id FROM dedup.machines WHERE name = 'c'"))!;
        await Sql(connection, $"INSERT INTO dedup.digest_requests (machine_id, size, requested_by) VALUES ({bId}, 1, {aId}), ({aId}, 2, {bId}), ({aId}, 3, {cId})");
        var before = await RowsAsync(database);

        Assert.True(await catalog.DeleteMachineAsync("b"));

        var after = await RowsAsync(database);
        Assert.Equal(before.Where(row => !row.Contains($"|machine_id={bId}|", StringComparison.Ordinal) && !row.StartsWith($"digest_requests|machine_id={aId}|({aId},2,{bId},", StringComparison.Ordinal)), after);
        Assert.Equal(before.Count - 1 - 5 - 3 - 4 - 2, after.Count); // its machine row, 5 files, 3 digests, 4 sizes, 2 requests
        Assert.Equal(3L, await Sql(connection, "SELECT max(size) FROM dedup.digest_requests"));
        Assert.Equal(["a", "c"], (await catalog.GetFleetMachinesAsync()).Select(machine => machine.Name).ToArray());
        Assert.False(await catalog.DeleteMachineAsync("b"));
    }

    [PostgresFact]
    public async Task Orphan_and_malformed_rows_written_by_hand_are_named_and_skipped_by_the_listings()
    {
        string database = postgres.NewDatabase("fleetmalformed");
        await using var catalog = new PostgresCatalog(database);
        var content = await ThreeMachinesAsync(catalog);
        await using var connection = new NpgsqlConnection(database);
        await connection.OpenAsync();
        // b's machines row deleted by hand (its rows stay); a digest of a's for V with no file row of its stamp; a file
        // row of c with an empty path and a digest, in W's group.
        int bId = (int)(await Sql(connection, "DELETE FROM dedup.machines WHERE name = 'b' RETURNING id"))!;
        int aId = (int)(await Sql(connection, "SELECT id FROM dedup.machines WHERE name = 'a'"))!;
        int cId = (int)(await Sql(connection, "SELECT id FROM dedup.machines WHERE name = 'c'"))!;
        await Sql(connection, $"INSERT INTO dedup.digests VALUES (600, {(long)Device}, 999, 1, 1, {aId}, $1)", Sha("V"));
        await Sql(connection, $"INSERT INTO dedup.files VALUES (500, {(long)Device}, 77, 1, 1, {cId}, ''::bytea)");
        await Sql(connection, $"INSERT INTO dedup.digests VALUES (500, {(long)Device}, 77, 1, 1, {cId}, $1)", Sha("W"));
        // And a's file row of Z deleted by hand: its digest stays, with no file.
        await Sql(connection, $"DELETE FROM dedup.files WHERE machine_id = {aId} AND path = convert_to('/a/z', 'UTF8')");

        var skipped = new List<string>();
        catalog.FleetFirstPageSize = 1;
        var groups = await ToListAsync(catalog.ReadFleetGroupsAsync(skipped: skipped.Add));

        // Without b: W is a's and c's (c's empty-path row left out); V, without b and a's digest with no file, is on c
        // alone; Z, without b and a's digest with no file, is c's two copies: on one machine, no group.
        Assert.Equal(["W", "U", "X"], groups.Select(group => ContentOf(content, group)).ToArray());
        Assert.Equal(["a:/a/w", "c:/c/w"], Names(groups[0]));
        Assert.Equal([500L, 600, 300], groups.Select(group => group.WastedBytes).ToArray());
        Assert.Equal(4, skipped.Count);
        Assert.StartsWith($"The catalog's 4 rows of machine id {bId} in these groups were left out: the catalog has no machine with that id", skipped[0], StringComparison.Ordinal);
        Assert.Contains($"DELETE FROM dedup.files WHERE machine_id = {bId};", skipped[0], StringComparison.Ordinal);
        Assert.Equal("2 digests of machine 'a' in these groups were left out: no file row of the machine has their stamp (a row changed by hand?); the machine's next scan drops them.", skipped[1]);
        Assert.Equal("The catalog's 1 row of machine 'c' with an empty path was left out (a row written by hand?); the machine's next scan replaces it.", skipped[2]);
        Assert.Equal("2 groups were left out: without the rows above, they hold no copies on two machines.", skipped[3]);

        var machineSkips = new List<string>();
        var machines = await catalog.GetFleetMachinesAsync(machineSkips.Add);
        Assert.Equal(["a", "c"], machines.Select(machine => machine.Name).ToArray());
        Assert.StartsWith($"The catalog's 5 file rows of machine id {bId} were left out: ", Assert.Single(machineSkips), StringComparison.Ordinal);
    }

    /// <summary>
    /// Three machines: W (500 B) on a, b (plus a hard link) and c; U and V (600 B) twice each; X (300 B) on a and c;
    /// Z (100 B) on a, b and twice on c; Y (700 B) twice on a only; T (800 B) on b only. Returns each path's content.
    /// </summary>
    internal static async Task<Dictionary<string, string>> ThreeMachinesAsync(PostgresCatalog catalog)
    {
        var content = new Dictionary<string, string>
        {
            ["/a/w"] = "W", ["/a/u"] = "U", ["/a/x"] = "X", ["/a/z"] = "Z", ["/a/y1"] = "Y", ["/a/y2"] = "Y",
            ["/b/w"] = "W", ["/b/w-link"] = "W", ["/b/v"] = "V", ["/b/z"] = "Z", ["/b/t"] = "T",
            ["/c/w"] = "W", ["/c/u"] = "U", ["/c/v"] = "V", ["/c/x"] = "X", ["/c/z1"] = "Z", ["/c/z2"] = "Z",
        };
        await catalog.ReplaceMachineFilesAsync("a", [File("/a/w", 500, 1), File("/a/u", 600, 2), File("/a/x", 300, 3), File("/a/z", 100, 4), File("/a/y1", 700, 5), File("/a/y2", 700, 6)]);
        await catalog.ReplaceMachineFilesAsync("b", [File("/b/w", 500, 1), File("/b/w-link", 500, 1), File("/b/v", 600, 2), File("/b/z", 100, 3), File("/b/t", 800, 4)]);
        await catalog.ReplaceMachineFilesAsync("c", [File("/c/w", 500, 1), File("/c/u", 600, 2), File("/c/v", 600, 3), File("/c/x", 300, 4), File("/c/z1", 100, 5), File("/c/z2", 100, 6)]);
        foreach (var machine in new[] { "a", "b", "c" })
        {
            await HashRequestedAsync(catalog, machine, content);
        }

        return content;
    }

    /// <summary>
    /// What a scan does: stores its files, hashes what the catalog asks for, then marks the sizes it left without a
    /// digest and exchanges digest requests.
    /// </summary>
    private static async Task ScanAsync(PostgresCatalog catalog, string machine, CatalogFile[] files, IReadOnlyDictionary<string, string> content)
    {
        await catalog.ReplaceMachineFilesAsync(machine, files);
        await HashRequestedAsync(catalog, machine, content);
        var digested = await catalog.GetDigestedFilesAsync(machine);
        await catalog.ExchangeDigestRequestsAsync(machine, files.Where(file => !digested.Contains(file.Stamp)).Select(file => file.Stamp.Length).Distinct().ToArray());
    }

    internal static async Task<List<T>> ToListAsync<T>(IAsyncEnumerable<T> items)
    {
        var list = new List<T>();
        await foreach (var item in items)
        {
            list.Add(item);
        }

        return list;
    }

    internal static string[] Names(FleetGroup group) => group.Files.Select(file => $"{file.Machine}:{PathOf(file)}").ToArray();

    private static readonly IComparer<byte[]> ByteOrder = Comparer<byte[]>.Create((x, y) => x.AsSpan().SequenceCompareTo(y));

    private static string ContentOf(Dictionary<string, string> content, FleetGroup group) =>
        content[PathOf(group.Files[0])];

    private static async Task<object?> Sql(NpgsqlConnection connection, string sql, params object[] parameters)
    {
        await using var command = new NpgsqlCommand(sql, connection);
        foreach (var parameter in parameters)
        {
            command.Parameters.Add(new NpgsqlParameter { Value = parameter });
        }

        return await command.ExecuteScalarAsync();
    }

    /// <summary>Every row of every table keyed by machine, as text ("table|machine_id=N|…"), sorted.</summary>
    private static async Task<List<string>> RowsAsync(string database)
    {
        await using var connection = new NpgsqlConnection(database);
        await connection.OpenAsync();
        var rows = new List<string>();
        foreach (var table in new[] { "machines", "files", "digests", "machine_sizes", "digest_requests" })
        {
            string id = table == "machines" ? "id" : "machine_id";
            await using var command = new NpgsqlCommand($"SELECT '{table}|machine_id=' || {id} || '|' || t::text FROM dedup.{table} t", connection);
            await using var reader = await command.ExecuteReaderAsync();
            while (await reader.ReadAsync())
            {
                rows.Add(reader.GetString(0));
            }
        }

        rows.Sort(StringComparer.Ordinal);
        return rows;
    }
}
