// The catalog store alone (#19): for each size, two machines of N files each (the second holds copies of half the
// first's files), timed through PostgresCatalog's own calls, then the table's and indexes' sizes.
// Usage: dotnet run -c Release --project benchmarks/catalog -- [--files 250000,1000000] [--connection CS] [--fast]
//   (--fleet [--machines 10] [--files 250000]: the fleet view instead, Fleet.cs)
//   [--settings "-c shared_buffers=2GB"]
// Without --connection it starts a throwaway PostgreSQL cluster (server defaults: fsync on; --fast turns fsync off;
// --settings passes more server options).
using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using Dedup.Core.Enumeration;
using Dedup.Core.Catalog;
using Dedup.Core.PostgreSql;
using Dedup.Core.Tests.Catalog;
using Npgsql;

string Arg(string name, string fallback) => Array.IndexOf(args, name) is int i and >= 0 ? args[i + 1] : fallback;
int[] sizes = Arg("--files", "250000,1000000").Split(',').Select(s => int.Parse(s, CultureInfo.InvariantCulture)).ToArray();
string? connection = Arg("--connection", "") is { Length: > 0 } given ? given : null;
using var cluster = connection is null ? PostgresCluster.Start(durable: !args.Contains("--fast"), settings: Arg("--settings", "")) : null;

Console.WriteLine($"# catalog store benchmark, {DateTime.UtcNow:yyyy-MM-ddTHH:mmZ}, {Environment.ProcessorCount} cores, .NET {Environment.Version}; load average {LoadAverage()}");
await using (var probe = new NpgsqlConnection(connection ?? cluster!.ConnectionString()))
{
    await probe.OpenAsync();
    await using var version = new NpgsqlCommand("SELECT version(), current_setting('fsync'), current_setting('shared_buffers') || ', max_wal_size=' || current_setting('max_wal_size')", probe);
    await using var reader = await version.ExecuteReaderAsync();
    await reader.ReadAsync();
    Console.WriteLine($"# server: {reader.GetString(0)}; fsync={reader.GetString(1)}; shared_buffers={reader.GetString(2)}");
}

if (args.Contains("--fleet"))
{
    await FleetBench.RunAsync(connection ?? cluster!.CreateDatabase("fleet"), int.Parse(Arg("--machines", "10"), CultureInfo.InvariantCulture), sizes[0]);
    Console.WriteLine($"\n# load average at the end: {LoadAverage()}");
    return;
}

// Warm-up on a database of its own: JIT, the connection pool, the server's catalog caches.
if (cluster is not null)
{
    await using var warm = new PostgresCatalog(cluster.CreateDatabase("warmup"));
    var files = Machine(0, 10_000, copiesOf: null);
    await warm.ReplaceMachineFilesAsync("w", files.Files);
    await warm.RecordDigestsAsync("w", (await warm.GetFilesToHashAsync("w")).Select(files.Digest));
    await warm.FindGroupsAsync("w");
}

foreach (int n in sizes)
{
    string database = connection ?? cluster!.CreateDatabase($"bench{n}");
    await using var catalog = new PostgresCatalog(database);
    await catalog.MigrateAsync();
    var first = Machine(0, n, copiesOf: null);
    var second = Machine(1, n, copiesOf: first);
    Console.WriteLine($"\n## {n:N0} files per machine, 2 machines");

    var replace0 = await Timed(() => catalog.ReplaceMachineFilesAsync("m0", first.Files));
    Report("replace m0 (first scan, COPY)", replace0.Seconds, n);
    var replace1 = await Timed(() => catalog.ReplaceMachineFilesAsync("m1", second.Files));
    Report("replace m1 (first scan, COPY)", replace1.Seconds, n);
    var vacuum = await Timed(() => Sql(database, "VACUUM ANALYZE dedup.files"));
    Report("VACUUM ANALYZE (autovacuum's work)", vacuum.Seconds, null);

    var shared = await Timed(() => catalog.GetSharedSizesAsync("m1"));
    Report($"shared sizes of m1 ({shared.Value.Count:N0} sizes)", shared.Seconds, null);
    var toHash1 = await Timed(() => catalog.GetFilesToHashAsync("m1"));
    Report($"files to hash, m1 ({toHash1.Value.Count:N0} files)", toHash1.Seconds, null);
    var record1 = await Timed(() => catalog.RecordDigestsAsync("m1", toHash1.Value.Select(second.Digest)));
    Report($"record digests, m1 ({record1.Value:N0} rows)", record1.Seconds, toHash1.Value.Count);
    var toHash0 = await catalog.GetFilesToHashAsync("m0");
    var record0 = await Timed(() => catalog.RecordDigestsAsync("m0", toHash0.Select(first.Digest)));
    Report($"record digests, m0 ({record0.Value:N0} rows)", record0.Seconds, toHash0.Count);
    await Sql(database, "VACUUM ANALYZE dedup.files");

    var groups = await Timed(() => catalog.FindGroupsAsync("m1"));
    Report($"groups of m1 ({groups.Value.Count:N0} groups, {groups.Value.Sum(g => g.Files.Count):N0} files)", groups.Seconds, null);
    await Sql(database, "VACUUM ANALYZE dedup.files, dedup.digests");
    var rescan = await Timed(() => catalog.ReplaceMachineFilesAsync("m1", second.Files));
    Report($"rescan m1 unchanged ({rescan.Value.DigestsKept:N0} digests kept)", rescan.Seconds, n);
    // A nightly rescan: 1% of the files edited (new mtime and ctime), the rest unchanged.
    var edited = second.Files.Select((file, i) => i % 100 != 0 ? file
        : new CatalogFile(file.Path, file.Stamp with { LastWriteTimeNs = file.Stamp.LastWriteTimeNs + 1, ChangeTimeNs = file.Stamp.ChangeTimeNs + 1 })).ToList();
    var rescanEdited = await Timed(() => catalog.ReplaceMachineFilesAsync("m1", edited));
    Report($"rescan m1, 1% edited ({rescanEdited.Value.DigestsKept:N0} digests kept)", rescanEdited.Seconds, n);
    var toHashEdited = await Timed(() => catalog.GetFilesToHashAsync("m1"));
    Report($"files to hash after it ({toHashEdited.Value.Count:N0} files)", toHashEdited.Seconds, null);
    var recordEdited = await Timed(() => catalog.RecordDigestsAsync("m1", toHashEdited.Value.Select(file => new CatalogDigest(file.Stamp, SHA256.HashData(file.Path.Span)))));
    Report($"record their digests ({recordEdited.Value:N0} rows)", recordEdited.Seconds, toHashEdited.Value.Count);
    var groupsEdited = await Timed(() => catalog.FindGroupsAsync("m1"));
    Report($"groups of m1 again ({groupsEdited.Value.Count:N0} groups)", groupsEdited.Seconds, null);
    await Sql(database, "VACUUM FULL ANALYZE dedup.files, dedup.digests");
    await PrintSizes(database, 2L * n, toHash0.Count + toHash1.Value.Count);
}

