using System.Text.Json;
using Dedup.Core.PostgreSql;
using Dedup.Core.Tests.Infrastructure;
using Npgsql;

namespace Dedup.Core.Tests.Catalog;

/// <summary><c>dedup catalog machines|groups|forget</c>: the real CLI against a real PostgreSQL server.</summary>
[Collection(PostgresCollection.Name)]
public sealed class FleetCliTests(PostgresFixture postgres)
{
    private static readonly byte[] Installer = TempTree.RandomBytes(20_000, 21);
    private static readonly byte[] Photo = TempTree.RandomBytes(7_777, 22);

    [PostgresFact]
    public async Task Machines_and_groups_in_text_json_and_csv()
    {
        string database = postgres.NewDatabase("fleetcli");
        await using (var catalog = new PostgresCatalog(database))
        {
            await FleetViewTests.ThreeMachinesAsync(catalog);
        }

        var (exit, text, stderr) = await CliProcess.RunAsync(["catalog", "machines", "--catalog", database]);
        Assert.True(exit == 0, stderr);
        var lines = text.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(4, lines.Length);
        Assert.Matches(@"^MACHINE +LAST SCAN \(UTC\) +FILES +PENDING DIGESTS$", lines[0]);
        Assert.Matches(@"^b +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +5 +0$", lines[2]);

        var (jsonExit, json, _) = await CliProcess.RunAsync(["catalog", "machines", "--format", "json", "--catalog", database]);
        Assert.Equal(0, jsonExit);
        var machines = JsonDocument.Parse(json).RootElement.GetProperty("machines").EnumerateArray().ToList();
        Assert.Equal(["a", "b", "c"], machines.Select(machine => machine.GetProperty("name").GetString()));
        Assert.Equal([6, 5, 6], machines.Select(machine => machine.GetProperty("files").GetInt32()));
        Assert.All(machines, machine => Assert.Equal(0, machine.GetProperty("pendingDigests").GetInt32()));

        var (groupsExit, groupsText, groupsError) = await CliProcess.RunAsync(["catalog", "groups", "--catalog", database]);
        Assert.True(groupsExit == 0, groupsError);
        Assert.StartsWith(
            $"3 files on 3 machines, 500 B each (500 bytes), 1000 B wasted [SHA-256 {Convert.ToHexStringLower(CatalogData.Sha("W"))}]\n  a: /a/w\n  b: /b/w\n    = /b/w-link\n  c: /c/w\n\n",
            groupsText,
            StringComparison.Ordinal);
        Assert.Equal(5, groupsText.Split("\n\n", StringSplitOptions.RemoveEmptyEntries).Length);

        var (oneExit, oneJson, _) = await CliProcess.RunAsync(["catalog", "groups", "--machine", "b", "--format", "json", "--catalog", database]);
        Assert.Equal(0, oneExit);
        var groups = JsonDocument.Parse(oneJson).RootElement.GetProperty("groups").EnumerateArray().ToList();
        Assert.Equal([1000, 600, 300], groups.Select(group => group.GetProperty("wasted").GetInt32()));
        var first = groups[0];
        Assert.Equal(500, first.GetProperty("size").GetInt32());
        Assert.Equal(Convert.ToHexStringLower(CatalogData.Sha("W")), first.GetProperty("sha256").GetString());
        var files = first.GetProperty("files").EnumerateArray().ToList();
        Assert.Equal(["a:/a/w", "b:/b/w", "c:/c/w"], files.Select(file => $"{file.GetProperty("machine").GetString()}:{file.GetProperty("path").GetString()}"));
        Assert.Equal(["/b/w-link"], files[1].GetProperty("links").EnumerateArray().Select(link => link.GetString()));

        var (csvExit, csv, _) = await CliProcess.RunAsync(["catalog", "groups", "--format", "csv", "--machine", "a", "--catalog", database]);
        Assert.Equal(0, csvExit);
        var w = Convert.ToHexStringLower(CatalogData.Sha("W"));
        Assert.StartsWith($"group,size,sha256,wasted,machine,path,hardlink_of\n1,500,{w},1000,a,/a/w,\n1,500,{w},1000,b,/b/w,\n1,500,{w},1000,b,/b/w-link,/b/w\n1,500,{w},1000,c,/c/w,\n2,600,", csv, StringComparison.Ordinal);

        var (unknownExit, unknownOut, unknownError) = await CliProcess.RunAsync(["catalog", "groups", "--machine", "zeta", "--catalog", database]);
        Assert.Equal(1, unknownExit);
        Assert.Empty(unknownOut);
        Assert.Equal("dedup: the catalog has no machine 'zeta'\n", unknownError);
    }

