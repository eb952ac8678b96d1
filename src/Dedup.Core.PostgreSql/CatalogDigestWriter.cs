using Dedup.Core.Caching;
using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;
using Npgsql;
using static Dedup.Core.PostgreSql.PostgresCatalog;

namespace Dedup.Core.PostgreSql;

/// <summary>Stores a machine's digests inside a transaction that holds the machine's row.</summary>
internal static class CatalogDigestWriter
{
    /// <summary>
    /// Digests for files already in the catalog (a rescan, or <see cref="PostgresCatalog.RecordDigestsAsync"/>): only
    /// those whose stamp a file row of the machine has, each replacing the identity's stored one.
    /// </summary>
    public static async Task<long> RecordAsync(NpgsqlConnection connection, int id, IEnumerable<CatalogDigest> digests, CancellationToken token)
    {
        // One digest per identity (the first given wins), sorted by identity: the rows then go into the primary key
        // in its order.
        var unique = new Dictionary<FileIdentity, CatalogDigest>();
        foreach (CatalogDigest digest in digests)
        {
            ArgumentNullException.ThrowIfNull(digest, nameof(digests));
            unique.TryAdd(digest.Stamp.Identity, digest);
        }

        var sorted = unique.Values.ToArray();
        Array.Sort(sorted, static (a, b) => CopiedStamps.KeyOrder(a.Stamp.Identity, b.Stamp.Identity));

        // The hash of the stamp check spilled to disk under the default 4 MB (measured: 20 MB of temporary files at
        // 250k digests).
        await ExecuteAsync(connection, $"SET LOCAL work_mem = '64MB'; CREATE TEMP TABLE dedup_incoming ({FileColumnDefinitions}, sha256 bytea) ON COMMIT DROP", token).ConfigureAwait(false);
        var copy = await BinaryCopyWriter.BeginAsync(connection, $"COPY dedup_incoming ({FileColumns}, sha256) FROM STDIN (FORMAT BINARY)", token).ConfigureAwait(false);
        await using (copy.ConfigureAwait(false))
        {
            foreach (CatalogDigest digest in sorted)
            {
                await copy.StartRowAsync(6, CatalogWriter.StampBytes + CatalogWriter.FieldBytes(CatalogDigest.Sha256Length), token).ConfigureAwait(false);
                CatalogWriter.WriteStamp(copy, digest.Stamp);
                copy.WriteBytes(digest.Sha256.Span);
            }

            await copy.CompleteAsync(token).ConfigureAwait(false);
        }

        await ExecuteAsync(connection, "ANALYZE dedup_incoming", token).ConfigureAwait(false);
        // A digest given again for an identity replaces the stored one (only when the new one will be stored: its
        // stamp is a file row's): deleted, then inserted. Not INSERT … ON CONFLICT DO UPDATE: its speculative
        // insertion probed and locked the key of every row (measured at 250k digests under load ~11: 5.4 s against
        // 3.0 s for the plain insert).
        await ExecuteAsync(
            connection,
            $"""
            DELETE FROM dedup.digests d USING dedup_incoming i
            WHERE d.machine_id = $1 AND d.device = i.device AND d.inode = i.inode
              AND EXISTS (SELECT 1 FROM dedup.files f WHERE f.machine_id = $1 AND {SameStamp("f", "i")})
            """,
            token,
            id).ConfigureAwait(false);
        long recorded = await ExecuteAsync(
            connection,
            $"""
            INSERT INTO dedup.digests ({FileColumns}, machine_id, sha256)
            SELECT {Columns("i")}, $1, i.sha256
            FROM dedup_incoming i
            WHERE EXISTS (SELECT 1 FROM dedup.files f WHERE f.machine_id = $1 AND {SameStamp("f", "i")})
            """,
            token,
            id).ConfigureAwait(false);
        return recorded;
    }

    /// <summary>
    /// A machine's first scan: its digests copied straight into the catalog as they arrive (in batches, each sorted by
    /// the primary key), in the transaction that
    /// copied its files (<paramref name="stamps"/>, the stamps of those rows), after its digests were deleted. Only a
    /// digest whose stamp one of those rows has is kept, the first per identity, so no row can break the primary key
    /// and no stamp check on the server is needed.
    /// </summary>
    /// <remarks>
    /// Measured on a 250k-file first scan (#19 session 12): the temporary table, its ANALYZE and the
    /// <c>INSERT … SELECT</c> with its stamp check (a hash semi-join with the machine's file rows) took 1.7–3.5 s after
    /// the compare stage; a COPY fed while the compare runs leaves the server only the index inserts, beside it.
    /// </remarks>
    public static async Task<long> CopyAsync(NpgsqlConnection connection, int id, IAsyncEnumerable<CatalogDigest> digests, CopiedStamps stamps, CancellationToken token)
    {
        var copy = await BinaryCopyWriter.BeginAsync(connection, $"COPY dedup.digests ({PostgresCatalog.FileColumns}, machine_id, sha256) FROM STDIN (FORMAT BINARY)", token).ConfigureAwait(false);
        await using (copy.ConfigureAwait(false))
        {
            var batch = new List<CatalogDigest>();
            await foreach (CatalogDigest digest in digests.WithCancellation(token).ConfigureAwait(false))
            {
                ArgumentNullException.ThrowIfNull(digest, nameof(digests));
                if (!stamps.TryTake(digest.Stamp))
                {
                    continue;
                }

                batch.Add(digest);
                if (batch.Count == Batch)
                {
                    await WriteAsync(copy, id, batch, token).ConfigureAwait(false);
                }
            }

            await WriteAsync(copy, id, batch, token).ConfigureAwait(false);

            return (long)await copy.CompleteAsync(token).ConfigureAwait(false);
        }
    }

    // Digests arrive in compare order, random for the primary key (machine_id, device, inode); each batch goes in
    // sorted by it, so its inserts walk the index's pages in order. Measured in a 250k-digest first scan (#19 session
    // 14, server CPU of three alternated runs each): one at a time 2.35-2.48 s, batches of 8,192 1.95-2.29 s, of
    // 65,536 1.94-1.97 s; a batch still waiting when the digests end goes in after the compare, so batches stay small.
    private const int Batch = 8192;

    /// <summary>Writes the batch's rows in the primary key's order and empties it.</summary>
    private static async Task WriteAsync(BinaryCopyWriter copy, int id, List<CatalogDigest> batch, CancellationToken token)
    {
        batch.Sort(static (a, b) => CopiedStamps.KeyOrder(a.Stamp.Identity, b.Stamp.Identity));
        foreach (CatalogDigest digest in batch)
        {
            await copy.StartRowAsync(7, CatalogWriter.StampBytes + CatalogWriter.FieldBytes(sizeof(int)) + CatalogWriter.FieldBytes(CatalogDigest.Sha256Length), token).ConfigureAwait(false);
            CatalogWriter.WriteStamp(copy, digest.Stamp);
            copy.WriteInt32(id);
            copy.WriteBytes(digest.Sha256.Span);
        }

        batch.Clear();
    }
}
