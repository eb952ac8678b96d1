using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Npgsql;
using static Dedup.Core.Tests.Catalog.CatalogData;

namespace Dedup.Core.Tests.Catalog;

/// <summary>Several machines writing at once: every row lands, nothing deadlocks, a machine's two scans never mix.</summary>
[Collection(PostgresCollection.Name)]
public sealed class CatalogConcurrencyTests(PostgresFixture postgres)
{
    private const int FilesPerMachine = 20_000;

    [PostgresFact]
    public async Task Machines_scanning_at_once_lose_no_rows_and_do_not_deadlock()
    {
        string database = postgres.NewDatabase("concurrent");
        await using var catalog = new PostgresCatalog(database);
        await catalog.MigrateAsync();
        string[] machines = Enumerable.Range(0, 6).Select(i => $"host-{i}").ToArray();

        // Each machine: a scan, its digests, a rescan and its digests, all machines at once; sizes overlap across
        // machines so every index page is shared. Two clients of host-0 rescan it at the same time as well.
        var work = machines.Select(machine => Task.Run(async () =>
        {
            for (int round = 0; round < 2; round++)
            {
                var files = Files(machine, round, FilesPerMachine);
                Assert.Equal(FilesPerMachine, (await catalog.ReplaceMachineFilesAsync(machine, files)).Files);
                var toHash = await catalog.GetFilesToHashAsync(machine);
                await catalog.RecordDigestsAsync(machine, toHash.Select(file => new CatalogDigest(file.Stamp, Sha($"{file.Stamp.Length}"))));
            }
        })).ToList();
        work.Add(Task.Run(() => catalog.ReplaceMachineFilesAsync("host-0", Files("host-0", 7, FilesPerMachine / 2))));
        await Task.WhenAll(work).WaitAsync(TimeSpan.FromMinutes(3));

        await using var connection = new NpgsqlConnection(database);
        await connection.OpenAsync();
        await using var command = new NpgsqlCommand(
            """
            SELECT m.name, count(f.*), count(DISTINCT f.path), count(DISTINCT substring(f.path from 1 for position('/' in substring(f.path from 2)) + 1))
            FROM dedup.machines m LEFT JOIN dedup.files f ON f.machine_id = m.id GROUP BY m.name, m.file_count HAVING count(f.*) = m.file_count ORDER BY m.name
            """,
            connection);
        var counts = new Dictionary<string, (long Rows, long Paths, long Rounds)>();
        await using (var reader = await command.ExecuteReaderAsync())
        {
            while (await reader.ReadAsync())
            {
                counts[reader.GetString(0)] = (reader.GetInt64(1), reader.GetInt64(2), reader.GetInt64(3));
            }
        }

        Assert.Equal(machines, counts.Keys.Order(StringComparer.Ordinal));
        foreach (string machine in machines.Skip(1))
        {
            Assert.Equal((FilesPerMachine, FilesPerMachine, 1L), counts[machine]);
        }

        // host-0 holds exactly one of its scans (whichever committed last), never a mix of two.
        Assert.Equal(1, counts["host-0"].Rounds);
        Assert.Contains(counts["host-0"].Rows, new long[] { FilesPerMachine, FilesPerMachine / 2 });
        Assert.Equal(counts["host-0"].Rows, counts["host-0"].Paths);

        // Each machine's sizes are those of its files as committed, whichever of host-0's scans won.
        await using (var sizes = new NpgsqlCommand(CatalogGroupTests.SizesMismatchSql, connection))
        {
            Assert.Equal(0L, (long)(await sizes.ExecuteScalarAsync())!);
        }

        // Every machine's files of a shared size and content group with the other machines'.
        var groups = await catalog.FindGroupsAsync("host-3");
        Assert.NotEmpty(groups);
        Assert.All(groups, group => Assert.True(group.SpansMachines));
    }

    [PostgresFact]
    public async Task Two_clients_recording_one_machines_digests_at_once_store_each_identity_once()
    {
        string database = postgres.NewDatabase("recordtwice");
        await using var first = new PostgresCatalog(database);
        await using var second = new PostgresCatalog(database);
        var files = Files("host", 0, FilesPerMachine);
        await first.ReplaceMachineFilesAsync("host", files);
        var digests = files.Select(file => new CatalogDigest(file.Stamp, Sha($"{file.Stamp.Length}"))).ToList();

        // Both clients replace the same identities' digests at once, several times: one recording must wait for the
        // other (a delete and an insert of each interleaved would break the primary key or store a digest twice).
        for (int round = 0; round < 4; round++)
        {
            var recorded = await Task.WhenAll(first.RecordDigestsAsync("host", digests), second.RecordDigestsAsync("host", digests)).WaitAsync(TimeSpan.FromMinutes(2));
            Assert.Equal([(long)FilesPerMachine, FilesPerMachine], recorded);
        }

        Assert.Equal(FilesPerMachine, (await first.GetDigestedFilesAsync("host")).Count);
        await using var connection = new NpgsqlConnection(database);
        await connection.OpenAsync();
        await using var command = new NpgsqlCommand("SELECT count(*) FROM dedup.digests", connection);
        Assert.Equal((long)FilesPerMachine, await command.ExecuteScalarAsync());
    }

    /// <summary>A scan's files: paths under "/round-N/", sizes shared across machines (1000 distinct sizes).</summary>
    private static List<CatalogFile> Files(string machine, int round, int count) =>
        Enumerable.Range(0, count)
            .Select(i => File($"/round-{round}/{machine}/dir-{i % 97}/file-{i}", 4096 + (i % 1000), (ulong)i + 1))
            .ToList();
}
