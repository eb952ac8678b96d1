using System.Globalization;
using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;
using Npgsql;

namespace Dedup.Core.PostgreSql;

/// <summary>
/// Reads the groups of one machine. The server finds the digests shared by two or more files (identities) and
/// joins them to their file rows; the rows are grouped and sorted here, which spares the server a sort of every
/// row with its path (measured: most of the query's time at a million files, spilled to disk under the default
/// work_mem).
/// </summary>
internal static class CatalogGroupReader
{
    // Window count, not a self-join of a materialised CTE: the planner has no statistics for a CTE and chose a
    // nested loop over it (measured: over 15 minutes at a million digests; this form 8-19 s). The machine is an id
    // ($1), not a name joined in: the planner then knows which digests are the machine's. Machines are numbers in the
    // rows, named once per read.
    private static readonly string AllSql = $"""
        WITH mine AS (SELECT DISTINCT d.size, d.sha256 FROM dedup.digests d WHERE d.machine_id = $1),
        -- A digest row is one identity (machine, device, inode): two rows are two files, not two names of one.
        candidates AS (
          SELECT g.*, count(*) OVER w AS files
          FROM mine JOIN dedup.digests g ON g.size = mine.size AND g.sha256 = mine.sha256
          WINDOW w AS (PARTITION BY g.size, g.sha256))
        SELECT {PostgresCatalog.Columns("o")}, c.sha256, o.machine_id, o.path
        FROM candidates c
        JOIN dedup.files o ON o.machine_id = c.machine_id AND {PostgresCatalog.SameStamp("o", "c")}
        WHERE c.files > 1
        """;

    // Only the groups with files of other machines (a scan's local groups are byte-verified by the scan itself), and
    // the machine's own files in them without their paths: the scan has their names (measured at 250k files matched
    // on one other machine: half the 487k rows sent were the scan's own, each joined to its file row for a path).
    // `theirs` is read twice, so it is materialised once. The other machines' digests of this machine's contents are a
    // semi-join, not a join with the distinct contents: the planner sorted this machine's digests to make them distinct
    // (measured at 250k digests on each of two machines: the query 1.06-1.11 s, as a semi-join 0.92-0.96 s).
    private static readonly string AcrossSql = AcrossSqlFrom("SELECT 1 FROM dedup.digests d WHERE d.machine_id = $1 AND d.size = g.size AND d.sha256 = g.sha256");

    // The same for given contents only ($2 sizes, $3 digests): a rescan's files hashed since its barrier.
    private static readonly string AcrossContentsSql = AcrossSqlFrom("SELECT 1 FROM unnest($2::bigint[], $3::bytea[]) AS u(size, sha256) WHERE u.size = g.size AND u.sha256 = g.sha256");

    // Only the other machines' files, for a scan that names its own from its digests (FileCatalog.GetDigestsAsync):
    // measured at 250k digests on each of two machines, 0.65 s of the server against 1.2 s for AcrossSql. Their file
    // rows only are hashed for the join (all machines' rows were, twice the memory and time), and no CTE is read twice.
    private static readonly string OthersSql = OthersSqlFrom("SELECT 1 FROM dedup.digests d WHERE d.machine_id = $1 AND d.size = g.size AND d.sha256 = g.sha256");

    private static readonly string OthersContentsSql = OthersSqlFrom("SELECT 1 FROM unnest($2::bigint[], $3::bytea[]) AS u(size, sha256) WHERE u.size = g.size AND u.sha256 = g.sha256");

    private static string OthersSqlFrom(string mine) => $"""
        SELECT {PostgresCatalog.Columns("o")}, g.sha256, o.machine_id, o.path
        FROM dedup.digests g
        JOIN dedup.files o ON o.machine_id = g.machine_id AND {PostgresCatalog.SameStamp("o", "g")}
        WHERE g.machine_id <> $1 AND o.machine_id <> $1 AND EXISTS ({mine})
        """;

    private static string AcrossSqlFrom(string mine) => $"""
        WITH theirs AS MATERIALIZED (
          SELECT g.* FROM dedup.digests g WHERE g.machine_id <> $1 AND EXISTS ({mine}))
        SELECT {PostgresCatalog.Columns("o")}, t.sha256, o.machine_id, o.path
        FROM theirs t
        JOIN dedup.files o ON o.machine_id = t.machine_id AND {PostgresCatalog.SameStamp("o", "t")}
        UNION ALL
        SELECT {PostgresCatalog.Columns("d")}, d.sha256, d.machine_id, NULL
        FROM dedup.digests d
        WHERE d.machine_id = $1 AND EXISTS (SELECT 1 FROM theirs t WHERE t.size = d.size AND t.sha256 = d.sha256)
        """;

