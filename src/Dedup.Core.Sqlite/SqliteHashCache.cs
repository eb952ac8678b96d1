using Dedup.Core.Enumeration;
using Microsoft.Data.Sqlite;

namespace Dedup.Core.Caching.Sqlite;

/// <summary>
/// A <see cref="HashCache"/> in one SQLite file (WAL, versioned schema): safe when several processes use the same
/// file at once, since each scan reads it once when it starts and writes its changes in one transaction at its end
/// (see <see cref="BeginSave"/>). See docs/cache.md for the schema and for what happens with a bad file.
/// </summary>
/// <example>
/// <code>
/// var finder = new DuplicateFinderBuilder()
///     .AddRoot("/backup")
///     .UseCache(new SqliteHashCache("/var/cache/dedup/backup.db"))
///     .Build();
/// </code>
/// </example>
public sealed class SqliteHashCache : HashCache
{
    /// <summary>The schema this version reads and writes (<c>PRAGMA user_version</c>); a newer file is left untouched, an older one is emptied.</summary>
    public const int SchemaVersion = 3;

    /// <summary>Marks the file as a Dedup.Core cache (<c>PRAGMA application_id</c>, "DDUP").</summary>
    internal const int ApplicationId = 0x44445550;

    /// <summary>Creates a cache kept in <paramref name="path"/>; the file is created by the first scan that saves.</summary>
    /// <param name="path">The database file; relative paths are resolved against the current directory.</param>
    /// <exception cref="ArgumentException">The path is empty.</exception>
    public SqliteHashCache(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        if (string.IsNullOrWhiteSpace(path))
        {
            throw new ArgumentException("The cache path must not be empty.", nameof(path));
        }

        Path = System.IO.Path.GetFullPath(path);
    }

    /// <summary>The database file, as an absolute path.</summary>
    public string Path { get; }

    /// <summary>
    /// How long to wait for another process's write to finish before giving up on the cache for this scan (default 5 s).
    /// </summary>
    public TimeSpan BusyTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <inheritdoc />
    public override string Description => Path;

    /// <inheritdoc />
    public override HashCacheSnapshot Load(HashCacheScope scope, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(scope);
        if (!File.Exists(Path))
        {
            return new HashCacheSnapshot([]);
        }

        try
        {
            var entries = SqliteStore.Read(this, scope, readOnly: false, out var damaged, cancellationToken);
            return new HashCacheSnapshot(entries) { Warnings = Damaged(damaged) };
        }
        catch (SqliteException ex) when (ex.SqliteErrorCode is 8 or 14)
        {
            // SQLITE_READONLY or SQLITE_CANTOPEN: no write access to the file or its folder (WAL needs its -shm file).
            // Read as an immutable file: a scan may use what is there, and writes nothing.
            var entries = SqliteStore.Read(this, scope, readOnly: true, out var damaged, cancellationToken);
            return new HashCacheSnapshot(entries) { IsReadOnly = true, Warnings = [$"cache '{Path}' is read-only: used, not updated", .. Damaged(damaged)] };
        }
        catch (SqliteException ex) when (SqliteStore.IsCorrupt(ex) && SqliteStore.IsOurs(Path))
        {
            // Our own file, damaged: start afresh (nothing in it can be trusted anyway).
            SqliteStore.Delete(Path);
            return new HashCacheSnapshot([]) { Warnings = [$"cache '{Path}' was damaged ({ex.Message}); starting a new one"] };
        }
    }

    /// <summary>One line when chunks failed their checksum: their files are read again, and the load that found them drops them.</summary>
    private string[] Damaged(int chunks) => chunks == 0 ? [] : [$"cache '{Path}' has {chunks} damaged chunk(s); their files are read again"];

    /// <inheritdoc />
    /// <remarks>
    /// Keeps the entries while the scan runs and writes them in one transaction at the commit, waiting up to
    /// <see cref="BusyTimeout"/> for another process's.
    /// </remarks>
    public override HashCacheWriter BeginSave(HashCacheScope scope)
    {
        ArgumentNullException.ThrowIfNull(scope);
        return new SqliteCacheWriter(this, scope);
    }
}

/// <summary>A cache file that cannot be used: newer schema, another application's database, or a damaged file.</summary>
internal sealed class HashCacheFileException(string message) : IOException(message);
