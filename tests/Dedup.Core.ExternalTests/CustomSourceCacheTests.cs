using BackupTool;
using Dedup.Core.Caching.Sqlite;

namespace Dedup.Core.ExternalTests;

/// <summary>
/// A custom file source is first-class (#36): the backup sample's manifest enumerator, which reads each file's metadata
/// with ScannedFile.FromPath, gets the SQLite cache as the built-in walk does, so a nightly rescan reads nothing.
/// </summary>
public sealed class CustomSourceCacheTests
{
    [LinuxFact]
    public async Task Backup_sample_enumerator_with_a_cache_reads_no_byte_the_second_time()
    {
        using var tree = new TempFolder();
        using var cacheFolder = new TempFolder();
        for (var i = 0; i < 4; i++)
        {
            var content = TempFolder.RandomBytes(50_000 + i, i);
            tree.Write($"a/{i}.bin", content);
            tree.Write($"b/{i}.bin", content);
        }

        tree.Write("a/unique-size.bin", TempFolder.RandomBytes(70_000, 9));
        tree.Write("a/same-size-1.bin", TempFolder.RandomBytes(60_000, 10));
        tree.Write("b/same-size-2.bin", TempFolder.RandomBytes(60_000, 11));
        var manifest = Tools.WriteManifest(tree.Root);
        await Task.Delay(TimeSpan.FromMilliseconds(1200)); // the cache keeps no file changed within a second of the scan
        var cachePath = Path.Combine(cacheFolder.Root, "cache.db");
        DuplicateFinder Finder() => new DuplicateFinderBuilder()
            .AddRoot(tree.Root)
            .UseFileEnumerator(new ManifestEnumerator(tree.Root, manifest))
            .UseCache(new SqliteHashCache(cachePath))
            .Build();

        var first = await Scans.RunAsync(Finder());
        var second = await Scans.RunAsync(Finder());

        Assert.Empty(first.Summary.Errors);
        Assert.Equal(Enumerable.Range(0, 4).Select(i => $"a/{i}.bin | b/{i}.bin"), Scans.Canonical(first.Groups, tree.Root));
        Assert.True(first.Summary.BytesRead > 0);
        Assert.True(first.Summary.Cache!.Written > 0, "the first scan cached nothing");
        Assert.Empty(second.Summary.Errors);
        Assert.Equal(Scans.Canonical(first.Groups, tree.Root), Scans.Canonical(second.Groups, tree.Root));
        Assert.Equal(0, second.Summary.BytesRead);
        Assert.True(second.Summary.Cache!.Hits > 0);
        Assert.Equal(0, second.Summary.Cache.Misses);
    }
}
