// The fleet view (#40 point 4): M machines of N files each ingested through the library, then the listings timed.
// Usage: dotnet run -c Release --project benchmarks/catalog -- --fleet [--machines 10] [--files 250000] [--fast]
// Each machine: 60% of its files hold one of 200,000 common contents (about 4 contents per size, so every common
// file has a digest; each content on ~7.5 of 10 machines, as a fleet of similar installs), 40% a size of its own (no digest).
using System.Diagnostics;
using System.Security.Cryptography;
using System.Text;
using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;
using Dedup.Core.PostgreSql;
using Npgsql;

internal static class FleetBench
{
    private const int Contents = 200_000;

    public static async Task RunAsync(string database, int machines, int files)
    {
        Console.WriteLine($"\n## fleet view: {machines} machines x {files:N0} files");
        await using var catalog = new PostgresCatalog(database);
        await catalog.MigrateAsync();
        var ingest = Stopwatch.StartNew();
        for (int m = 0; m < machines; m++)
        {
            var clock = Stopwatch.StartNew();
            var (rows, digests) = Machine(m, files);
            await catalog.ReplaceFilesAndRecordDigestsAsync($"host-{m:D2}", rows, ToAsync(digests));
            Console.WriteLine($"| ingest host-{m:D2} ({rows.Count:N0} files, {digests.Count:N0} digests) | {clock.Elapsed.TotalSeconds:0.00} s |");
        }

        Console.WriteLine($"| ingest, all | {ingest.Elapsed.TotalSeconds:0.0} s |");
        await using (var connection = new NpgsqlConnection(database))
        {
            await connection.OpenAsync();
            await using var analyze = new NpgsqlCommand("VACUUM ANALYZE dedup.files, dedup.digests, dedup.machine_sizes", connection) { CommandTimeout = 0 };
            await analyze.ExecuteNonQueryAsync();
        }

        for (int run = 0; run < 3; run++)
        {
            var clock = Stopwatch.StartNew();
            var listed = await catalog.GetFleetMachinesAsync();
            Console.WriteLine($"| machines listing ({listed.Count} machines, {listed.Sum(x => x.PendingDigests):N0} pending) | {clock.Elapsed.TotalSeconds:0.00} s |");
        }

        for (int run = 0; run < 3; run++)
        {
            await FirstPageAsync(catalog, null);
            await FirstPageAsync(catalog, "host-03");
        }

        // The whole listing, page by page: its time and the client's peak memory.
        var whole = Stopwatch.StartNew();
        long groups = 0, names = 0, wasted = 0;
        await foreach (var group in catalog.ReadFleetGroupsAsync())
        {
            groups++;
            names += group.Files.Count;
            wasted += group.WastedBytes;
        }

        Console.WriteLine($"| whole listing ({groups:N0} groups, {names:N0} names, {wasted / 1048576.0:N0} MiB wasted) | {whole.Elapsed.TotalSeconds:0.0} s | peak working set {Process.GetCurrentProcess().PeakWorkingSet64 / 1048576} MiB |");
        var forget = Stopwatch.StartNew();
        bool forgotten = await catalog.DeleteMachineAsync("host-09");
        Console.WriteLine($"| forget host-09 ({forgotten}) | {forget.Elapsed.TotalSeconds:0.00} s |");
    }

    private static async Task FirstPageAsync(PostgresCatalog catalog, string? machine)
    {
        var clock = Stopwatch.StartNew();
        double first = 0;
        int count = 0;
        await foreach (var group in catalog.ReadFleetGroupsAsync(machine))
        {
            if (count++ == 0)
            {
                first = clock.Elapsed.TotalSeconds;
            }

            if (count == FleetGroupPages.FirstPageSize)
            {
                break;
            }
        }

        Console.WriteLine($"| first group{(machine is null ? string.Empty : $" of {machine}")} / first page ({count} groups) | {first:0.00} s / {clock.Elapsed.TotalSeconds:0.00} s |");
    }

    private static (List<CatalogFile> Files, List<CatalogDigest> Digests) Machine(int machine, int n)
    {
        var files = new List<CatalogFile>(n);
        var digests = new List<CatalogDigest>();
        int common = n * 3 / 5;
        for (int i = 0; i < n; i++)
        {
            long size;
            byte[]? sha = null;
            if (i < common)
            {
                // 7 and 200,000 are coprime: a machine's common files are distinct contents.
                int content = (int)(((long)i * 7 + (long)machine * 15_000) % Contents);
                size = 4096 + (content % 50_000) * 7L;
                sha = SHA256.HashData(BitConverter.GetBytes(content));
            }
            else
            {
                size = 100_000_000L + ((long)machine * n) + i;
            }

            var stamp = new FileStamp(new FileIdentity(0x8_0000_0001, (ulong)i + 100), size, 1_700_000_000_000_000_000 + i, 1_700_000_000_000_000_001 + i);
            string path = $"/home/user{machine}/projects/p{i % 313:D3}/src/module{i % 97:D2}/file-{i:D7}.dat";
            files.Add(new CatalogFile(Encoding.UTF8.GetBytes(path), stamp));
            if (sha is not null)
            {
                digests.Add(new CatalogDigest(stamp, sha));
            }
        }

        return (files, digests);
    }

    private static async IAsyncEnumerable<CatalogDigest> ToAsync(List<CatalogDigest> digests)
    {
        await Task.Yield();
        foreach (var digest in digests)
        {
            yield return digest;
        }
    }
}
