using Dedup.Core.PostgreSql;
using Dedup.Core.Tests.Infrastructure;
using Npgsql;

namespace Dedup.Core.Tests.Catalog;

/// <summary>#40 point 5: eight machines scanning real trees at once against one server, then the fleet view checked against the trees.</summary>
[Collection(PostgresCollection.Name)]
public sealed class FleetConcurrencyTests(PostgresFixture postgres)
{
    private const int Machines = 8;
    private const int Contents = 12;

    [PostgresFact]
    public async Task Eight_machines_scanning_at_once_leave_row_counts_groups_and_pending_digests_consistent()
    {
        string database = postgres.NewDatabase("fleet8");
        var trees = Enumerable.Range(0, Machines).Select(_ => new TempTree()).ToArray();
        try
        {
            // Content k (size 1000 + 10k) on the machines i with (7k + i) % 3 != 0; each machine also has a file of a
            // size no other has, and a local pair (a local group, no fleet group).
            var held = new Dictionary<int, List<int>>();
            for (var i = 0; i < Machines; i++)
            {
                for (var k = 0; k < Contents; k++)
                {
                    if ((7 * k + i) % 3 != 0)
                    {
                        trees[i].Write($"c{k}.bin", TempTree.RandomBytes(1000 + (10 * k), k));
                        (held.TryGetValue(k, out var list) ? list : held[k] = []).Add(i);
                    }
                }

                trees[i].Write("unique.bin", TempTree.RandomBytes(5000 + i, 100 + i));
                trees[i].Write("pair/one.bin", TempTree.RandomBytes(7000 + i, 200 + i));
                trees[i].Write("pair/two.bin", TempTree.RandomBytes(7000 + i, 200 + i));
            }

            await using var catalog = new PostgresCatalog(database);
            await catalog.MigrateAsync();

            // Round one: all at once, each its own client. What a machine saw of the others depends on who committed first.
            await ScanAllAsync(database, trees);

            var machines = await catalog.GetFleetMachinesAsync();
            Assert.Equal(Enumerable.Range(0, Machines).Select(Name), machines.Select(machine => machine.Name));
            for (var i = 0; i < Machines; i++)
            {
                int files = Directory.GetFiles(trees[i].Root, "*", SearchOption.AllDirectories).Length;
                Assert.Equal(files, machines[i].Files);
                Assert.Equal((long)files, await ScalarAsync(database, $"SELECT count(*) FROM dedup.files f JOIN dedup.machines m ON m.id = f.machine_id WHERE m.name = '{Name(i)}'"));
                // Pending: the machine's files of a size another machine's tree has, less those of such a size with a digest.
                var shared = held.Where(entry => entry.Value.Contains(i) && entry.Value.Count > 1).Select(entry => 1000L + (10 * entry.Key)).ToArray();
                long digested = await ScalarAsync(database, $"SELECT count(*) FROM dedup.digests d JOIN dedup.machines m ON m.id = d.machine_id WHERE m.name = '{Name(i)}' AND d.size = ANY($1)", shared);
                Assert.Equal(shared.Length - digested, machines[i].PendingDigests);
            }

            Assert.Equal(0L, await ScalarAsync(database, CatalogGroupTests.SizesMismatchSql));
            // Every group listed so far is part of a true one.
            var expected = Expected(held, trees);
            foreach (var group in await FleetViewTests.ToListAsync(catalog.ReadFleetGroupsAsync()))
            {
                Assert.Subset(expected[group.Length].ToHashSet(), FleetViewTests.Names(group).ToHashSet());
            }

            // Round two, all at once again: every machine now sees every other's sizes and hashes its shared files.
            await ScanAllAsync(database, trees);

            Assert.All(await catalog.GetFleetMachinesAsync(), machine => Assert.Equal(0, machine.PendingDigests));
            var groups = await FleetViewTests.ToListAsync(catalog.ReadFleetGroupsAsync());
            var order = expected.OrderByDescending(entry => entry.Key * (entry.Value.Length - 1)).ThenByDescending(entry => entry.Key).ToList();
            Assert.Equal(order.Select(entry => entry.Value), groups.Select(FleetViewTests.Names));
            Assert.Equal(order.Select(entry => entry.Key * (entry.Value.Length - 1)), groups.Select(group => group.WastedBytes));
            // One machine's view: the groups holding its files.
            var ofThree = await FleetViewTests.ToListAsync(catalog.ReadFleetGroupsAsync(Name(3)));
            Assert.Equal(order.Where(entry => entry.Value.Any(name => name.StartsWith(Name(3) + ":", StringComparison.Ordinal))).Select(entry => entry.Value), ofThree.Select(FleetViewTests.Names));
        }
        finally
        {
            foreach (var tree in trees)
            {
                tree.Dispose();
            }
        }
    }

    private static string Name(int machine) => $"host-{machine}";

    /// <summary>The true fleet groups: by size (one content per size), every "machine:path" of the content, in the listing's order.</summary>
    private static Dictionary<long, string[]> Expected(Dictionary<int, List<int>> held, TempTree[] trees) =>
        held.Where(entry => entry.Value.Count > 1).ToDictionary(
            entry => 1000L + (10 * entry.Key),
            entry => entry.Value.Select(i => $"{Name(i)}:{trees[i].PathOf($"c{entry.Key}.bin")}").Order(StringComparer.Ordinal).ToArray());

    private static async Task ScanAllAsync(string database, TempTree[] trees)
    {
        var scans = trees.Select((tree, i) => Task.Run(async () =>
        {
            await using var client = new PostgresCatalog(database);
            var (_, summary) = await Scan.RunAsync(builder => builder.AddRoot(tree.Root).UseCatalog(client, Name(i)));
            Assert.Null(summary.Catalog!.Error);
            Assert.Empty(summary.Errors);
        }));
        await Task.WhenAll(scans).WaitAsync(TimeSpan.FromMinutes(5));
    }

    private static async Task<long> ScalarAsync(string database, string sql, params object[] parameters)
    {
        await using var connection = new NpgsqlConnection(database);
        await connection.OpenAsync();
        await using var command = new NpgsqlCommand(sql, connection);
        foreach (var parameter in parameters)
        {
            command.Parameters.Add(new NpgsqlParameter { Value = parameter });
        }

        return (long)(await command.ExecuteScalarAsync())!;
    }
}
