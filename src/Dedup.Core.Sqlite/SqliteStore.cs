using System.Buffers.Binary;
using System.Globalization;
using System.IO.Hashing;
using Dedup.Core.Comparison;
using Dedup.Core.Enumeration;
using Microsoft.Data.Sqlite;
using SQLitePCL;

namespace Dedup.Core.Caching.Sqlite;

/// <summary>
/// The SQL of <see cref="SqliteHashCache"/>. Schema 1: <c>files</c>, one row per identity (device, inode) with the
/// stamp it was read under, the probe key, partition and class (the byte-verified groups: the rows sharing a class are
/// the members, each with the stamp it had when compared), the roots key of the scan that wrote it, an optional
/// whole-content digest, and a checksum of the row so that a damaged row is skipped rather than believed; <c>meta</c>
/// holds the format of the keys and the next unused partition/class id.
/// </summary>
internal static class SqliteStore
{
    private const string Schema = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS files(
            dev INTEGER NOT NULL, ino INTEGER NOT NULL,
            size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
            probe INTEGER NOT NULL, part INTEGER NOT NULL, class INTEGER NOT NULL, roots INTEGER NOT NULL,
            digest_alg INTEGER NOT NULL, digest BLOB, checksum INTEGER NOT NULL,
            PRIMARY KEY (dev, ino)) WITHOUT ROWID;
        """;

    static SqliteStore()
    {
        // Explicitly, not through Microsoft.Data.Sqlite's reflection lookup, which trimming (NativeAOT) may remove.
        SQLitePCL.Batteries_V2.Init();
    }

    public static HashCacheEntry[] Read(SqliteHashCache cache, HashCacheScope scope, bool readOnly, CancellationToken cancellationToken)
    {
        using var connection = Open(cache, readOnly);
        EnsureSchema(connection);
        if (GetMeta(connection, null, "format") != scope.Format)
        {
            return []; // written by another version of the keys: none of it applies (the next save clears it)
        }

        // One read transaction, so the count and the rows agree while another process writes.
        using var transaction = connection.BeginTransaction(deferred: true);
        var capacity = Convert.ToInt32(Scalar(connection, "SELECT count(*) FROM files", transaction), CultureInfo.InvariantCulture);
        var entries = new HashCacheEntry[capacity];
        var count = 0;

        // SQLitePCL directly: Microsoft.Data.Sqlite's per-value overhead is most of the time at 250,000 rows.
        var db = connection.Handle!;
        using var statement = Prepare(db, "SELECT dev, ino, size, mtime_ns, ctime_ns, probe, part, class, roots, digest_alg, digest, checksum FROM files");
        int rc;
        while ((rc = raw.sqlite3_step(statement)) == raw.SQLITE_ROW && count < capacity)
        {
            if ((count & 0xFFF) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            var identity = new FileIdentity((ulong)raw.sqlite3_column_int64(statement, 0), (ulong)raw.sqlite3_column_int64(statement, 1));
            var stamp = new FileStamp(identity, raw.sqlite3_column_int64(statement, 2), raw.sqlite3_column_int64(statement, 3), raw.sqlite3_column_int64(statement, 4));
            var entry = new HashCacheEntry(stamp, (ulong)raw.sqlite3_column_int64(statement, 5), raw.sqlite3_column_int64(statement, 6), raw.sqlite3_column_int64(statement, 7), raw.sqlite3_column_int64(statement, 8));
            if (raw.sqlite3_column_type(statement, 10) == raw.SQLITE_BLOB)
            {
                entry = entry with
                {
                    DigestAlgorithm = (DuplicateHashAlgorithm)raw.sqlite3_column_int64(statement, 9),
                    Digest = raw.sqlite3_column_blob(statement, 10).ToArray(),
                };
            }

            if (Checksum(entry) == raw.sqlite3_column_int64(statement, 11))
            {
                entries[count++] = entry; // a damaged row is skipped, never believed
            }
        }

        if (rc is not (raw.SQLITE_ROW or raw.SQLITE_DONE))
        {
            SqliteException.ThrowExceptionForRC(rc, db);
        }

        Array.Resize(ref entries, count);
        return entries;
    }

    public static void Write(SqliteHashCache cache, HashCacheScope scope, HashCacheChanges changes, CancellationToken cancellationToken)
    {
        using var connection = Open(cache);
        EnsureSchema(connection);
        using var transaction = connection.BeginTransaction(deferred: false); // BEGIN IMMEDIATE: one writer at a time
        if (GetMeta(connection, transaction, "format") != scope.Format)
        {
            Execute(connection, transaction, "DELETE FROM files");
            SetMeta(connection, transaction, "format", scope.Format);
        }

        var nextId = long.Parse(GetMeta(connection, transaction, "next_id") ?? "1", CultureInfo.InvariantCulture);
        var ids = new Dictionary<long, long>();
        long Map(long id)
        {
            if (id >= 0)
            {
                return id;
            }

            if (!ids.TryGetValue(id, out var mapped))
            {
                ids[id] = mapped = nextId++;
            }

            return mapped;
        }

        var db = connection.Handle!;
        using (var delete = Prepare(db, "DELETE FROM files WHERE dev = ?1 AND ino = ?2"))
        {
            foreach (var identity in changes.Removals)
            {
                raw.sqlite3_bind_int64(delete, 1, (long)identity.Device);
                raw.sqlite3_bind_int64(delete, 2, (long)identity.FileId);
                Step(db, delete);
            }
        }

        cancellationToken.ThrowIfCancellationRequested();

        // In key order: the rows are appended to the b-tree rather than inserted all over it.
        var upserts = changes.Upserts.ToArray();
        Array.Sort(upserts, static (a, b) =>
        {
            var byDevice = ((long)a.Stamp.Identity.Device).CompareTo((long)b.Stamp.Identity.Device);
            return byDevice != 0 ? byDevice : ((long)a.Stamp.Identity.FileId).CompareTo((long)b.Stamp.Identity.FileId);
        });
        using (var insert = Prepare(db, """
            INSERT OR REPLACE INTO files(dev, ino, size, mtime_ns, ctime_ns, probe, part, class, roots, digest_alg, digest, checksum)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
            """))
        {
            foreach (var upsert in upserts)
            {
                var entry = upsert with { Partition = Map(upsert.Partition), Class = Map(upsert.Class) };
                var stamp = entry.Stamp;
                raw.sqlite3_bind_int64(insert, 1, (long)stamp.Identity.Device);
                raw.sqlite3_bind_int64(insert, 2, (long)stamp.Identity.FileId);
                raw.sqlite3_bind_int64(insert, 3, stamp.Length);
                raw.sqlite3_bind_int64(insert, 4, stamp.LastWriteTimeNs);
                raw.sqlite3_bind_int64(insert, 5, stamp.ChangeTimeNs);
                raw.sqlite3_bind_int64(insert, 6, (long)entry.Probe);
                raw.sqlite3_bind_int64(insert, 7, entry.Partition);
                raw.sqlite3_bind_int64(insert, 8, entry.Class);
                raw.sqlite3_bind_int64(insert, 9, entry.Roots);
                raw.sqlite3_bind_int64(insert, 10, entry.Digest.IsEmpty ? 0 : (long)entry.DigestAlgorithm);
                if (entry.Digest.IsEmpty)
                {
                    raw.sqlite3_bind_null(insert, 11);
                }
                else
                {
                    raw.sqlite3_bind_blob(insert, 11, entry.Digest.Span);
                }

                raw.sqlite3_bind_int64(insert, 12, Checksum(entry));
                Step(db, insert);
            }
        }

        SetMeta(connection, transaction, "next_id", nextId.ToString(CultureInfo.InvariantCulture));
        cancellationToken.ThrowIfCancellationRequested();
        transaction.Commit();
    }

    private static sqlite3_stmt Prepare(sqlite3 db, string sql)
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
    private static void Step(sqlite3 db, sqlite3_stmt statement)
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

    private static SqliteConnection Open(SqliteHashCache cache, bool readOnly = false)
    {
        var timeout = cache.BusyTimeout < TimeSpan.Zero ? TimeSpan.Zero : cache.BusyTimeout;
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

    /// <summary>Creates the schema in a new file; refuses a newer schema or another application's database.</summary>
    private static void EnsureSchema(SqliteConnection connection)
    {
        var version = Convert.ToInt64(Scalar(connection, "PRAGMA user_version"), CultureInfo.InvariantCulture);
        var application = Convert.ToInt64(Scalar(connection, "PRAGMA application_id"), CultureInfo.InvariantCulture);
        if (version > SqliteHashCache.SchemaVersion)
        {
            throw new HashCacheFileException($"its schema version {version} is newer than this version's ({SqliteHashCache.SchemaVersion}); left untouched");
        }

        if (version == SqliteHashCache.SchemaVersion && application == SqliteHashCache.ApplicationId)
        {
            return;
        }

        var tables = Convert.ToInt64(Scalar(connection, "SELECT count(*) FROM sqlite_master"), CultureInfo.InvariantCulture);
        if (version != 0 || application != 0 || tables != 0)
        {
            throw new HashCacheFileException("it is not a dedup cache (another application's database?); left untouched");
        }

        // A new file. WAL lets scans read while another writes; the mode stays with the file.
        Execute(connection, null, "PRAGMA journal_mode = WAL");
        using var transaction = connection.BeginTransaction(deferred: false);
        if (Convert.ToInt64(Scalar(connection, "PRAGMA user_version", transaction), CultureInfo.InvariantCulture) == 0)
        {
            Execute(connection, transaction, Schema);
            Execute(connection, transaction, $"PRAGMA application_id = {SqliteHashCache.ApplicationId}; PRAGMA user_version = {SqliteHashCache.SchemaVersion}");
        }

        transaction.Commit();
    }

    private static string? GetMeta(SqliteConnection connection, SqliteTransaction? transaction, string key)
    {
        using var command = connection.CreateCommand();
        command.Transaction = transaction;
        command.CommandText = "SELECT value FROM meta WHERE key = $key";
        command.Parameters.AddWithValue("$key", key);
        return command.ExecuteScalar() as string;
    }

    private static void SetMeta(SqliteConnection connection, SqliteTransaction transaction, string key, string value)
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

    private static void Execute(SqliteConnection connection, SqliteTransaction? transaction, string sql)
    {
        using var command = connection.CreateCommand();
        command.Transaction = transaction;
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }

    /// <summary>XXH3 of every field of a row: a row damaged on disk fails it and is skipped.</summary>
    internal static long Checksum(in HashCacheEntry entry)
    {
        Span<byte> buffer = stackalloc byte[8 * 10 + 32];
        var stamp = entry.Stamp;
        BinaryPrimitives.WriteInt64LittleEndian(buffer, (long)stamp.Identity.Device);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[8..], (long)stamp.Identity.FileId);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[16..], stamp.Length);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[24..], stamp.LastWriteTimeNs);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[32..], stamp.ChangeTimeNs);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[40..], (long)entry.Probe);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[48..], entry.Partition);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[56..], entry.Class);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[64..], entry.Roots);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[72..], entry.Digest.IsEmpty ? 0 : (long)entry.DigestAlgorithm);
        const int length = 80;
        var digest = entry.Digest.Span;
        if (digest.Length > 32)
        {
            return 0; // no valid row holds a longer digest; the stored checksum is never 0 for one that fits
        }

        digest.CopyTo(buffer[length..]);
        return (long)(XxHash3.HashToUInt64(buffer[..(length + digest.Length)]) | 1);
    }
}
