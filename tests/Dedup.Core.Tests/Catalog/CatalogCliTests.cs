using System.Security.Cryptography;
using System.Text.Json;
using Dedup.Core.Tests.Infrastructure;
using Npgsql;

namespace Dedup.Core.Tests.Catalog;

/// <summary><c>dedup find --catalog … --machine …</c>: the real CLI against a real PostgreSQL server.</summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogCliTests(PostgresFixture postgres)
{
    private static readonly byte[] Installer = TempTree.RandomBytes(20_000, 11);
    private static readonly byte[] Photo = TempTree.RandomBytes(7_777, 12);

    [PostgresFact]
    public async Task Three_machines_in_json_and_text_carry_machines_digests_and_byte_verified_local_groups()
    {
        string database = postgres.NewDatabase("cli3");
        using var alpha = new TempTree();
        using var beta = new TempTree();
        using var gamma = new TempTree();
        alpha.Write("setup.exe", Installer);
        alpha.Write("backup/setup.exe", Installer);
        beta.Write("setup.exe", Installer);
        beta.Write("photo.jpg", Photo);
        gamma.Write("photo.jpg", Photo);
        gamma.Write("unique.txt", "only here");

        foreach (var (machine, tree) in new[] { ("alpha", alpha), ("beta", beta), ("gamma", gamma), ("beta", beta) })
        {
            var (exit, _, stderr) = await FindAsync(database, machine, tree, "json");
            Assert.True(exit == 0, stderr);
        }

        var (code, stdout, errors) = await FindAsync(database, "alpha", alpha, "json");

        Assert.True(code == 0, errors);
        using var report = JsonDocument.Parse(stdout);
        var groups = report.RootElement.GetProperty("groups").EnumerateArray().ToList();
        // One group per content (#40): alpha's two installers, compared byte for byte, with beta's copy.
        var across = Assert.Single(groups);
        Assert.All(across.GetProperty("files").EnumerateArray(), file => Assert.True(file.TryGetProperty("machine", out _)));
        Assert.False(across.TryGetProperty("verifiedByBytes", out _)); // written only when false: alpha's files were compared
        Assert.Equal(Convert.ToHexStringLower(SHA256.HashData(Installer)), across.GetProperty("digest").GetString());
        Assert.Equal(
            ["alpha:" + alpha.PathOf("backup/setup.exe"), "alpha:" + alpha.PathOf("setup.exe"), "beta:" + beta.PathOf("setup.exe")],
            Names(across));
        Assert.Equal(
            ["alpha:False", "alpha:False", "beta:True"],
            across.GetProperty("files").EnumerateArray().Select(file => $"{file.GetProperty("machine").GetString()}:{file.GetProperty("sha256Only").GetBoolean()}").Order(StringComparer.Ordinal));
        var catalog = report.RootElement.GetProperty("summary").GetProperty("catalog");
        Assert.Equal("alpha", catalog.GetProperty("machine").GetString());
        Assert.Equal(1, catalog.GetProperty("groupsAcrossMachines").GetInt32());

        // gamma: the photo with beta's, in text with each file's machine.
        var (textExit, text, textErrors) = await FindAsync(database, "gamma", gamma, "text");
        Assert.True(textExit == 0, textErrors);
        Assert.Contains($"[across machines, SHA-256 {Convert.ToHexStringLower(SHA256.HashData(Photo))}]", text, StringComparison.Ordinal);
        Assert.Contains($"  beta: {beta.PathOf("photo.jpg")}\n", text, StringComparison.Ordinal);
        Assert.Contains($"  gamma: {gamma.PathOf("photo.jpg")}\n", text, StringComparison.Ordinal);
    }

    [PostgresFact]
    public async Task A_partial_result_says_what_is_pending_and_the_other_machine_says_it_hashed_it()
    {
        string database = postgres.NewDatabase("clipending");
        using var alpha = new TempTree();
        using var beta = new TempTree();
        alpha.Write("photo.jpg", Photo); // a unique size when alpha scans: no digest
        beta.Write("a/photo.jpg", Photo);
        beta.Write("b/photo.jpg", Photo);
        Assert.Equal(0, (await FindAsync(database, "alpha", alpha, "json")).ExitCode);

        var (exit, text, errors) = await FindAsync(database, "beta", beta, "text");
        Assert.True(exit == 0, errors);
        Assert.Contains("catalog: 2 files may match files on alpha once alpha scans again\n", text, StringComparison.Ordinal);

        var (alphaExit, json, alphaErrors) = await FindAsync(database, "alpha", alpha, "json");
        Assert.True(alphaExit == 0, alphaErrors);
        using var report = JsonDocument.Parse(json);
        var catalog = report.RootElement.GetProperty("summary").GetProperty("catalog");
        Assert.Equal(1, catalog.GetProperty("filesHashedOnRequest").GetInt64());
        Assert.False(catalog.TryGetProperty("pendingMatches", out _));

        var (_, again, _) = await FindAsync(database, "beta", beta, "text");
        Assert.DoesNotContain("may match files on", again, StringComparison.Ordinal);
        Assert.Contains($"  beta: {beta.PathOf("a/photo.jpg")} [bytes compared]\n", again, StringComparison.Ordinal);
        Assert.Contains($"  alpha: {alpha.PathOf("photo.jpg")}\n", again, StringComparison.Ordinal);
        Assert.StartsWith("3 files of ", again, StringComparison.Ordinal); // one group: beta's two and alpha's copy
    }

    [PostgresFact]
    public async Task A_connection_dropped_mid_scan_prints_the_local_groups_and_one_error_line()
    {
        string database = postgres.NewDatabase("clidrop");
        var dropped = new NpgsqlConnectionStringBuilder(database) { ApplicationName = "dedup-cli-dropped" }.ConnectionString;
        using var alpha = new TempTree();
        alpha.Write("setup.exe", Installer);
        alpha.Write("backup/setup.exe", Installer);
        Assert.Equal(0, (await FindAsync(database, "alpha", alpha, "json")).ExitCode); // creates the schema

        // The scan's write of its files waits on this lock; its backend is then terminated from here.
        await using var admin = new NpgsqlConnection(database);
        await admin.OpenAsync();
        await using var transaction = await admin.BeginTransactionAsync();
        await using (var lockDigests = new NpgsqlCommand("LOCK TABLE dedup.digests IN EXCLUSIVE MODE", admin, transaction))
        {
            await lockDigests.ExecuteNonQueryAsync();
        }

        var run = CliProcess.RunAsync(["find", "--format", "json", "--catalog", dropped, "--machine", "alpha", alpha.Root]);
        await TerminateWhenWaitingAsync(database, run);
        await transaction.RollbackAsync();
        var (exit, stdout, stderr) = await run;

        Assert.Equal(1, exit);
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("dedup: catalog: The connection to the dedup catalog", line, StringComparison.Ordinal);
        Assert.Contains("was lost while replacing a machine's files", line, StringComparison.Ordinal);
        Assert.DoesNotContain(PostgresCluster.Password, stderr, StringComparison.Ordinal);
        using var report = JsonDocument.Parse(stdout);
        var local = Assert.Single(report.RootElement.GetProperty("groups").EnumerateArray());
        Assert.False(local.TryGetProperty("verifiedByBytes", out _));
        Assert.Equal(2, local.GetProperty("files").GetArrayLength());
        Assert.Contains("lost", report.RootElement.GetProperty("summary").GetProperty("catalog").GetProperty("error").GetString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("this is not a connection string", "--catalog: The dedup catalog's connection string is not valid")]
    [InlineData("Host=127.0.0.1;Port=1;Database=fleet;Username=dedup;Password=secret-value;Timeout=3", "--catalog: Cannot connect to the dedup catalog (host '127.0.0.1', port 1, database 'fleet')")]
    public async Task A_bad_connection_string_or_server_is_one_line_and_exit_code_2(string connectionString, string message)
    {
        using var tree = new TempTree();
        tree.Write("a", "same");
        tree.Write("b", "same");

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--catalog", connectionString, "--machine", "m", tree.Root]);

        Assert.Equal(2, exit);
        Assert.Empty(stdout);
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith($"dedup: {message}", line, StringComparison.Ordinal);
        Assert.DoesNotContain("secret-value", stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_machine_without_a_catalog_or_a_catalog_in_csv_is_a_usage_error()
    {
        using var tree = new TempTree();

        var (exit, _, stderr) = await CliProcess.RunAsync(["find", "--machine", "m", tree.Root]);
        var (csvExit, csv, csvError) = await CliProcess.RunAsync(["find", "--format", "csv", "--catalog", "Host=db", tree.Root]);

        Assert.Equal(2, exit);
        Assert.Equal("dedup: --machine names this machine in a catalog: give --catalog too\n", stderr);
        Assert.Equal(2, csvExit);
        Assert.Empty(csv);
        Assert.Equal("dedup: --catalog is written as text or json (CSV has no column for the machine)\n", csvError);
    }

    private static Task<(int ExitCode, string Stdout, string Stderr)> FindAsync(string database, string machine, TempTree tree, string format) =>
        CliProcess.RunAsync(["find", "--format", format, "--catalog", database, "--machine", machine, tree.Root]);

    private static string[] Names(JsonElement group) =>
        group.GetProperty("files").EnumerateArray()
            .Select(file => $"{file.GetProperty("machine").GetString()}:{file.GetProperty("path").GetString()}")
            .Order(StringComparer.Ordinal).ToArray();

    /// <summary>Waits until the CLI's backend waits on a lock, then terminates it (fails if the CLI ends first).</summary>
    private static async Task TerminateWhenWaitingAsync(string database, Task run)
    {
        await using var admin = new NpgsqlConnection(database);
        await admin.OpenAsync();
        for (var attempt = 0; attempt < 1200; attempt++)
        {
            Assert.False(run.IsCompleted, "the CLI ended before its catalog write waited on the lock");
            await using var terminate = new NpgsqlCommand(
                "SELECT count(pg_terminate_backend(pid, 10000)) FROM pg_stat_activity WHERE application_name = 'dedup-cli-dropped' AND wait_event_type = 'Lock'", admin);
            if ((long)(await terminate.ExecuteScalarAsync())! == 1)
            {
                return;
            }

            await Task.Delay(50);
        }

        Assert.Fail("the CLI's catalog write never waited on the lock");
    }
}
