using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;
using Npgsql;

namespace Dedup.Core.PostgreSql;

/// <summary>Writes a machine's scan: the first one straight into the catalog by COPY, later ones by difference.</summary>
internal static class CatalogWriter
{
    // A rescan: the new scan goes to a temporary staging table (no WAL), then only the rows that differ are deleted
    // and inserted. Measured at a million unchanged files: rewriting every row (delete all, COPY all) cost 10-17 s
    // and left a million dead rows for vacuum; most files of a rescan are unchanged. Rows with the machine's stored
    // fingerprint are not written at all (CatalogFingerprint): a collection of files is fingerprinted first, before
    // any is sent; other files are copied to the staging table, and the difference is skipped when they match.
    public static async Task<Replaced> ReplaceByDifferenceAsync(NpgsqlConnection connection, MachineRow machine, IEnumerable<CatalogFile> files, CancellationToken cancellationToken)
    {
        if (machine.Fingerprint is not null && files is IReadOnlyCollection<CatalogFile>)
        {
            var before = CatalogFingerprint.Of(files);
            if (before.Matches(machine.Fingerprint, machine.PreviousFiles))
            {
                return new Replaced((ulong)before.Rows, machine.Fingerprint, Changed: false);
            }
        }

        var id = machine.Id;
        // The two anti-joins below and the stale digests' (DropStaleDigestsAsync, which turns nested loops back on) hash
        // a machine's rows. Never a nested loop: right after a machine's first scan the statistics can still be those of
        // another machine's rows alone (autoanalyze had not run), the planner then expects no row of this machine and
        // scanned the whole staging table once per file row (seen in benchmarks/catalog/e2e.py: a rescan's DELETE
        // still running after 4 minutes). In memory: under the default 4 MB they spilled to disk in 8 batches
        // (measured at 250k unchanged files: 255 + 232 ms; in memory 204 + 193 ms). For this transaction only.
        await PostgresCatalog.ExecuteAsync(connection, "SET LOCAL work_mem = '128MB'; SET LOCAL enable_nestloop = off", cancellationToken).ConfigureAwait(false);
        await PostgresCatalog.ExecuteAsync(
            connection,
            $"CREATE TEMP TABLE dedup_staging ({PostgresCatalog.FileColumnDefinitions}, machine_id int, path bytea) ON COMMIT DROP",
            cancellationToken).ConfigureAwait(false);
        var sizes = new HashSet<long>();
        var fingerprint = new CatalogFingerprint();
        ulong rows = await CopyFilesAsync(connection, "dedup_staging", id, files, sizes, null, fingerprint, cancellationToken).ConfigureAwait(false);
        if (fingerprint.Matches(machine.Fingerprint, machine.PreviousFiles))
        {
            return new Replaced(rows, machine.Fingerprint!, Changed: false);
        }

        await PostgresCatalog.ExecuteAsync(connection, "ANALYZE dedup_staging", cancellationToken).ConfigureAwait(false);
        string same = $"s.path = f.path AND {PostgresCatalog.SameStamp("s", "f")}";
        // The stamps of the rows that go are kept for this transaction: only digests under one of them can turn stale
        // (PostgresCatalog.DropStaleDigestsAsync), not every digest of the machine.
        await PostgresCatalog.ExecuteAsync(
            connection,
            $"CREATE TEMP TABLE dedup_gone ({PostgresCatalog.FileColumnDefinitions}) ON COMMIT DROP",
            cancellationToken).ConfigureAwait(false);
        await PostgresCatalog.ExecuteAsync(
            connection,
            $"""
            WITH gone AS (
              DELETE FROM dedup.files f WHERE f.machine_id = $1 AND NOT EXISTS (SELECT 1 FROM dedup_staging s WHERE {same})
              RETURNING {PostgresCatalog.Columns("f")})
            INSERT INTO dedup_gone SELECT * FROM gone
            """,
            cancellationToken,
            id).ConfigureAwait(false);
        await PostgresCatalog.ExecuteAsync(
            connection,
            $"""
            INSERT INTO dedup.files ({PostgresCatalog.FileColumns}, machine_id, path)
            SELECT {PostgresCatalog.FileColumns}, machine_id, path FROM dedup_staging s
            WHERE NOT EXISTS (SELECT 1 FROM dedup.files f WHERE f.machine_id = $1 AND {same})
            """,
            cancellationToken,
            id).ConfigureAwait(false);
        await ReplaceSizesAsync(connection, id, sizes, cancellationToken).ConfigureAwait(false);
        return new Replaced(rows, fingerprint.ToArray(), Changed: true);
    }

    /// <summary>A machine's first scan: its rows copied straight into the catalog, and its sizes.</summary>
    public static async Task<Replaced> CopyFirstAsync(NpgsqlConnection connection, int id, IEnumerable<CatalogFile> files, CopiedStamps? stamps, CancellationToken cancellationToken)
    {
        var sizes = new HashSet<long>();
        var fingerprint = new CatalogFingerprint();
        ulong rows = await CopyFilesAsync(connection, "dedup.files", id, files, sizes, stamps, fingerprint, cancellationToken).ConfigureAwait(false);
        await ReplaceSizesAsync(connection, id, sizes, cancellationToken).ConfigureAwait(false);
        return new Replaced(rows, fingerprint.ToArray(), Changed: true);
    }

