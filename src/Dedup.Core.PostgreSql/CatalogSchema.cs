using Npgsql;

namespace Dedup.Core.PostgreSql;

/// <summary>
/// The catalog's tables, created and upgraded in numbered steps. Each step runs once, in order, inside one
/// transaction under an advisory lock, so clients starting together on an empty database do not race.
/// </summary>
internal static class CatalogSchema
{
    public const string Name = "dedup";

    // Any fixed number: the advisory lock that serialises migrations across clients.
    private const long MigrationLock = 0x6465_6475_7031_39;

    /// <summary>Step N (1-based) brings the schema from version N-1 to N. Never edit a shipped step; add one.</summary>
    private static readonly string[] Steps =
    [
        // 1: machines, files, digests. Digests live in their own table keyed by machine and identity, not on the file
        // rows: a rescan rewrites a machine's files without touching the digests of unchanged ones (they match by
        // stamp), and recording digests inserts rows instead of updating indexed ones. No foreign keys to machines:
        // their per-row check would slow the bulk COPY, and only this library writes the rows.
        """
        CREATE TABLE dedup.machines (
            id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            name text NOT NULL UNIQUE,
            scanned_at timestamptz NOT NULL DEFAULT now(),
            file_count bigint NOT NULL DEFAULT 0
        );
        -- Fixed-width columns first: no alignment padding between them.
        CREATE TABLE dedup.files (
            size bigint NOT NULL,
            device bigint NOT NULL,
            inode bigint NOT NULL,
            mtime_ns bigint NOT NULL,
            ctime_ns bigint NOT NULL,
            machine_id int NOT NULL,
            path bytea NOT NULL
        );
        -- A machine's rows: the rescan's delete, and the join from a digest to its files.
        CREATE INDEX files_machine ON dedup.files (machine_id, device, inode);
        -- Which sizes other machines hold.
        CREATE INDEX files_size ON dedup.files (size, machine_id);
        -- One digest per file (identity) of a machine, valid while the file's stamp is the one stored here.
        CREATE TABLE dedup.digests (
            size bigint NOT NULL,
            device bigint NOT NULL,
            inode bigint NOT NULL,
            mtime_ns bigint NOT NULL,
            ctime_ns bigint NOT NULL,
            machine_id int NOT NULL,
            sha256 bytea NOT NULL CHECK (octet_length(sha256) = 32),
            PRIMARY KEY (machine_id, device, inode)
        );
        -- Groups: digests by size and content.
        CREATE INDEX digests_content ON dedup.digests (size, sha256);
        """,
        // 2: no content index. The group reads join the digests by hash (CatalogGroupReader: no nested loops), never
        // through it (EXPLAIN at 2 × 250k digests); its random inserts were ~0.9 s of the server's CPU in a 250k-digest
        // first scan, about half the digests' COPY (#19 session 13).
        """
        DROP INDEX IF EXISTS dedup.digests_content;
        """,
        // 3: which sizes each machine holds, one row per (size, machine), in place of the files_size index. A scan asks
        // only which sizes other machines hold; a machine has far fewer distinct sizes than files, so its sizes are
        // written once per scan from the client's set, while files_size took every file row at a random place (~0.6 s
        // of the server's CPU in a 250k-file first scan, #19 session 13). The machine index serves the rescan's
        // difference and a machine's deletion.
        """
        CREATE TABLE dedup.machine_sizes (
            size bigint NOT NULL,
            machine_id int NOT NULL,
            PRIMARY KEY (size, machine_id)
        );
        CREATE INDEX machine_sizes_machine ON dedup.machine_sizes (machine_id);
        INSERT INTO dedup.machine_sizes (size, machine_id) SELECT DISTINCT size, machine_id FROM dedup.files ORDER BY 1, 2;
        DROP INDEX IF EXISTS dedup.files_size;
        """,
        // 4: partial results (#40). A machine's scan marks the sizes it left without a digest (a size only one of its
        // files had, which no other machine held); a later scan of another machine holding such a size records a request
        // (the two files may be equal) and says its result is partial; the asked machine's next scan hashes those files
        // (a unique size another machine holds) and drops the requests it fulfilled. Existing rows are marked digested:
        // unknown until their machine scans again. ADD COLUMN with a constant default rewrites no row.
        """
        ALTER TABLE dedup.machine_sizes ADD COLUMN IF NOT EXISTS digested boolean NOT NULL DEFAULT true;
        CREATE TABLE IF NOT EXISTS dedup.digest_requests (
            machine_id int NOT NULL,
            size bigint NOT NULL,
            requested_by int NOT NULL,
            requested_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (machine_id, size, requested_by)
        );
        CREATE INDEX IF NOT EXISTS digest_requests_by ON dedup.digest_requests (requested_by);
        """,
        // 5: a machine's rows as one fingerprint (#40, CatalogFingerprint), written with them: a rescan whose rows have it
        // writes none. NULL until the machine's next scan (rows written before this step): that scan writes by difference.
        """
        ALTER TABLE dedup.machines ADD COLUMN IF NOT EXISTS rows_fingerprint bytea CHECK (octet_length(rows_fingerprint) = 32);
        """,
    ];

    /// <summary>The version this library writes.</summary>
    public static int LatestVersion => Steps.Length;

    /// <summary>Brings the schema to <see cref="LatestVersion"/>; returns the version found before.</summary>
    public static async Task<int> MigrateAsync(NpgsqlConnection connection, CancellationToken cancellationToken)
    {
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken).ConfigureAwait(false);
        await PostgresCatalog.ExecuteAsync(connection, "SELECT pg_advisory_xact_lock($1)", cancellationToken, MigrationLock).ConfigureAwait(false);
        await PostgresCatalog.ExecuteAsync(
            connection,
            """
            CREATE SCHEMA IF NOT EXISTS dedup;
            CREATE TABLE IF NOT EXISTS dedup.schema_version (
                version int PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            );
            """,
            cancellationToken).ConfigureAwait(false);

        int found = await PostgresCatalog.ScalarAsync<int>(connection, "SELECT coalesce(max(version), 0) FROM dedup.schema_version", cancellationToken).ConfigureAwait(false);

        if (found > LatestVersion)
        {
            throw new CatalogSchemaTooNewException(found, LatestVersion);
        }

        for (int version = found + 1; version <= LatestVersion; version++)
        {
            await PostgresCatalog.ExecuteAsync(connection, Steps[version - 1], cancellationToken).ConfigureAwait(false);
            await PostgresCatalog.ExecuteAsync(connection, "INSERT INTO dedup.schema_version (version) VALUES ($1)", cancellationToken, version).ConfigureAwait(false);
        }

        await transaction.CommitAsync(cancellationToken).ConfigureAwait(false);
        return found;
    }
}

/// <summary>Raised inside the catalog and turned into a <see cref="CatalogException"/> with the server's names.</summary>
internal sealed class CatalogSchemaTooNewException(int found, int latest)
    : Exception($"The catalog's schema is version {found}, newer than this library's {latest}; upgrade Dedup.Core.PostgreSql.")
{
    public int Found { get; } = found;
}
