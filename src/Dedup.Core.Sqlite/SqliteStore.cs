using System.Buffers.Binary;
using System.Globalization;
using Dedup.Core.Enumeration;
using Microsoft.Data.Sqlite;
using SQLitePCL;

namespace Dedup.Core.Caching.Sqlite;

/// <summary>
/// The SQL of <see cref="SqliteHashCache"/>. Schema 3: <c>chunks</c>, each row up to a few thousand entries sorted by
/// identity (device, inode) in one checksummed blob, the rows' identity ranges disjoint (<see cref="SqliteChunks"/>).
/// The rows sharing a class are a byte-verified group, each with the stamp it had when compared. <c>meta</c> holds the
/// format of the keys and the next unused partition/class id.
/// </summary>
internal static class SqliteStore
{
    private const string Schema = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS chunks(id INTEGER PRIMARY KEY, first_dev INTEGER NOT NULL, first_ino INTEGER NOT NULL,
            last_dev INTEGER NOT NULL, last_ino INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL);
        """;

    /// <summary>The page size of a new file, in bytes.</summary>
    internal const int PageSize = 65536;

    static SqliteStore()
    {
        // Explicitly, not through Microsoft.Data.Sqlite's reflection lookup, which trimming (NativeAOT) may remove.
        SQLitePCL.Batteries_V2.Init();
    }

    /// <summary>Every entry of the file, and how many chunks were damaged (skipped: their files are read again).</summary>
    public static HashCacheEntry[] Read(SqliteHashCache cache, HashCacheScope scope, bool readOnly, out int damaged, CancellationToken cancellationToken)
    {
        damaged = 0;
        using var connection = Open(cache, readOnly);
        if (!EnsureSchema(connection, readOnly))
        {
            return [];
        }

        // One read transaction, so the format, the count and the rows agree while another process writes (the format
        // read before it let a save of another format, between the two, have its chunks read as this format's).
        var transaction = connection.BeginTransaction(deferred: true);
        if (GetMeta(connection, transaction, "format") != scope.Format)
        {
            transaction.Dispose();
            return []; // written by another version of the keys: none of it applies (the next save clears it)
        }

        // The counts size the array exactly; the blobs' lengths bound it, so a damaged count cannot ask for more.
        var capacity = Convert.ToInt64(Scalar(connection, $"SELECT min(coalesce(sum(count), 0), coalesce(sum(length(data)), 0) / {SqliteChunks.FixedSize}) FROM chunks", transaction), CultureInfo.InvariantCulture);
        var entries = new HashCacheEntry[(int)Math.Max(0, Math.Min(capacity, int.MaxValue / 128))];
        var count = 0;

        // SQLitePCL directly: a few dozen blobs, each decoded in place (its digests in one array per chunk).
        var db = connection.Handle!;
        var damagedIds = new List<long>();
        using (transaction)
        {
            using var statement = Prepare(db, "SELECT id, data FROM chunks");
            int rc;
            while ((rc = raw.sqlite3_step(statement)) == raw.SQLITE_ROW)
            {
                cancellationToken.ThrowIfCancellationRequested();
                if (!SqliteChunks.TryDecode(raw.sqlite3_column_blob(statement, 1), ref entries, ref count))
                {
                    damagedIds.Add(raw.sqlite3_column_int64(statement, 0)); // a damaged chunk is skipped, never believed
                }
            }

            if (rc != raw.SQLITE_DONE)
            {
                SqliteException.ThrowExceptionForRC(rc, db);
            }
        }

        damaged = damagedIds.Count;
        if (!readOnly && damaged != 0)
        {
            DropDamaged(connection, damagedIds);
        }

        Array.Resize(ref entries, count);
        return entries;
    }

    /// <summary>
    /// Deletes the chunks a load found damaged, each only if it is still damaged (another process may have rewritten
    /// that row since): its files are read again by this scan, and a save would touch it only when a change fell in its
    /// range, so a chunk whose files are gone would stay, warned of by every scan and never pruned. Best effort: a
    /// locked or read-only file keeps it for the next load.
    /// </summary>
    private static void DropDamaged(SqliteConnection connection, List<long> ids)
    {
        try
        {
            using var transaction = connection.BeginTransaction(deferred: false);
            var db = connection.Handle!;
            using var select = Prepare(db, "SELECT data FROM chunks WHERE id = ?1");
            using var delete = Prepare(db, "DELETE FROM chunks WHERE id = ?1");
            foreach (var id in ids)
            {
                raw.sqlite3_bind_int64(select, 1, id);
                var rc = raw.sqlite3_step(select);
                var stillDamaged = rc == raw.SQLITE_ROW && !SqliteChunks.IsIntact(raw.sqlite3_column_blob(select, 0));
                raw.sqlite3_reset(select);
                if (rc is not (raw.SQLITE_ROW or raw.SQLITE_DONE))
                {
                    SqliteException.ThrowExceptionForRC(rc, db);
                }

                if (stillDamaged)
                {
                    raw.sqlite3_bind_int64(delete, 1, id);
                    Step(db, delete);
                }
            }

            transaction.Commit();
        }
        catch (SqliteException)
        {
            // Busy, locked or read-only: the damaged chunk is skipped again next time.
        }
    }

    public static void Write(SqliteHashCache cache, HashCacheScope scope, SqliteChunks.Entries upserts, IReadOnlyList<FileIdentity> removals, CancellationToken cancellationToken)
    {
        using var connection = Open(cache);
        EnsureSchema(connection);
        using var transaction = connection.BeginTransaction(deferred: false); // BEGIN IMMEDIATE: one writer at a time
        if (GetMeta(connection, transaction, "format") != scope.Format)
        {
            Execute(connection, transaction, "DELETE FROM chunks");
            SetMeta(connection, transaction, "format", scope.Format);
        }

        var ids = new SqliteIdMap(long.Parse(GetMeta(connection, transaction, "next_id") ?? "1", CultureInfo.InvariantCulture));
        cancellationToken.ThrowIfCancellationRequested();
        SqliteChunks.Save(connection.Handle!, upserts, removals, ref ids);
        SetMeta(connection, transaction, "next_id", ids.Next.ToString(CultureInfo.InvariantCulture));
        cancellationToken.ThrowIfCancellationRequested();
        transaction.Commit();
    }

    internal static sqlite3_stmt Prepare(sqlite3 db, string sql)
    {
        var rc = raw.sqlite3_prepare_v2(db, sql, out var statement);
        if (rc == raw.SQLITE_OK && statement is not null)
        {
            return statement;
        }

        statement?.Dispose();
        SqliteException.ThrowExceptionForRC(rc, db);
        throw new InvalidOperationException("unreachable: ThrowExceptionForRC throws for an error code");
    }

    /// <summary>Runs a statement that returns no rows, then resets it for the next bindings.</summary>
    internal static void Step(sqlite3 db, sqlite3_stmt statement)
    {
        var rc = raw.sqlite3_step(statement);
        raw.sqlite3_reset(statement);
        if (rc != raw.SQLITE_DONE)
        {
            SqliteException.ThrowExceptionForRC(rc, db);
        }
    }

    /// <summary>SQLITE_CORRUPT or SQLITE_NOTADB: the file's content is damaged.</summary>
    public static bool IsCorrupt(SqliteException ex) => ex.SqliteErrorCode is 11 or 26;

    /// <summary>Whether the file's header says it is a SQLite database this library made (application id "DDUP").</summary>
    public static bool IsOurs(string path)
    {
        try
        {
            using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            var header = new byte[100];
            var read = 0;
            while (read < header.Length)
            {
                var n = stream.Read(header, read, header.Length - read);
                if (n == 0)
                {
                    return false;
                }

                read += n;
            }

            return header.AsSpan(0, 16).SequenceEqual("SQLite format 3\0"u8)
                && BinaryPrimitives.ReadInt32BigEndian(header.AsSpan(68)) == SqliteHashCache.ApplicationId;
        }
        catch (IOException)
        {
            return false;
        }
    }

    /// <summary>Removes a damaged cache file with its WAL and shared-memory files.</summary>
    public static void Delete(string path)
    {
        SqliteConnection.ClearAllPools();
        foreach (var file in new[] { path, path + "-wal", path + "-shm" })
        {
            File.Delete(file);
        }
    }

    /// <summary>The busy timeout, never negative.</summary>
    internal static TimeSpan Timeout(SqliteHashCache cache) => cache.BusyTimeout < TimeSpan.Zero ? TimeSpan.Zero : cache.BusyTimeout;

    internal static SqliteConnection Open(SqliteHashCache cache, bool readOnly = false)
    {
        var timeout = Timeout(cache);
        var builder = new SqliteConnectionStringBuilder
        {
            // Read-only: as an immutable file (no -shm to create); a WAL left by a crashed writer is not read, so the
            // rows seen are older, and each is still true of the stamp it names.
            DataSource = readOnly ? new Uri(cache.Path).AbsoluteUri + "?immutable=1" : cache.Path,
            Mode = readOnly ? SqliteOpenMode.ReadOnly : SqliteOpenMode.ReadWriteCreate,
            Pooling = false, // nothing stays open between scans
            DefaultTimeout = Math.Max(1, (int)Math.Ceiling(timeout.TotalSeconds)),
        };
        var connection = new SqliteConnection(builder.ToString());
        try
        {
            connection.Open();
            Execute(connection, null, $"PRAGMA busy_timeout = {(long)timeout.TotalMilliseconds}; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -16384");
            return connection;
        }
        catch
        {
            connection.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Creates the schema in a new file, and replaces an older schema of ours (it is only a cache); refuses a newer
    /// schema or another application's database. <see langword="false"/> when an older schema could not be replaced
    /// because the file is read-only: nothing in it applies.
    /// </summary>
    internal static bool EnsureSchema(SqliteConnection connection, bool readOnly = false)
    {
        // One read transaction, so the three are one snapshot: read one by one, a file another process was creating the
        // schema in could show its tables but not yet its version, and look like another application's database.
        long version, application, tables;
        using (var read = connection.BeginTransaction(deferred: true))
        {
            version = Convert.ToInt64(Scalar(connection, "PRAGMA user_version", read), CultureInfo.InvariantCulture);
            application = Convert.ToInt64(Scalar(connection, "PRAGMA application_id", read), CultureInfo.InvariantCulture);
            tables = Convert.ToInt64(Scalar(connection, "SELECT count(*) FROM sqlite_master", read), CultureInfo.InvariantCulture);
            read.Commit();
        }

        if (version > SqliteHashCache.SchemaVersion)
        {
            throw new HashCacheFileException($"its schema version {version} is newer than this version's ({SqliteHashCache.SchemaVersion}); left untouched");
        }

        if (version == SqliteHashCache.SchemaVersion && application == SqliteHashCache.ApplicationId)
        {
            return true;
        }

        var ours = version > 0 && application == SqliteHashCache.ApplicationId;
        if (!ours && (version != 0 || application != 0 || tables != 0))
        {
            throw new HashCacheFileException("it is not a dedup cache (another application's database?); left untouched");
        }

        if (readOnly)
        {
            return false;
        }

        // A new file, or an older schema of ours (its rows are dropped). WAL lets scans read while another writes; the
        // mode stays with the file. A new file gets 64 KiB pages: SQLite writes a WAL frame and a checkpointed page
        // with a pwrite each, and at 4 KiB a first run's 20 MB of chunks took ~19k pwrite calls (strace), most of the
        // system time the save added; an older file keeps its page size (changing it in WAL mode needs a VACUUM).
        if (tables == 0)
        {
            Execute(connection, null, $"PRAGMA page_size = {PageSize}");
        }

        Execute(connection, null, "PRAGMA journal_mode = WAL");
        using var transaction = connection.BeginTransaction(deferred: false);
        if (Convert.ToInt64(Scalar(connection, "PRAGMA user_version", transaction), CultureInfo.InvariantCulture) < SqliteHashCache.SchemaVersion)
        {
            Execute(connection, transaction, "DROP TABLE IF EXISTS files"); // schemas 1 and 2: one row per file; meta (next_id) stays
            Execute(connection, transaction, Schema);
            Execute(connection, transaction, $"PRAGMA application_id = {SqliteHashCache.ApplicationId}; PRAGMA user_version = {SqliteHashCache.SchemaVersion}");
        }

        transaction.Commit();
        return true;
    }

    internal static string? GetMeta(SqliteConnection connection, SqliteTransaction? transaction, string key)
    {
        using var command = connection.CreateCommand();
        command.Transaction = transaction;
        command.CommandText = "SELECT value FROM meta WHERE key = $key";
        command.Parameters.AddWithValue("$key", key);
        return command.ExecuteScalar() as string;
    }

    internal static void SetMeta(SqliteConnection connection, SqliteTransaction? transaction, string key, string value)
    {
        using var command = connection.CreateCommand();
        command.Transaction = transaction;
        command.CommandText = "INSERT OR REPLACE INTO meta(key, value) VALUES ($key, $value)";
        command.Parameters.AddWithValue("$key", key);
        command.Parameters.AddWithValue("$value", value);
        command.ExecuteNonQuery();
    }

    private static object? Scalar(SqliteConnection connection, string sql, SqliteTransaction? transaction = null)
    {
        using var command = connection.CreateCommand();
        command.Transaction = transaction;
        command.CommandText = sql;
        return command.ExecuteScalar();
    }

    internal static void Execute(SqliteConnection connection, SqliteTransaction? transaction, string sql)
    {
        using var command = connection.CreateCommand();
        command.Transaction = transaction;
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }
}
