using Dedup.Core.Tests.EnumerationTests;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Caching;

/// <summary>
/// A custom file source gets the cache as the built-in walk does (#36 point 1) once its files carry a change time:
/// <see cref="Enumeration.ScannedFile.FromPath"/> gives it. Without one the cache cannot trust a file, and reads all.
/// </summary>
public sealed class CustomSourceCacheTests
{
    [LinuxFact]
    public async Task A_source_of_FromPath_files_is_served_by_the_cache_the_second_time()
    {
        using var cache = new CacheFixture();
        var pairs = WritePairs(cache.Tree);
        await CacheFixture.LetSettleAsync();

        var (firstGroups, first) = await cache.ScanAsync(b => b.UseFileEnumerator(new PathListEnumerator()));
        var (secondGroups, second) = await cache.ScanAsync(b => b.UseFileEnumerator(new PathListEnumerator()));

        Assert.Equal(pairs, Scan.Canonical(firstGroups));
        Assert.Equal(pairs, Scan.Canonical(secondGroups));
        Assert.Empty(first.Errors);
        Assert.Empty(second.Errors);
        Assert.True(first.BytesRead > 0);
        Assert.Equal(0, second.BytesRead);
        Assert.Equal(0, second.Cache!.Misses);
        Assert.True(second.Cache.Hits >= 8);
        Assert.Equal(await cache.BaselineAsync(), pairs); // the built-in walk finds the same
    }

    [LinuxFact]
    public async Task A_source_without_change_times_is_read_again_as_the_cache_cannot_trust_it()
    {
        using var cache = new CacheFixture();
        WritePairs(cache.Tree);
        await CacheFixture.LetSettleAsync();

        var (_, first) = await cache.ScanAsync(b => b.UseFileEnumerator(new PathListEnumerator(withoutChangeTime: true)));
        var (_, second) = await cache.ScanAsync(b => b.UseFileEnumerator(new PathListEnumerator(withoutChangeTime: true)));

        Assert.Equal(0, first.Cache!.Written);
        Assert.Equal(first.BytesRead, second.BytesRead);
        Assert.Equal(0, second.Cache!.Hits);
    }

    private static List<string> WritePairs(TempTree tree)
    {
        var groups = new List<string>();
        for (var i = 0; i < 4; i++)
        {
            var content = TempTree.RandomBytes(40_000 + i, i);
            groups.Add(Expect.Group(tree.Write($"a/{i}.bin", content), tree.Write($"b/{i}.bin", content)));
        }

        tree.Write("a/same-size-1.bin", TempTree.RandomBytes(50_000, 20));
        tree.Write("b/same-size-2.bin", TempTree.RandomBytes(50_000, 21));
        return groups.Order(StringComparer.Ordinal).ToList();
    }
}
