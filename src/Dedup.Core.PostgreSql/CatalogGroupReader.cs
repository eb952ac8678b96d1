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
    // nested loop over it (measured: over 15 minutes at a million digests; this form 8-19 s).
    private static readonly string AllSql = Sql(acrossMachinesOnly: false);
    private static readonly string AcrossSql = Sql(acrossMachinesOnly: true);

    // others: the group's files on other machines; a scan asks only for the groups that have some (its local ones
    // are byte-verified by the scan itself), which spares reading the paths of every local group.
    private static string Sql(bool acrossMachinesOnly) => $"""
        WITH me AS (SELECT id FROM dedup.machines WHERE name = $1),
        mine AS (SELECT DISTINCT d.size, d.sha256 FROM dedup.digests d, me WHERE d.machine_id = me.id),
        -- A digest row is one identity (machine, device, inode): two rows are two files, not two names of one.
        candidates AS (
          SELECT g.*, count(*) OVER w AS files, count(*) FILTER (WHERE g.machine_id <> me.id) OVER w AS others
          FROM mine JOIN dedup.digests g ON g.size = mine.size AND g.sha256 = mine.sha256 CROSS JOIN me
          WINDOW w AS (PARTITION BY g.size, g.sha256))
        SELECT {PostgresCatalog.Columns("o")}, c.sha256, m.name, o.path
        FROM candidates c
        JOIN dedup.files o ON o.machine_id = c.machine_id AND {PostgresCatalog.SameStamp("o", "c")}
        JOIN dedup.machines m ON m.id = o.machine_id
        WHERE c.files > 1{(acrossMachinesOnly ? " AND c.others > 0" : string.Empty)}
        """;

    public static async Task<IReadOnlyList<CatalogGroup>> ReadAsync(NpgsqlConnection connection, string machine, bool acrossMachinesOnly, CancellationToken cancellationToken)
    {
        // Keyed by size and the digest's two big-endian halves: no string or array per row, and the halves compare
        // as the bytes do. A digest's bytes are copied out only for a group's first row.
        var groups = new Dictionary<(long Size, UInt128 High, UInt128 Low), (byte[] Sha, List<CatalogMatch> Files)>();
        byte[] sha = new byte[CatalogDigest.Sha256Length];
        await using var command = PostgresCatalog.Command(connection, acrossMachinesOnly ? AcrossSql : AllSql, machine);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            reader.GetBytes(5, 0, sha, 0, sha.Length);
            var key = (reader.GetInt64(0), BinaryPrimitives.ReadUInt128BigEndian(sha), BinaryPrimitives.ReadUInt128BigEndian(sha.AsSpan(16)));
            if (!groups.TryGetValue(key, out var group))
            {
                group = (sha.ToArray(), []);
                groups.Add(key, group);
            }

            group.Files.Add(new CatalogMatch(reader.GetString(6), reader.GetFieldValue<byte[]>(7), PostgresCatalog.ReadStamp(reader, 0)));
        }

        return groups
            .OrderByDescending(entry => entry.Key.Size).ThenBy(entry => entry.Key.High).ThenBy(entry => entry.Key.Low)
            .Select(entry => new CatalogGroup(entry.Key.Size, entry.Value.Sha, entry.Value.Files.OrderBy(file => file, MatchOrder.Instance).ToList()))
            .ToList();
    }

    /// <summary>By machine name (ordinal), then path bytes.</summary>
    private sealed class MatchOrder : IComparer<CatalogMatch>
    {
        public static readonly MatchOrder Instance = new();

        public int Compare(CatalogMatch? x, CatalogMatch? y)
        {
            int byMachine = string.CompareOrdinal(x!.Machine, y!.Machine);
            return byMachine != 0 ? byMachine : x.Path.Span.SequenceCompareTo(y.Path.Span);
        }
    }
}
