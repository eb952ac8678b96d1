using System.Buffers.Binary;
using System.Globalization;
using System.IO.Hashing;
using Dedup.Core.Comparison;
using Dedup.Core.Enumeration;
using Microsoft.Data.Sqlite;

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

    public static List<HashCacheEntry> Read(SqliteHashCache cache, HashCacheScope scope, CancellationToken cancellationToken)
    {
        using var connection = Open(cache);
        EnsureSchema(connection);
        var entries = new List<HashCacheEntry>();
        if (GetMeta(connection, null, "format") != scope.Format)
        {
            return entries; // written by another version of the keys: none of it applies (the next save clears it)
        }

        using var command = connection.CreateCommand();
        command.CommandText = "SELECT dev, ino, size, mtime_ns, ctime_ns, probe, part, class, roots, digest_alg, digest, checksum FROM files";
        using var reader = command.ExecuteReader();
        while (reader.Read())
        {
            if ((entries.Count & 0xFFF) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            var identity = new FileIdentity((ulong)reader.GetInt64(0), (ulong)reader.GetInt64(1));
            var stamp = new FileStamp(identity, reader.GetInt64(2), reader.GetInt64(3), reader.GetInt64(4));
            var entry = new HashCacheEntry(stamp, (ulong)reader.GetInt64(5), reader.GetInt64(6), reader.GetInt64(7), reader.GetInt64(8))
            {
                DigestAlgorithm = (DuplicateHashAlgorithm)reader.GetInt32(9),
                Digest = reader.IsDBNull(10) ? ReadOnlyMemory<byte>.Empty : (byte[])reader.GetValue(10),
            };
            if (Checksum(entry) == reader.GetInt64(11))
            {
                entries.Add(entry); // a damaged row is skipped, never believed
            }
        }

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

        using (var delete = connection.CreateCommand())
        {
            delete.Transaction = transaction;
            delete.CommandText = "DELETE FROM files WHERE dev = $dev AND ino = $ino";
            var dev = delete.Parameters.Add("$dev", SqliteType.Integer);
            var ino = delete.Parameters.Add("$ino", SqliteType.Integer);
            foreach (var identity in changes.Removals)
            {
                dev.Value = (long)identity.Device;
                ino.Value = (long)identity.FileId;
                delete.ExecuteNonQuery();
            }
        }

        cancellationToken.ThrowIfCancellationRequested();
        using (var insert = connection.CreateCommand())
        {
            insert.Transaction = transaction;
            insert.CommandText = """
                INSERT OR REPLACE INTO files(dev, ino, size, mtime_ns, ctime_ns, probe, part, class, roots, digest_alg, digest, checksum)
                VALUES ($dev, $ino, $size, $mtime, $ctime, $probe, $part, $class, $roots, $alg, $digest, $checksum)
                """;
            var p = new[] { "$dev", "$ino", "$size", "$mtime", "$ctime", "$probe", "$part", "$class", "$roots", "$alg" }
                .Select(name => insert.Parameters.Add(name, SqliteType.Integer)).ToArray();
            var digest = insert.Parameters.Add("$digest", SqliteType.Blob);
            var checksum = insert.Parameters.Add("$checksum", SqliteType.Integer);
            insert.Prepare();
            foreach (var upsert in changes.Upserts)
            {
                var entry = upsert with { Partition = Map(upsert.Partition), Class = Map(upsert.Class) };
                var stamp = entry.Stamp;
                p[0].Value = (long)stamp.Identity.Device;
                p[1].Value = (long)stamp.Identity.FileId;
                p[2].Value = stamp.Length;
                p[3].Value = stamp.LastWriteTimeNs;
                p[4].Value = stamp.ChangeTimeNs;
                p[5].Value = (long)entry.Probe;
                p[6].Value = entry.Partition;
                p[7].Value = entry.Class;
                p[8].Value = entry.Roots;
                p[9].Value = entry.Digest.IsEmpty ? 0 : (int)entry.DigestAlgorithm;
                digest.Value = entry.Digest.IsEmpty ? DBNull.Value : entry.Digest.ToArray();
                checksum.Value = Checksum(entry);
                insert.ExecuteNonQuery();
            }
        }

        SetMeta(connection, transaction, "next_id", nextId.ToString(CultureInfo.InvariantCulture));
        cancellationToken.ThrowIfCancellationRequested();
        transaction.Commit();
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

    public static string OneLine(Exception ex) => ex.Message.Replace('\r', ' ').Replace('\n', ' ').Trim();

    private static SqliteConnection Open(SqliteHashCache cache)
    {
        var timeout = cache.BusyTimeout < TimeSpan.Zero ? TimeSpan.Zero : cache.BusyTimeout;
        var builder = new SqliteConnectionStringBuilder
        {
            DataSource = cache.Path,
            Mode = SqliteOpenMode.ReadWriteCreate,
            Pooling = false, // nothing stays open between scans
            DefaultTimeout = Math.Max(1, (int)Math.Ceiling(timeout.TotalSeconds)),
        };
        var connection = new SqliteConnection(builder.ToString());
        try
        {
            connection.Open();
            Execute(connection, null, $"PRAGMA busy_timeout = {(long)timeout.TotalMilliseconds}; PRAGMA synchronous = NORMAL");
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
        long[] fields =
        [
            (long)stamp.Identity.Device, (long)stamp.Identity.FileId, stamp.Length, stamp.LastWriteTimeNs, stamp.ChangeTimeNs,
            (long)entry.Probe, entry.Partition, entry.Class, entry.Roots, entry.Digest.IsEmpty ? 0 : (long)entry.DigestAlgorithm,
        ];
        for (var i = 0; i < fields.Length; i++)
        {
            BinaryPrimitives.WriteInt64LittleEndian(buffer[(i * 8)..], fields[i]);
        }

        var length = fields.Length * 8;
        var digest = entry.Digest.Span;
        if (digest.Length > 32)
        {
            return 0; // no valid row holds a longer digest; the stored checksum is never 0 for one that fits
        }

        digest.CopyTo(buffer[length..]);
        return (long)(XxHash3.HashToUInt64(buffer[..(length + digest.Length)]) | 1);
    }
}