    /// <summary>The groups of a machine; rows of a machine id with no name (a hand-deleted machine row) are left out and named to <paramref name="skipped"/>.</summary>
    public static async Task<IReadOnlyList<CatalogGroup>> ReadAsync(NpgsqlConnection connection, string machine, GroupRead kind, Action<string>? skipped, CancellationToken cancellationToken, (long[] Sizes, byte[][] Digests)? contents = null)
    {
        // One snapshot for the machines' names and the rows that name them (a machine may be added meanwhile).
        await using var transaction = await connection.BeginTransactionAsync(System.Data.IsolationLevel.RepeatableRead, cancellationToken).ConfigureAwait(false);
        await SetUpAsync(connection, cancellationToken).ConfigureAwait(false);
        var names = new Dictionary<int, string>();
        int? id = null;
        await using (var command = new NpgsqlCommand("SELECT id, name FROM dedup.machines", connection))
        await using (var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false))
        {
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                names[reader.GetInt32(0)] = reader.GetString(1);
                if (names[reader.GetInt32(0)] == machine)
                {
                    id = reader.GetInt32(0);
                }
            }
        }

        if (id is null)
        {
            return [];
        }

        var read = new GroupRows(names);
        if (contents is { } wanted)
        {
            await read.ReadAsync(connection, kind == GroupRead.OtherMachines ? OthersContentsSql : AcrossContentsSql, id.Value, wanted, cancellationToken).ConfigureAwait(false);
        }
        else
        {
            var sql = kind switch { GroupRead.All => AllSql, GroupRead.AcrossMachines => AcrossSql, _ => OthersSql };
            await read.CopyAsync(connection, sql, id.Value, cancellationToken).ConfigureAwait(false);
        }

        await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
        foreach (var (orphan, rows) in (read.Orphans ?? []).OrderBy(entry => entry.Key))
        {
            skipped?.Invoke(OrphanMessage(orphan, rows));
        }

        return read.ToGroups(machine, kind);
    }

    /// <summary>
    /// The planner cannot tell how many digests share a (size, SHA-256) and guessed a few dozen rows: it looked each file
    /// row up by index (measured at 250k files on each of two machines: 2.2 s of a 4.3 s query). One hash join of the
    /// candidates with the machines' rows, held in memory, took 0.4 s (the whole query 1.6 s). No parallel workers: each
    /// built the same hash of the machine's digests again (three times the CPU at 250k digests, for the same 0.8-0.9 s;
    /// the server is often the scanning machine's neighbour on few cores). No plain index scan: right after a machine's
    /// first scan the statistics still say it has no digest (autoanalyze has not run), and the planner read its 250k
    /// digests through the primary key, a heap page per row (measured on the 250k tree's fleet first scan: 88 ms of the
    /// read's 295 ms before its first row; as a bitmap scan, pages in order, 34 ms, the read 460 → 352 ms).
    /// </summary>
    private static Task SetUpAsync(NpgsqlConnection connection, CancellationToken cancellationToken) =>
        PostgresCatalog.ExecuteAsync(connection, "SET LOCAL work_mem = '128MB'; SET LOCAL enable_nestloop = off; SET LOCAL enable_indexscan = off; SET LOCAL max_parallel_workers_per_gather = 0", cancellationToken);

    /// <summary>
    /// The rows of one read as structs, grouped by content (size and digest as numbers: no string or
    /// array per row), with the rows of machine ids that have no name counted apart.
    /// </summary>
    private sealed class GroupRows(Dictionary<int, string> names)
    {
        private readonly CatalogMatchRows _matches = new();
        private readonly ByteChunks _paths = new();
        private HashSet<int>? _touched;

        /// <summary>Rows of a machine id with no machines row, by id.</summary>
        public Dictionary<int, long>? Orphans { get; private set; }

        /// <summary>Reads the rows of <paramref name="sql"/> (the machine's id written in: a COPY takes no parameters).</summary>
        public async Task CopyAsync(NpgsqlConnection connection, string sql, int id, CancellationToken cancellationToken)
        {
            var statement = $"COPY ({sql.Replace("$1", id.ToString(CultureInfo.InvariantCulture), StringComparison.Ordinal)}) TO STDOUT (FORMAT BINARY)";
            await using var copy = await BinaryCopyReader.BeginAsync(connection, statement, cancellationToken).ConfigureAwait(false);
            while (await copy.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                var stamp = PostgresCatalog.ReadStamp(copy, 0);
                var pathIsNull = copy.IsNull(7);
                Add(stamp.Length, copy.GetBytes(5), copy.GetInt32(6), pathIsNull ? [] : copy.GetBytes(7), pathIsNull, stamp);
            }
        }

        /// <summary>Reads the groups of given contents: parameters, which a COPY cannot take (a rescan's few hashed contents).</summary>
        public async Task ReadAsync(NpgsqlConnection connection, string sql, int id, (long[] Sizes, byte[][] Digests) contents, CancellationToken cancellationToken)
        {
            byte[] sha = new byte[CatalogDigest.Sha256Length];
            await using var command = PostgresCatalog.Command(connection, sql, id, contents.Sizes, contents.Digests);
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                reader.GetBytes(5, 0, sha, 0, sha.Length);
                var pathIsNull = reader.IsDBNull(7);
                Add(reader.GetInt64(0), sha, reader.GetInt32(6), pathIsNull ? [] : reader.GetFieldValue<byte[]>(7), pathIsNull, PostgresCatalog.ReadStamp(reader, 0));
            }
        }

        /// <summary>The groups; one that held rows of unnamed machines is checked again without them (a group no row is left of is not made).</summary>
        public List<CatalogGroup> ToGroups(string machine, GroupRead kind) =>
            _touched is not { } touched
                ? _matches.ToGroups(keep: null)
                : _matches.ToGroups((group, files) => !touched.Contains(group) || StillAGroup(files, machine, kind));

        private void Add(long size, ReadOnlySpan<byte> sha, int machineId, ReadOnlySpan<byte> path, bool pathIsNull, FileStamp stamp)
        {
            var group = _matches.GroupOf(size, sha);
            if (!names.TryGetValue(machineId, out var name))
            {
                Orphans ??= [];
                Orphans[machineId] = Orphans.GetValueOrDefault(machineId) + 1;
                (_touched ??= []).Add(group);
                return;
            }

            // No path: one of the machine's own files in a read of groups across machines.
            _matches.Add(group, name, pathIsNull ? ReadOnlyMemory<byte>.Empty : _paths.Add(path), stamp);
        }
    }

    /// <summary>The distinct contents of <paramref name="digests"/> as the two arrays of <see cref="AcrossContentsSql"/>.</summary>
    public static (long[] Sizes, byte[][] Digests) Contents(IReadOnlyCollection<CatalogDigest> digests)
    {
        var seen = new HashSet<(long, UInt128, UInt128)>();
        var sizes = new List<long>(digests.Count);
        var shas = new List<byte[]>(digests.Count);
        foreach (var digest in digests)
        {
            if (seen.Add(CatalogMatchRows.Key(digest.Stamp.Length, digest.Sha256.Span)))
            {
                sizes.Add(digest.Stamp.Length);
                shas.Add(digest.Sha256.ToArray());
            }
        }

        return (sizes.ToArray(), shas.ToArray());
    }

    /// <summary>
    /// Whether a group that lost its rows of unnamed machines still holds two distinct files (machine and identity) and,
    /// in a read across machines, a file of another machine; in a read of other machines' files only, any file.
    /// </summary>
    private static bool StillAGroup(IReadOnlyList<CatalogMatch> files, string machine, GroupRead kind) =>
        kind == GroupRead.OtherMachines
            ? files.Count > 0
            : files.Select(file => (file.Machine, file.Stamp.Identity)).Distinct().Count() >= 2
              && !(kind == GroupRead.AcrossMachines && files.All(file => file.Machine == machine));

    private static string OrphanMessage(int id, long rows) =>
        $"The catalog's {rows} {(rows == 1 ? "row" : "rows")} of machine id {id} matching these files {(rows == 1 ? "was" : "were")} left out: "
        + CatalogOrphans.Advice(id);
}

/// <summary>What a group read returns.</summary>
internal enum GroupRead
{
    /// <summary>Every group of the machine's contents, its own files with their paths.</summary>
    All,

    /// <summary>The groups holding files of other machines, the machine's own files without paths.</summary>
    AcrossMachines,

    /// <summary>Only the other machines' files of the machine's contents.</summary>
    OtherMachines,
}
