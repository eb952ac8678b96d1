using Npgsql;

namespace Dedup.Core.PostgreSql;

/// <summary>Reads the cross-machine groups of one machine: rows sorted by group, cut into groups client-side.</summary>
internal static class CatalogGroupReader
{
    private const string Sql = """
        WITH me AS (SELECT id FROM dedup.machines WHERE name = $1),
        mine AS (SELECT DISTINCT d.size, d.sha256 FROM dedup.digests d, me WHERE d.machine_id = me.id)
        SELECT o.size, o.device, o.inode, o.mtime_ns, o.ctime_ns, g.sha256, m.name, o.path, o.machine_id
        FROM mine
        JOIN dedup.digests g ON g.size = mine.size AND g.sha256 = mine.sha256
        JOIN dedup.files o ON o.machine_id = g.machine_id AND o.device = g.device AND o.inode = g.inode
          AND o.size = g.size AND o.mtime_ns = g.mtime_ns AND o.ctime_ns = g.ctime_ns
        JOIN dedup.machines m ON m.id = o.machine_id
        ORDER BY o.size DESC, g.sha256, m.name COLLATE "C", o.path
        """;

    public static async Task<IReadOnlyList<CatalogGroup>> ReadAsync(NpgsqlConnection connection, string machine, CancellationToken cancellationToken)
    {
        var groups = new List<CatalogGroup>();
        await using var command = PostgresCatalog.Command(connection, Sql, machine);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        byte[]? sha = null;
        long size = -1;
        var files = new List<CatalogMatch>();
        var identities = new HashSet<(int Machine, long Device, long Inode)>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            long rowSize = reader.GetInt64(0);
            byte[] rowSha = reader.GetFieldValue<byte[]>(5);
            if (sha is null || rowSize != size || !rowSha.AsSpan().SequenceEqual(sha))
            {
                Flush(groups, size, sha, files, identities);
                files = [];
                size = rowSize;
                sha = rowSha;
            }

            identities.Add((reader.GetInt32(8), reader.GetInt64(1), reader.GetInt64(2)));
            files.Add(new CatalogMatch(reader.GetString(6), reader.GetFieldValue<byte[]>(7), PostgresCatalog.ReadStamp(reader, 0)));
        }

        Flush(groups, size, sha, files, identities);
        return groups;
    }

    private static void Flush(List<CatalogGroup> groups, long size, byte[]? sha, List<CatalogMatch> files, HashSet<(int, long, long)> identities)
    {
        // Names of one file (hard links) alone are not duplicates.
        if (sha is not null && identities.Count > 1)
        {
            groups.Add(new CatalogGroup(size, sha, files));
        }

        identities.Clear();
    }
}
