using Dedup.Core.Caching.Sqlite;

namespace Dedup.Core.NetFxTests;

/// <summary>
/// Dedup.Core.Sqlite's netstandard2.0 build under Mono (#36 deliver 8): the bundled native e_sqlite3 loads, and a
/// rescan of an unchanged tree takes every key from the cache file.
/// </summary>
public sealed class SqliteCacheTests
{
    [Fact]
    public async Task ARescanOfAnUnchangedTreeReadsFromTheSqliteFile()
    {
        using var tree = new TempTree();
        using var state = new TempTree();
        var content = new byte[30_000];
        new Random(5).NextBytes(content);
        tree.File("a/one.bin", content);
        tree.File("b/two.bin", content);
        var cachePath = Path.Combine(state.Root, "dedup.db");
        await Task.Delay(TimeSpan.FromMilliseconds(1200)); // the cache keeps no file changed within a second of the scan

        var first = await ScanAsync(tree.Root, cachePath);
        var second = await ScanAsync(tree.Root, cachePath);

        Assert.True(File.Exists(cachePath), "no cache file");
        Assert.Equal(1, first.Groups);
        Assert.Equal(1, second.Groups);
        Assert.Empty(first.Summary.Cache!.Warnings);
        Assert.True(first.Summary.Cache.Written > 0, "the first scan cached nothing");
        Assert.Equal(2, second.Summary.Cache!.Hits);
        Assert.Equal(0, second.Summary.Cache.Misses);
        Assert.Equal(0, second.Summary.BytesRead);
    }

    private static async Task<(int Groups, Reporting.ScanSummary Summary)> ScanAsync(string root, string cachePath)
    {
        // Required: a cache that cannot open (a missing native library) fails the scan instead of being a warning.
        var scan = new DuplicateFinderBuilder().AddRoot(root).UseCache(new SqliteHashCache(cachePath), required: true).Build().FindAsync();
        var groups = 0;
        await foreach (var group in scan)
        {
            groups++;
        }

        return (groups, scan.Summary);
    }
}
