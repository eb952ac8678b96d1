using System.Buffers.Binary;
using System.Globalization;
using System.IO.Hashing;
using Dedup.Core.Comparison;
using Dedup.Core.Enumeration;
using Microsoft.Data.Sqlite;
using SQLitePCL;

namespace Dedup.Core.Caching.Sqlite;

/// <summary>
/// The SQL of <see cref="SqliteHashCache"/>. Schema 2: <c>files</c>, one row per identity (device, inode) whose
/// <c>entry</c> blob holds, little-endian: device, inode, size, mtime and ctime in ns, probe key, partition, class,
/// roots key, digest algorithm (each 8 bytes), the whole-content digest (32 bytes) when there is one, and an XXH3
/// checksum of all that (8 bytes), so that a damaged row is skipped rather than believed. One blob per row: reading
/// 250,000 rows column by column cost as much as the rest of a rescan's compare. The rows sharing a class are a
/// byte-verified group, each with the stamp it had when compared. <c>meta</c> holds the format of the keys and the next
/// unused partition/class id.
/// </summary>
internal static class SqliteStore
{
    private const string Schema = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS files(dev INTEGER NOT NULL, ino INTEGER NOT NULL, entry BLOB NOT NULL, PRIMARY KEY (dev, ino)) WITHOUT ROWID;
        """;

    /// <summary>Bytes of an entry blob without a digest: ten 64-bit fields and the checksum.</summary>
    internal const int EntrySize = 11 * 8;

    /// <summary>Bytes of an entry blob with a 32-byte digest.</summary>
    internal const int EntryWithDigestSize = EntrySize + 32;

    static SqliteStore()
    {
        // Explicitly, not through Microsoft.Data.Sqlite's reflection lookup, which trimming (NativeAOT) may remove.
        SQLitePCL.Batteries_V2.Init();
    }

    public static HashCacheEntry[] Read(SqliteHashCache cache, HashCacheScope scope, bool readOnly, CancellationToken cancellationToken)
    {
        using var connection = Open(cache, readOnly);
        if (!EnsureSchema(connection, readOnly) || GetMeta(connection, null, "format") != scope.Format)
        {
            return []; // written by another version of the keys: none of it applies (the next save clears it)
        }

        // One read transaction, so the count and the rows agree while another process writes.
        using var transaction = connection.BeginTransaction(deferred: true);
        var capacity = Convert.ToInt32(Scalar(connection, "SELECT count(*) FROM files", transaction), CultureInfo.InvariantCulture);
        var entries = new HashCacheEntry[capacity];
        var count = 0;

        // Every digest in one array: no object per row (a scan's gen0 budget is small, and each collection stops the walk).
        var digests = new byte[checked(capacity * 32)];

        // SQLitePCL directly, one column per row: Microsoft.Data.Sqlite's per-value overhead is most of the time at 250,000 rows.
        var db = connection.Handle!;
        using var statement = Prepare(db, "SELECT entry FROM files");
        int rc;
        while ((rc = raw.sqlite3_step(statement)) == raw.SQLITE_ROW && count < capacity)
        {
            if ((count & 0xFFF) == 0)
            {
                cancellationToken.ThrowIfCancellationRequested();
            }

            if (TryDecode(raw.sqlite3_column_blob(statement, 0), digests.AsMemory(count * 32, 32), out entries[count]))
            {
                count++; // a damaged row is skipped, never believed
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

        var ids = new SqliteIdMap(long.Parse(GetMeta(connection, transaction, "next_id") ?? "1", CultureInfo.InvariantCulture));
        var db = connection.Handle!;
        Delete(db, changes.Removals);
        cancellationToken.ThrowIfCancellationRequested();

        // In key order: the rows are appended to the b-tree rather than inserted all over it.
        var upserts = changes.Upserts as HashCacheEntry[] ?? [.. changes.Upserts];
        using (var insert = PrepareInsert(db))
        {
            Insert(db, insert, upserts, ref ids);
        }

        SetMeta(connection, transaction, "next_id", ids.Next.ToString(CultureInfo.InvariantCulture));
        cancellationToken.ThrowIfCancellationRequested();
        transaction.Commit();
    }

    /// <summary>The statement <see cref="Insert"/> binds.</summary>
    internal static sqlite3_stmt PrepareInsert(sqlite3 db) => Prepare(db, "INSERT OR REPLACE INTO files(dev, ino, entry) VALUES (?1, ?2, ?3)");

    /// <summary>
    /// Inserts or replaces <paramref name="entries"/> in key order (sorted here: the keys with their positions, not the
    /// 96-byte entries), their negative ids mapped through <paramref name="ids"/>.
    /// </summary>
    internal static void Insert(sqlite3 db, sqlite3_stmt insert, ReadOnlySpan<HashCacheEntry> entries, ref SqliteIdMap ids)
    {
        var keys = new (long Device, long Inode)[entries.Length];
        var order = new int[entries.Length];
        for (var i = 0; i < keys.Length; i++)
        {
            var identity = entries[i].Stamp.Identity;
            keys[i] = ((long)identity.Device, (long)identity.FileId);
            order[i] = i;
        }

        Array.Sort(keys, order);
        Span<byte> buffer = stackalloc byte[EntryWithDigestSize];
        foreach (var index in order)
        {
            ref readonly var upsert = ref entries[index];
            var entry = upsert with { Partition = ids.Map(upsert.Partition), Class = ids.Map(upsert.Class) };
            raw.sqlite3_bind_int64(insert, 1, (long)entry.Stamp.Identity.Device);
            raw.sqlite3_bind_int64(insert, 2, (long)entry.Stamp.Identity.FileId);
            raw.sqlite3_bind_blob(insert, 3, Encode(entry, buffer));
            Step(db, insert);
        }
    }

    /// <summary>Deletes the rows of <paramref name="identities"/>.</summary>
    internal static void Delete(sqlite3 db, IReadOnlyList<FileIdentity> identities)
    {
        if (identities.Count == 0)
        {
            return;
        }

        using var delete = Prepare(db, "DELETE FROM files WHERE dev = ?1 AND ino = ?2");
        foreach (var identity in identities)
        {
            raw.sqlite3_bind_int64(delete, 1, (long)identity.Device);
            raw.sqlite3_bind_int64(delete, 2, (long)identity.FileId);
            Step(db, delete);
        }
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
        var version = Convert.ToInt64(Scalar(connection, "PRAGMA user_version"), CultureInfo.InvariantCulture);
        var application = Convert.ToInt64(Scalar(connection, "PRAGMA application_id"), CultureInfo.InvariantCulture);
        if (version > SqliteHashCache.SchemaVersion)
        {
            throw new HashCacheFileException($"its schema version {version} is newer than this version's ({SqliteHashCache.SchemaVersion}); left untouched");
        }

        if (version == SqliteHashCache.SchemaVersion && application == SqliteHashCache.ApplicationId)
        {
            return true;
        }

        var ours = version > 0 && application == SqliteHashCache.ApplicationId;
        var tables = Convert.ToInt64(Scalar(connection, "SELECT count(*) FROM sqlite_master"), CultureInfo.InvariantCulture);
        if (!ours && (version != 0 || application != 0 || tables != 0))
        {
            throw new HashCacheFileException("it is not a dedup cache (another application's database?); left untouched");
        }

        if (readOnly)
        {
            return false;
        }

        // A new file, or an older schema of ours (its rows are dropped). WAL lets scans read while another writes; the
        // mode stays with the file.
        Execute(connection, null, "PRAGMA journal_mode = WAL");
        using var transaction = connection.BeginTransaction(deferred: false);
        if (Convert.ToInt64(Scalar(connection, "PRAGMA user_version", transaction), CultureInfo.InvariantCulture) < SqliteHashCache.SchemaVersion)
        {
            Execute(connection, transaction, "DROP TABLE IF EXISTS files"); // schema 1's columns; meta (next_id) stays
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

    /// <summary>Writes <paramref name="entry"/> as a row's blob (see the class comment) into <paramref name="buffer"/>.</summary>
    internal static ReadOnlySpan<byte> Encode(in HashCacheEntry entry, Span<byte> buffer)
    {
        var stamp = entry.Stamp;
        var digest = entry.Digest.Span;
        if (digest.Length is not (0 or 32))
        {
            throw new ArgumentException($"a digest is 32 bytes, not {digest.Length}", nameof(entry));
        }

        BinaryPrimitives.WriteInt64LittleEndian(buffer, (long)stamp.Identity.Device);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[8..], (long)stamp.Identity.FileId);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[16..], stamp.Length);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[24..], stamp.LastWriteTimeNs);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[32..], stamp.ChangeTimeNs);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[40..], (long)entry.Probe);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[48..], entry.Partition);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[56..], entry.Class);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[64..], entry.Roots);
        BinaryPrimitives.WriteInt64LittleEndian(buffer[72..], digest.IsEmpty ? 0 : (long)entry.DigestAlgorithm);
        digest.CopyTo(buffer[80..]);
        var length = 80 + digest.Length;
        BinaryPrimitives.WriteInt64LittleEndian(buffer[length..], Checksum(buffer[..length]));
        return buffer[..(length + 8)];
    }

    /// <summary>
    /// Reads a row's blob; <see langword="false"/> when its length or checksum is wrong (a damaged row). A digest is
    /// copied into <paramref name="digestSlot"/>, which the entry then refers to.
    /// </summary>
    internal static bool TryDecode(ReadOnlySpan<byte> blob, Memory<byte> digestSlot, out HashCacheEntry entry)
    {
        entry = default;
        if (blob.Length is not (EntrySize or EntryWithDigestSize)
            || Checksum(blob[..^8]) != BinaryPrimitives.ReadInt64LittleEndian(blob[^8..]))
        {
            return false;
        }

        var identity = new FileIdentity((ulong)BinaryPrimitives.ReadInt64LittleEndian(blob), (ulong)BinaryPrimitives.ReadInt64LittleEndian(blob[8..]));
        var stamp = new FileStamp(identity, BinaryPrimitives.ReadInt64LittleEndian(blob[16..]), BinaryPrimitives.ReadInt64LittleEndian(blob[24..]), BinaryPrimitives.ReadInt64LittleEndian(blob[32..]));
        entry = new HashCacheEntry(
            stamp,
            (ulong)BinaryPrimitives.ReadInt64LittleEndian(blob[40..]),
            BinaryPrimitives.ReadInt64LittleEndian(blob[48..]),
            BinaryPrimitives.ReadInt64LittleEndian(blob[56..]),
            BinaryPrimitives.ReadInt64LittleEndian(blob[64..]));
        if (blob.Length == EntryWithDigestSize)
        {
            blob.Slice(80, 32).CopyTo(digestSlot.Span);
            entry = entry with { DigestAlgorithm = (DuplicateHashAlgorithm)BinaryPrimitives.ReadInt64LittleEndian(blob[72..]), Digest = digestSlot };
        }

        return true;
    }

    /// <summary>XXH3 of a row's fields, never 0: a row damaged on disk fails it and is skipped.</summary>
    private static long Checksum(ReadOnlySpan<byte> fields) => (long)(XxHash3.HashToUInt64(fields) | 1);
}
