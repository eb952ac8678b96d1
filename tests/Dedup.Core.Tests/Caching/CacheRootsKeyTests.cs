using System.Text;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Caching;

/// <summary>
/// Pruning is per roots key: two roots whose names differ only in a byte that is not UTF-8 (<c>r\xFE</c>, <c>r\xFF</c>)
/// must get different keys, or a scan of one would prune the other's entries (UTF-8 decoding makes both
/// <c>r\uFFFD</c>). Real folders with those exact bytes, made through libc, and a real SQLite file.
/// </summary>
public sealed class CacheRootsKeyTests : IDisposable
{
    private readonly CacheFixture _fixture = new();

    public void Dispose() => _fixture.Dispose();

    [LinuxFact]
    public async Task Roots_differing_only_in_a_non_utf8_byte_do_not_prune_each_others_entries()
    {
        var first = MakeRoot(0xFE, seed: 31);
        var second = MakeRoot(0xFF, seed: 32);
        Assert.NotEqual(first, second);
        await CacheFixture.LetSettleAsync();

        var (groups, summary) = await _fixture.ScanAsync(root: first);
        Assert.Single(groups);
        Assert.Equal(2, summary.Cache!.Written);

        (groups, summary) = await _fixture.ScanAsync(root: second);
        Assert.Single(groups);
        Assert.Equal(0, summary.Cache!.Pruned); // the first root's entries are not this scan's to prune
        Assert.Equal(4, _fixture.CountEntries());

        (groups, summary) = await _fixture.ScanAsync(root: first);
        Assert.Single(groups);
        Assert.Equal(2, summary.Cache!.Hits);
        Assert.Equal(0, summary.BytesRead);
    }

    /// <summary>Makes <c>r</c> + <paramref name="last"/> with two equal files in it; returns the root as the library's string.</summary>
    private string MakeRoot(byte last, int seed)
    {
        byte[] folder = [.. Encoding.UTF8.GetBytes(_fixture.Tree.Root + "/r"), last];
        ExactNames.CreateFolder(folder);
        var content = TempTree.RandomBytes(5000, seed);
        foreach (var name in new[] { "a", "b" })
        {
            ExactNames.WriteFile([.. folder, (byte)'/', .. Encoding.UTF8.GetBytes(name)], content);
        }

        return KernelNames.GetString(folder);
    }
}
