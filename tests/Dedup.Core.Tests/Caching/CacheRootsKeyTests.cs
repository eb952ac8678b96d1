using System.Runtime.InteropServices;
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
        Assert.Equal(4, _fixture.CountRows());

        (groups, summary) = await _fixture.ScanAsync(root: first);
        Assert.Single(groups);
        Assert.Equal(2, summary.Cache!.Hits);
        Assert.Equal(0, summary.BytesRead);
    }

    /// <summary>Makes <c>r</c> + <paramref name="last"/> with two equal files in it; returns the root as the library's string.</summary>
    private string MakeRoot(byte last, int seed)
    {
        byte[] folder = [.. Encoding.UTF8.GetBytes(_fixture.Tree.Root + "/r"), last];
        Assert.True(Mkdir([.. folder, 0], 0x1ED) == 0, $"mkdir: errno {Marshal.GetLastPInvokeError()}"); // 0755
        var content = TempTree.RandomBytes(5000, seed);
        foreach (var name in new[] { "a", "b" })
        {
            WriteExact([.. folder, (byte)'/', .. Encoding.UTF8.GetBytes(name)], content);
        }

        return KernelNames.GetString(folder);
    }

    private static void WriteExact(byte[] path, byte[] content)
    {
        var fd = Open([.. path, 0], 0x41 | 0x80 | 0x80000, 0x1A4); // O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644
        Assert.True(fd >= 0, $"open: errno {Marshal.GetLastPInvokeError()}");
        try
        {
            Assert.Equal(content.Length, (int)Write(fd, content, content.Length));
        }
        finally
        {
            _ = Close(fd);
        }
    }

    [DllImport("libc", EntryPoint = "mkdir", SetLastError = true)]
    private static extern int Mkdir(byte[] path, int mode);

    [DllImport("libc", EntryPoint = "open", SetLastError = true)]
    private static extern int Open(byte[] path, int flags, int mode);

    [DllImport("libc", EntryPoint = "write", SetLastError = true)]
    private static extern nint Write(int fd, byte[] buffer, nint count);

    [DllImport("libc", EntryPoint = "close")]
    private static extern int Close(int fd);
}