    [PostgresFact]
    public async Task Forget_asks_unless_yes_and_removes_only_that_machine()
    {
        string database = postgres.NewDatabase("fleetforgetcli");
        await using var catalog = new PostgresCatalog(database);
        await FleetViewTests.ThreeMachinesAsync(catalog);

        // Standard input is not a terminal here: no one to ask, so nothing is done.
        var (refused, refusedOut, refusedError) = await CliProcess.RunAsync(["catalog", "forget", "b", "--catalog", database]);
        Assert.Equal(2, refused);
        Assert.Empty(refusedOut);
        Assert.Equal("dedup: refusing to forget a machine without confirmation: standard input is not a terminal; pass --yes\n", refusedError);
        Assert.Equal(3, (await catalog.GetFleetMachinesAsync()).Count);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["catalog", "forget", "b", "--yes", "--catalog", database]);
        Assert.True(exit == 0, stderr);
        Assert.Equal("forgot machine 'b': 5 files\n", stdout);
        Assert.Equal(["a", "c"], (await catalog.GetFleetMachinesAsync()).Select(machine => machine.Name));
        Assert.DoesNotContain(await FleetViewTests.ToListAsync(catalog.ReadFleetGroupsAsync()), group => group.Files.Any(file => file.Machine == "b"));

        var (again, _, againError) = await CliProcess.RunAsync(["catalog", "forget", "b", "-y", "--catalog", database]);
        Assert.Equal(1, again);
        Assert.Equal("dedup: the catalog has no machine 'b'\n", againError);
    }

    [PostgresFact]
    public async Task A_listing_names_orphan_rows_on_standard_error_lists_the_rest_and_exits_1()
    {
        string database = postgres.NewDatabase("fleetorphancli");
        await using (var catalog = new PostgresCatalog(database))
        {
            await FleetViewTests.ThreeMachinesAsync(catalog);
        }

        await using (var connection = new NpgsqlConnection(database))
        {
            await connection.OpenAsync();
            await using var command = new NpgsqlCommand("DELETE FROM dedup.machines WHERE name = 'b'", connection);
            await command.ExecuteNonQueryAsync();
        }

        var (exit, json, stderr) = await CliProcess.RunAsync(["catalog", "groups", "--format", "json", "--catalog", database]);
        var (machinesExit, machines, machinesError) = await CliProcess.RunAsync(["catalog", "machines", "--catalog", database]);

        Assert.Equal(1, exit);
        // W, U, X, Z: V was b's and c's only, so no group of named machines; b's rows of W (two names) and Z are named.
        Assert.Equal(4, JsonDocument.Parse(json).RootElement.GetProperty("groups").GetArrayLength());
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("dedup: catalog: The catalog's 3 rows of machine id ", line, StringComparison.Ordinal);
        Assert.Equal(1, machinesExit);
        Assert.Equal(3, machines.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
        Assert.StartsWith("dedup: catalog: The catalog's 5 file rows of machine id ", machinesError, StringComparison.Ordinal);
    }

    [PostgresFact]
    public async Task A_server_restarted_mid_scan_leaves_the_catalog_unchanged_and_the_scan_reports_its_local_groups_and_exits_1()
    {
        // A server of its own: the other tests' pools must not see it go down.
        using var cluster = PostgresCluster.Start();
        string database = cluster.CreateDatabase("restart");
        using var alpha = new TempTree();
        using var beta = new TempTree();
        alpha.Write("setup.exe", Installer);
        alpha.Write("backup/setup.exe", Installer);
        alpha.Write("photo.jpg", Photo);
        beta.Write("setup.exe", Installer);
        beta.Write("photo.jpg", Photo);
        foreach (var (machine, tree) in new[] { ("alpha", alpha), ("beta", beta), ("alpha", alpha) })
        {
            var (code, _, error) = await FindAsync(database, machine, tree);
            Assert.True(code == 0, error);
        }

        var before = await ViewAsync(database);
        Assert.Contains("\"wasted\": 40000", before, StringComparison.Ordinal);

        // alpha changes, then scans while its write waits on a lock; the server goes down and comes back meanwhile.
        alpha.Write("photo-copy.jpg", Photo);
        File.Delete(alpha.PathOf("backup/setup.exe"));
        var dropped = new NpgsqlConnectionStringBuilder(database) { ApplicationName = "dedup-cli-restart" }.ConnectionString;
        var admin = new NpgsqlConnection(database);
        await admin.OpenAsync();
        var transaction = await admin.BeginTransactionAsync();
        await using (var lockDigests = new NpgsqlCommand("LOCK TABLE dedup.digests IN EXCLUSIVE MODE", admin, transaction))
        {
            await lockDigests.ExecuteNonQueryAsync();
        }

        var run = FindAsync(dropped, "alpha", alpha);
        await WaitForLockAsync(database, run);
        cluster.Stop();
        cluster.StartAgain();
        var (exit, stdout, stderr) = await run;
        try
        {
            await admin.DisposeAsync();
        }
        catch (NpgsqlException)
        {
            // Its connection died with the server: the rollback it sends on close cannot be written.
        }

        Assert.Equal(1, exit);
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("dedup: catalog: The connection to the dedup catalog", line, StringComparison.Ordinal);
        var local = Assert.Single(JsonDocument.Parse(stdout).RootElement.GetProperty("groups").EnumerateArray());
        Assert.Equal(Photo.Length, local.GetProperty("size").GetInt32());
        Assert.Equal(2, local.GetProperty("files").GetArrayLength());
        // The scan's transaction was rolled back with the server: the fleet reads as before, to the scan times.
        NpgsqlConnection.ClearAllPools();
        Assert.Equal(before, await ViewAsync(database));
    }

    private static Task<(int ExitCode, string Stdout, string Stderr)> FindAsync(string database, string machine, TempTree tree) =>
        CliProcess.RunAsync(["find", "--format", "json", "--catalog", database, "--machine", machine, tree.Root]);

    /// <summary>The fleet as the CLI shows it: machines and groups, in JSON.</summary>
    private static async Task<string> ViewAsync(string database)
    {
        var (machinesExit, machines, machinesError) = await CliProcess.RunAsync(["catalog", "machines", "--format", "json", "--catalog", database]);
        Assert.True(machinesExit == 0, machinesError);
        var (groupsExit, groups, groupsError) = await CliProcess.RunAsync(["catalog", "groups", "--format", "json", "--catalog", database]);
        Assert.True(groupsExit == 0, groupsError);
        return machines + groups;
    }

    /// <summary>Waits until the CLI's backend waits on a lock (fails if the CLI ends first).</summary>
    private static async Task WaitForLockAsync(string database, Task run)
    {
        await using var admin = new NpgsqlConnection(database);
        await admin.OpenAsync();
        for (var attempt = 0; attempt < 1200; attempt++)
        {
            Assert.False(run.IsCompleted, "the CLI ended before its catalog write waited on the lock");
            await using var waiting = new NpgsqlCommand(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'dedup-cli-restart' AND wait_event_type = 'Lock'", admin);
            if ((long)(await waiting.ExecuteScalarAsync())! == 1)
            {
                return;
            }

            await Task.Delay(50);
        }

        Assert.Fail("the CLI's catalog write never waited on the lock");
    }
}
