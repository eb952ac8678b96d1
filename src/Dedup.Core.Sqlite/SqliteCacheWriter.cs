using System.Globalization;
using Dedup.Core.Enumeration;
using Microsoft.Data.Sqlite;
using SQLitePCL;

namespace Dedup.Core.Caching.Sqlite;

/// <summary>
/// A save of <see cref="SqliteHashCache"/> that writes while the scan runs: one <c>BEGIN IMMEDIATE</c> transaction
/// from the first batch to the commit, each batch inserted as it comes (on the scan's writer thread), so the commit
/// at the end only flushes. When another process holds the write lock at the first batch, the entries are kept and
/// written at the commit instead (as <see cref="SqliteStore.Write"/> does, waiting up to the busy timeout then), so a
/// scan never waits for another scan's transaction while it compares.
/// </summary>
internal sealed class SqliteCacheWriter : HashCacheWriter
{
    private readonly SqliteHashCache _cache;
    private readonly HashCacheScope _scope;
    /// <summary>
    /// Entries inserted at once, in key order: a scan's batches come in no key order, and the fewer the passes over the
    /// table's pages, the less the inserts cost (4,096 at a time took SQLite ~3x the CPU of one sorted pass at 242k rows).
    /// </summary>
    internal const int Window = 16384;

    /// <summary>The writer's page cache, in KiB.</summary>
    private const int WriterCacheKiB = 65536;

    private readonly List<HashCacheEntry>? _kept; // only when the lock was held by another process at the start
    private readonly HashCacheEntry[] _window = new HashCacheEntry[Window];
    private int _pending;
    private SqliteConnection? _connection;
    private sqlite3_stmt? _insert;
    private SqliteIdMap _ids;
    private bool _open; // a transaction of ours is open

    public SqliteCacheWriter(SqliteHashCache cache, HashCacheScope scope)
    {
        _cache = cache;
        _scope = scope;
        var connection = SqliteStore.Open(cache);
        try
        {
            SqliteStore.EnsureSchema(connection);
            var db = connection.Handle!;

            // Without waiting: if another scan is writing, this one keeps its entries rather than hold up its compare stage.
            SqliteStore.Execute(connection, null, "PRAGMA busy_timeout = 0");
            var rc = raw.sqlite3_exec(db, "BEGIN IMMEDIATE");
            SqliteStore.Execute(connection, null, $"PRAGMA busy_timeout = {(long)SqliteStore.Timeout(cache).TotalMilliseconds}");
            if (rc is raw.SQLITE_BUSY or raw.SQLITE_LOCKED)
            {
                connection.Dispose();
                _kept = [];
                return;
            }

            if (rc != raw.SQLITE_OK)
            {
                SqliteException.ThrowExceptionForRC(rc, db);
            }

            _open = true;
            if (SqliteStore.GetMeta(connection, null, "format") != scope.Format)
            {
                SqliteStore.Execute(connection, null, "DELETE FROM files");
                SqliteStore.SetMeta(connection, null, "format", scope.Format);
            }

            // Room for the pages the save dirties, up to 64 MiB (a 242k-entry first run: ~29 MiB): with SQLite's default 16,
            // each window's pass over the table spilled the pages again, 2.5x the table's size in WAL frames.
            SqliteStore.Execute(connection, null, $"PRAGMA cache_size = -{WriterCacheKiB}");
            _ids = new SqliteIdMap(long.Parse(SqliteStore.GetMeta(connection, null, "next_id") ?? "1", CultureInfo.InvariantCulture));
            _insert = SqliteStore.PrepareInsert(db);
            _connection = connection;
        }
        catch
        {
            if (_open)
            {
                raw.sqlite3_exec(connection.Handle!, "ROLLBACK");
            }

            connection.Dispose();
            throw;
        }
    }

    public override void Write(ReadOnlySpan<HashCacheEntry> entries, CancellationToken cancellationToken = default)
    {
        if (_kept is not null)
        {
            foreach (var entry in entries)
            {
                _kept.Add(entry);
            }

            return;
        }

        cancellationToken.ThrowIfCancellationRequested();
        while (!entries.IsEmpty)
        {
            var take = Math.Min(entries.Length, Window - _pending);
            entries[..take].CopyTo(_window.AsSpan(_pending));
            _pending += take;
            entries = entries[take..];
            if (_pending == Window)
            {
                Flush();
            }
        }
    }

    private void Flush()
    {
        SqliteStore.Insert(_connection!.Handle!, _insert!, _window.AsSpan(0, _pending), ref _ids);
        Array.Clear(_window, 0, _pending); // the digests' arrays are not held
        _pending = 0;
    }

    public override void Commit(IReadOnlyList<FileIdentity> removals, CancellationToken cancellationToken = default)
    {
        if (_kept is not null)
        {
            SqliteStore.Write(_cache, _scope, new HashCacheChanges(_kept, removals), cancellationToken);
            return;
        }

        var connection = _connection!;
        Flush();
        SqliteStore.Delete(connection.Handle!, removals);
        SqliteStore.SetMeta(connection, null, "next_id", _ids.Next.ToString(CultureInfo.InvariantCulture));
        cancellationToken.ThrowIfCancellationRequested();
        var rc = raw.sqlite3_exec(connection.Handle!, "COMMIT");
        if (rc != raw.SQLITE_OK)
        {
            SqliteException.ThrowExceptionForRC(rc, connection.Handle!);
        }

        _open = false;
    }

    protected override void Dispose(bool disposing)
    {
        if (!disposing || _connection is null)
        {
            return;
        }

        _insert?.Dispose();
        if (_open)
        {
            raw.sqlite3_exec(_connection.Handle!, "ROLLBACK");
            _open = false;
        }

        _connection.Dispose(); // the last connection checkpoints the WAL into the file
        _connection = null;
    }
}