    /// <summary>Stores what a replacement made of the machine's row: its file count and its rows' fingerprint.</summary>
    public static Task FinishAsync(NpgsqlConnection connection, int id, Replaced replaced, CancellationToken cancellationToken) =>
        PostgresCatalog.ExecuteAsync(
            connection,
            "UPDATE dedup.machines SET scanned_at = now(), file_count = $2, rows_fingerprint = $3 WHERE id = $1",
            cancellationToken,
            id,
            (long)replaced.Rows,
            replaced.Fingerprint);

    /// <summary>
    /// Makes the machine's rows of <c>dedup.machine_sizes</c> its scan's distinct sizes: only the sizes that come or go
    /// are written (a rescan of an unchanged tree writes none).
    /// </summary>
    private static async Task ReplaceSizesAsync(NpgsqlConnection connection, int id, HashSet<long> sizes, CancellationToken cancellationToken)
    {
        // Sorted: the rows go into the (size, machine_id) key in its order.
        var sorted = sizes.ToArray();
        Array.Sort(sorted);
        await PostgresCatalog.ExecuteAsync(
            connection,
            """
            DELETE FROM dedup.machine_sizes m WHERE m.machine_id = $1
              AND NOT EXISTS (SELECT 1 FROM unnest($2::bigint[]) AS s(size) WHERE s.size = m.size)
            """,
            cancellationToken,
            id,
            sorted).ConfigureAwait(false);
        await PostgresCatalog.ExecuteAsync(
            connection,
            """
            INSERT INTO dedup.machine_sizes (size, machine_id)
            SELECT s.size, $1 FROM unnest($2::bigint[]) AS s(size)
            WHERE NOT EXISTS (SELECT 1 FROM dedup.machine_sizes m WHERE m.size = s.size AND m.machine_id = $1)
            """,
            cancellationToken,
            id,
            sorted).ConfigureAwait(false);
    }

    /// <summary>
    /// Copies the rows into <paramref name="table"/>; their distinct sizes are added to <paramref name="sizes"/>, their
    /// stamps to <paramref name="stamps"/> when given, and each row to <paramref name="fingerprint"/>.
    /// </summary>
    private static async Task<ulong> CopyFilesAsync(NpgsqlConnection connection, string table, int id, IEnumerable<CatalogFile> files, HashSet<long> sizes, CopiedStamps? stamps, CatalogFingerprint fingerprint, CancellationToken cancellationToken)
    {
        var copy = await BinaryCopyWriter.BeginAsync(
            connection, $"COPY {table} ({PostgresCatalog.FileColumns}, machine_id, path) FROM STDIN (FORMAT BINARY)", cancellationToken).ConfigureAwait(false);
        await using (copy.ConfigureAwait(false))
        {
            foreach (CatalogFile file in files)
            {
                ArgumentNullException.ThrowIfNull(file, nameof(files));
                await copy.StartRowAsync(7, StampBytes + FieldBytes(sizeof(int)) + FieldBytes(file.Path.Length), cancellationToken).ConfigureAwait(false);
                WriteStamp(copy, file.Stamp);
                sizes.Add(file.Stamp.Length);
                stamps?.Add(file.Stamp);
                fingerprint.Add(file);
                copy.WriteInt32(id);
                copy.WriteBytes(file.Path.Span);
            }

            return await copy.CompleteAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>The machine's row, made if new and locked until the transaction ends: a second scan of it waits.</summary>
    public static async Task<MachineRow> MachineRowAsync(NpgsqlConnection connection, string machine, CancellationToken cancellationToken)
    {
        await using var command = PostgresCatalog.Command(
            connection,
            "INSERT INTO dedup.machines (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET scanned_at = now() RETURNING id, file_count, rows_fingerprint",
            machine);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
        return new MachineRow(reader.GetInt32(0), reader.GetInt64(1), reader.IsDBNull(2) ? null : reader.GetFieldValue<byte[]>(2));
    }

    /// <summary>A machine's row as a replacement found it: its id, its previous scan's file count and rows' fingerprint (none: unknown).</summary>
    public readonly record struct MachineRow(int Id, long PreviousFiles, byte[]? Fingerprint);

    /// <summary>What a replacement stored: the rows, their fingerprint, and whether any row was written.</summary>
    public readonly record struct Replaced(ulong Rows, byte[] Fingerprint, bool Changed);

    /// <summary>The encoded length of the stamp's five <c>bigint</c> fields in a binary COPY row.</summary>
    public const int StampBytes = 5 * (sizeof(int) + sizeof(long));

    /// <summary>The encoded length of a field of <paramref name="length"/> bytes in a binary COPY row.</summary>
    public static int FieldBytes(int length) => sizeof(int) + length;

    public static void WriteStamp(BinaryCopyWriter copy, FileStamp stamp)
    {
        // Device and inode are unsigned 64-bit; bigint keeps their bits.
        copy.WriteInt64(stamp.Length);
        copy.WriteInt64(unchecked((long)stamp.Identity.Device));
        copy.WriteInt64(unchecked((long)stamp.Identity.FileId));
        copy.WriteInt64(stamp.LastWriteTimeNs);
        copy.WriteInt64(stamp.ChangeTimeNs);
    }
}
