using Dedup.Core.Caching.Sqlite;
using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;
using Microsoft.Data.Sqlite;

namespace Dedup.Core.Tests.Caching;

/// <summary>A tree to scan and a real SQLite cache file beside it (not inside: it would be scanned), both deleted afterwards.</summary>
public sealed class CacheFixture : IDisposable
{
    public TempTree Tree { get; } = new();

    public TempTree CacheFolder { get; } = new();

    public string CachePath => CacheFolder.PathOf("cache.db");

    /// <summary>
    /// Waits until the files just written are older than the cache's racy window (a file changed within a second of a
    /// scan is not cached: an edit in the same clock tick could keep its stamp), so the next scan caches them.
    /// </summary>
    public static Task LetSettleAsync() => Task.Delay(TimeSpan.FromMilliseconds(1200));

    public Task<(List<DuplicateGroup> Groups, ScanSummary Summary)> ScanAsync(Action<DuplicateFinderBuilder>? configure = null, string? root = null, TimeSpan? busyTimeout = null) =>
        Scan.RunAsync(b =>
        {
            b.AddRoot(root ?? Tree.Root).UseCache(new SqliteHashCache(CachePath) { BusyTimeout = busyTimeout ?? TimeSpan.FromSeconds(5) });
            configure?.Invoke(b);
        });

    /// <summary>The same scan without a cache: what every cached scan must report.</summary>
    public async Task<List<string>> BaselineAsync(Action<DuplicateFinderBuilder>? configure = null, string? root = null)
    {
        var (groups, _) = await Scan.RunAsync(b =>
        {
            b.AddRoot(root ?? Tree.Root);
            configure?.Invoke(b);
        });
        return Scan.Canonical(groups);
    }

    /// <summary>The entries in the file (schema 3: the sum of its chunks' counts).</summary>
    public long CountEntries()
    {
        using var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = CachePath, Pooling = false }.ToString());
        connection.Open();
        using var command = connection.CreateCommand();
        command.CommandText = "SELECT coalesce(sum(count), 0) FROM chunks";
        return (long)command.ExecuteScalar()!;
    }

    public static void Execute(string path, string sql)
    {
        using var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = path, Pooling = false }.ToString());
        connection.Open();
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }

    public static object? Scalar(string path, string sql)
    {
        using var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = path, Pooling = false }.ToString());
        connection.Open();
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        return command.ExecuteScalar();
    }

    /// <summary>Writes <paramref name="blob"/> over the cache's one chunk (damage tests); fails unless exactly one row changed.</summary>
    public void ReplaceOnlyChunk(byte[] blob)
    {
        using var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = CachePath, Pooling = false }.ToString());
        connection.Open();
        using var command = connection.CreateCommand();
        command.CommandText = "UPDATE chunks SET data = $data";
        command.Parameters.AddWithValue("$data", blob);
        Assert.Equal(1, command.ExecuteNonQuery());
    }

    public void Dispose()
    {
        Tree.Dispose();
        CacheFolder.Dispose();
    }
}