Console.WriteLine($"\n# load average at the end: {LoadAverage()}");

// The machine's 1/5/15-minute load: these numbers are only comparable between runs at similar load.
static string LoadAverage() =>
    File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "unknown";

static void Report(string what, double seconds, long? rows) =>
    Console.WriteLine(rows is long r
        ? $"| {what} | {seconds:0.000} s | {r / seconds:N0} rows/s |"
        : $"| {what} | {seconds:0.000} s | |");

static async Task<(T Value, double Seconds)> Timed<T>(Func<Task<T>> action)
{
    var clock = Stopwatch.StartNew();
    T value = await action();
    return (value, clock.Elapsed.TotalSeconds);
}

static async Task<int> Sql(string database, string sql)
{
    await using var connection = new NpgsqlConnection(database);
    await connection.OpenAsync();
    await using var command = new NpgsqlCommand(sql, connection) { CommandTimeout = 0 };
    return await command.ExecuteNonQueryAsync();
}

static async Task PrintSizes(string database, long rows, long digests)
{
    await using var connection = new NpgsqlConnection(database);
    await connection.OpenAsync();
    await using var command = new NpgsqlCommand(
        """
        SELECT 'files: table (heap+TOAST)', pg_table_size('dedup.files') UNION ALL
        SELECT 'files: all indexes', pg_indexes_size('dedup.files') UNION ALL
        SELECT 'digests: table', pg_table_size('dedup.digests') UNION ALL
        SELECT 'digests: all indexes', pg_indexes_size('dedup.digests') UNION ALL
        SELECT 'total (both tables, all indexes)', pg_total_relation_size('dedup.files') + pg_total_relation_size('dedup.digests') UNION ALL
        SELECT 'index ' || c.relname, pg_relation_size(c.oid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
          WHERE i.indrelid IN ('dedup.files'::regclass, 'dedup.digests'::regclass) UNION ALL
        SELECT 'avg path bytes', avg(octet_length(path))::bigint FROM dedup.files
        """,
        connection);
    await using var reader = await command.ExecuteReaderAsync();
    Console.WriteLine($"\nsizes after VACUUM FULL, {rows:N0} rows ({digests:N0} with a digest):");
    while (await reader.ReadAsync())
    {
        long bytes = reader.GetInt64(1);
        string name = reader.GetString(0);
        Console.WriteLine(name == "avg path bytes"
            ? $"| {name} | {bytes} B | |"
            : $"| {name} | {bytes / 1048576.0:N1} MiB | {bytes / (double)rows:N1} B/file |" + (name.Contains("digest") ? $" {bytes / (double)digests:N1} B/digest |" : " |"));
    }
}

// A machine's scan: paths like a home folder's, sizes log-uniform from 1 B to 1 GiB (so small sizes repeat, as
// on real disks); the second machine holds copies of every other file of the first (same size and content).
static MachineData Machine(int machine, int n, MachineData? copiesOf)
{
    var random = new Random(42 + machine);
    var files = new List<CatalogFile>(n);
    var content = new Dictionary<FileStamp, long>(n);
    for (int i = 0; i < n; i++)
    {
        long size;
        long id;
        if (copiesOf is not null && i % 2 == 0)
        {
            var original = copiesOf.Files[i];
            size = original.Stamp.Length;
            id = copiesOf.Content[original.Stamp];
        }
        else
        {
            size = (long)Math.Exp(random.NextDouble() * Math.Log(1L << 30));
            id = ((long)machine << 40) | (uint)i;
        }

        var stamp = new FileStamp(new FileIdentity(0x8_0000_0001, (ulong)i + 100), size, 1_700_000_000_000_000_000 + i, 1_700_000_000_000_000_000 + i);
        string path = $"/home/user{machine}/projects/p{i % 313:D3}/src/module{i % 97:D2}/file-{i:D7}.dat";
        files.Add(new CatalogFile(Encoding.UTF8.GetBytes(path), stamp));
        content[stamp] = id;
    }

    return new MachineData(files, content);
}

internal sealed record MachineData(List<CatalogFile> Files, Dictionary<FileStamp, long> Content)
{
    public CatalogDigest Digest(CatalogFile file) =>
        new(file.Stamp, SHA256.HashData(BitConverter.GetBytes(Content[file.Stamp])));
}
