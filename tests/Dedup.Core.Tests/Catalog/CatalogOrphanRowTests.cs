using System.Security.Cryptography;
using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Dedup.Core.Tests.Infrastructure;
using Npgsql;
using static Dedup.Core.Tests.Catalog.CatalogData;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// Rows of a machine the catalog has no record of (its <c>dedup.machines</c> row deleted by hand; the schema has no
/// foreign keys): a read of groups leaves them out and names them, and the scan goes on with the other machines.
/// </summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogOrphanRowTests(PostgresFixture postgres)
{
    private static readonly byte[] Installer = TempTree.RandomBytes(30_000, 11);

    [PostgresFact]
    public async Task A_scan_skips_and_names_the_rows_of_a_deleted_machine_and_reports_the_other_machines()
    {
        string database = postgres.NewDatabase("orphan-scan");
        await using var catalog = new PostgresCatalog(database);
        using var alpha = new TempTree();
        using var beta = new TempTree();
        using var gamma = new TempTree();
        alpha.Write("a/setup.exe", Installer);
        beta.Write("b/setup.exe", Installer);
        gamma.Write("g/setup.exe", Installer);
        // Each file is hashed once its machine has seen a file of its size elsewhere.
        foreach (var (machine, tree) in new[] { ("alpha", alpha), ("beta", beta), ("gamma", gamma), ("alpha", alpha) })
        {
            await ScanAsync(catalog, machine, tree);
        }

        int betaId = await DeleteMachineRowAsync(database, "beta");

        var (groups, summary) = await ScanAsync(catalog, "alpha", alpha);

        Assert.Null(summary.Catalog!.Error);
        var group = Assert.Single(groups);
        Assert.Equal(SHA256.HashData(Installer), group.Sha256.ToArray());
        Assert.Equal(["alpha", "gamma"], group.Files.Select(file => file.Machine).Order(StringComparer.Ordinal));
        Assert.Equal(1, summary.Catalog.GroupsAcrossMachines);
        var error = Assert.Single(summary.Errors);
        Assert.Equal(string.Empty, error.Path);
        Assert.Equal(
            $"The catalog's 1 row of machine id {betaId} matching these files was left out: the catalog has no machine with that id (its dedup.machines row was deleted by hand; the schema has no foreign keys). "
                + $"To remove all of its rows: DELETE FROM dedup.files WHERE machine_id = {betaId}; DELETE FROM dedup.digests WHERE machine_id = {betaId}; DELETE FROM dedup.machine_sizes WHERE machine_id = {betaId}; DELETE FROM dedup.digest_requests WHERE machine_id = {betaId} OR requested_by = {betaId};",
            error.Message);
        Assert.Equal(error.Message, error.ToString()); // no path: the message alone (as the CLI prints it)
    }

    [PostgresFact]
    public async Task Content_shared_only_with_a_deleted_machine_is_no_group_and_a_named_error()
    {
        string database = postgres.NewDatabase("orphan-only");
        await using var catalog = new PostgresCatalog(database);
        using var alpha = new TempTree();
        using var beta = new TempTree();
        alpha.Write("a/setup.exe", Installer);
        beta.Write("b/setup.exe", Installer);
        beta.Write("b/copy.exe", Installer);
        foreach (var (machine, tree) in new[] { ("alpha", alpha), ("beta", beta), ("alpha", alpha) })
        {
            await ScanAsync(catalog, machine, tree);
        }

        int betaId = await DeleteMachineRowAsync(database, "beta");

        var (groups, summary) = await ScanAsync(catalog, "alpha", alpha);

        Assert.Null(summary.Catalog!.Error);
        Assert.Empty(groups);
        Assert.Equal(0, summary.Catalog.GroupsAcrossMachines);
        Assert.Contains($"2 rows of machine id {betaId} ", Assert.Single(summary.Errors).Message, StringComparison.Ordinal);
    }

    [PostgresFact]
    public async Task Reads_of_groups_leave_out_the_rows_of_a_deleted_machine_and_name_them_once_per_machine()
    {
        string database = postgres.NewDatabase("orphan-read");
        await using var catalog = new PostgresCatalog(database);
        var content = new Dictionary<string, string> { ["/a/x"] = "X", ["/a/y"] = "Y", ["/a/y2"] = "Y", ["/b/x"] = "X", ["/b/y"] = "Y", ["/b/z"] = "Z", ["/c/x"] = "X", ["/c/z"] = "Z" };
        await catalog.ReplaceMachineFilesAsync("a", [File("/a/x", 10, 1), File("/a/y", 20, 2), File("/a/y2", 20, 3)]);
        await catalog.ReplaceMachineFilesAsync("b", [File("/b/x", 10, 1), File("/b/y", 20, 2), File("/b/z", 30, 3)]);
        await catalog.ReplaceMachineFilesAsync("c", [File("/c/x", 10, 1), File("/c/z", 30, 2)]);
        foreach (var machine in new[] { "a", "b", "c" })
        {
            await HashRequestedAsync(catalog, machine, content);
        }

        int bId = await DeleteMachineRowAsync(database, "b");

        // X keeps a and c; Y, shared with b, is a's alone: a group of all groups, none of those across machines.
        Assert.Equal([["a:/a/y", "a:/a/y2"], ["a:/a/x", "c:/c/x"]], (await catalog.FindGroupsAsync("a")).Select(Names).ToArray());
        var skipped = new List<string>();
        var across = Assert.Single(await catalog.FindGroupsAcrossMachinesAsync("a", skipped.Add));
        Assert.Equal(["a:", "c:/c/x"], Names(across));
        var message = Assert.Single(skipped);
        Assert.StartsWith($"The catalog's 2 rows of machine id {bId} matching these files were left out: ", message, StringComparison.Ordinal);
        // c's Z was shared with b alone: no group of one file.
        Assert.Equal(["a:/a/x", "c:/c/x"], Names(Assert.Single(await catalog.FindGroupsAsync("c"))));
        // Across machines, c sees a's file of X, and b's rows named.
        var fromC = new List<string>();
        Assert.Equal(["a:/a/x", "c:"], Names(Assert.Single(await catalog.FindGroupsAcrossMachinesAsync("c", fromC.Add))));
        Assert.StartsWith($"The catalog's 2 rows of machine id {bId} ", Assert.Single(fromC), StringComparison.Ordinal);
        Assert.Contains($"DELETE FROM dedup.files WHERE machine_id = {bId}", message, StringComparison.Ordinal);
        // The overload without a callback leaves them out too.
        Assert.Equal(["a:", "c:/c/x"], Names(Assert.Single(await catalog.FindGroupsAcrossMachinesAsync("a"))));
    }

    /// <summary>Deletes a machine's row as a person at psql would, leaving its files and digests; returns its id.</summary>
    private static async Task<int> DeleteMachineRowAsync(string connectionString, string machine)
    {
        await using var connection = new NpgsqlConnection(connectionString);
        await connection.OpenAsync();
        await using var command = new NpgsqlCommand("DELETE FROM dedup.machines WHERE name = $1 RETURNING id", connection) { Parameters = { new() { Value = machine } } };
        return (int)(await command.ExecuteScalarAsync())!;
    }

    private static Task<(List<DuplicateGroup> Groups, Reporting.ScanSummary Summary)> ScanAsync(FileCatalog catalog, string machine, TempTree tree) =>
        Scan.RunAsync(b => b.AddRoot(tree.Root).UseCatalog(catalog, machine));
}
