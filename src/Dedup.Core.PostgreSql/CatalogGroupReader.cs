using Dedup.Core.Catalog;
using System.Buffers.Binary;
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
    // `theirs` is read twice, so it is materialised once.
    private static readonly string AcrossSql = $"""
        WITH mine AS (SELECT DISTINCT d.size, d.sha256 FROM dedup.digests d WHERE d.machine_id = $1),
        theirs AS MATERIALIZED (
          SELECT g.* FROM mine JOIN dedup.digests g ON g.size = mine.size AND g.sha256 = mine.sha256
          WHERE g.machine_id <> $1)
        SELECT {PostgresCatalog.Columns("o")}, t.sha256, o.machine_id, o.path
        FROM theirs t
        JOIN dedup.files o ON o.machine_id = t.machine_id AND {PostgresCatalog.SameStamp("o", "t")}
        UNION ALL
        SELECT {PostgresCatalog.Columns("d")}, d.sha256, d.machine_id, NULL
        FROM dedup.digests d
        WHERE d.machine_id = $1 AND EXISTS (SELECT 1 FROM theirs t WHERE t.size = d.size AND t.sha256 = d.sha256)
        """;

    /// <summary>The groups of a machine; rows of a machine id with no name (a hand-deleted machine row) are left out and named to <paramref name="skipped"/>.</summary>
    public static async Task<IReadOnlyList<CatalogGroup>> ReadAsync(NpgsqlConnection connection, string machine, bool acrossMachinesOnly, Action<string>? skipped, CancellationToken cancellationToken)
    {
        // One snapshot for the machines' names and the rows that name them (a machine may be added meanwhile).
        await using var transaction = await connection.BeginTransactionAsync(System.Data.IsolationLevel.RepeatableRead, cancellationToken).ConfigureAwait(false);
        // The planner cannot tell how many digests share a (size, SHA-256) and guessed a few dozen rows: it looked each
        // file row up by index (measured at 250k files on each of two machines: 2.2 s of a 4.3 s query). One hash join
        // of the candidates with the machines' rows, held in memory, took 0.4 s (the whole query 1.6 s).
        await PostgresCatalog.ExecuteAsync(connection, "SET LOCAL work_mem = '128MB'; SET LOCAL enable_nestloop = off", cancellationToken).ConfigureAwait(false);
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

        // Keyed by size and the digest's two big-endian halves: no string or array per row, and the halves compare
        // as the bytes do. A digest's bytes are copied out only for a group's first row.
        var groups = new Dictionary<(long Size, UInt128 High, UInt128 Low), (byte[] Sha, List<CatalogMatch> Files)>();
        // Rows of a machine id with no machines row, by id; and the groups they were in (those are checked again).
        Dictionary<int, long>? orphans = null;
        HashSet<(long, UInt128, UInt128)>? touched = null;
        byte[] sha = new byte[CatalogDigest.Sha256Length];
        await using (var command = PostgresCatalog.Command(connection, acrossMachinesOnly ? AcrossSql : AllSql, id.Value))
        await using (var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false))
        {
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                reader.GetBytes(5, 0, sha, 0, sha.Length);
                var key = (reader.GetInt64(0), BinaryPrimitives.ReadUInt128BigEndian(sha), BinaryPrimitives.ReadUInt128BigEndian(sha.AsSpan(16)));
                if (!names.TryGetValue(reader.GetInt32(6), out var name))
                {
                    orphans ??= [];
                    orphans[reader.GetInt32(6)] = orphans.GetValueOrDefault(reader.GetInt32(6)) + 1;
                    (touched ??= []).Add(key);
                    continue;
                }

                if (!groups.TryGetValue(key, out var group))
                {
                    group = (sha.ToArray(), []);
                    groups.Add(key, group);
                }

                // No path: one of the machine's own files in a read of groups across machines.
                var path = reader.IsDBNull(7) ? ReadOnlyMemory<byte>.Empty : reader.GetFieldValue<byte[]>(7);
                group.Files.Add(new CatalogMatch(name, path, PostgresCatalog.ReadStamp(reader, 0)));
            }
        }

        await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
        if (orphans is not null)
        {
            LeaveOut(groups, touched!, machine, acrossMachinesOnly);
            foreach (var (orphan, rows) in orphans.OrderBy(entry => entry.Key))
            {
                skipped?.Invoke(OrphanMessage(orphan, rows));
            }
        }

        var sorted = new List<CatalogGroup>(groups.Count);
        foreach (var entry in groups.OrderByDescending(entry => entry.Key.Size).ThenBy(entry => entry.Key.High).ThenBy(entry => entry.Key.Low))
        {
            var files = entry.Value.Files;
            files.Sort(CatalogMatchOrder.Instance);
            sorted.Add(new CatalogGroup(entry.Key.Size, entry.Value.Sha, files));
        }

        return sorted;
    }

    /// <summary>
    /// Drops the groups that, without their rows of unnamed machines, no longer hold two distinct files (machine and
    /// identity), or, in a read across machines, no file of another machine.
    /// </summary>
    private static void LeaveOut(Dictionary<(long, UInt128, UInt128), (byte[] Sha, List<CatalogMatch> Files)> groups, HashSet<(long, UInt128, UInt128)> touched, string machine, bool acrossMachinesOnly)
    {
        foreach (var key in touched)
        {
            if (groups.TryGetValue(key, out var group)
                && (group.Files.Select(file => (file.Machine, file.Stamp.Identity)).Distinct().Count() < 2
                    || (acrossMachinesOnly && group.Files.TrueForAll(file => file.Machine == machine))))
            {
                groups.Remove(key);
            }
        }
    }

    private static string OrphanMessage(int id, long rows) =>
        $"The catalog's {rows} {(rows == 1 ? "row" : "rows")} of machine id {id} matching these files {(rows == 1 ? "was" : "were")} left out: "
        + CatalogOrphans.Advice(id);
}
