using System.Runtime.Versioning;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// Opens ask for <c>O_NOATIME</c> (no access-time writes), which the kernel refuses (EPERM) on files the process
/// does not own: an unprivileged scan asks for it on its own files only, so no file is opened twice for it. The same
/// holds for the small files keyed while their folder is listed.
/// </summary>
public sealed class NoAtimeTests
{
    [LinuxFact(RequiresRoot = true, Tool = "strace")]
    [SupportedOSPlatform("linux")]
    public async Task An_unprivileged_scan_asks_for_O_NOATIME_on_its_own_files_only()
    {
        // 20 pairs owned by root (larger, so compared first) and 20 pairs owned by nobody, all too large to be keyed:
        // each file is opened once, the comparison reading on through the descriptor its probe opened.
        var opens = await ScanPairsAsNobodyAsync(pairs: 20, foreignSize: 50_000, ownSize: 20_000);

        Assert.True(opens.Count == 80, $"{opens.Count} opens of the 80 data files were traced");
        AssertNoAtimeOnOwnFilesOnly(opens);
    }

    [LinuxFact(RequiresRoot = true, Tool = "strace")]
    [SupportedOSPlatform("linux")]
    public async Task An_unprivileged_scan_keys_small_files_asking_for_O_NOATIME_on_its_own_files_only()
    {
        // All small enough to be keyed while listed: each file is opened twice, for its key, then for the byte
        // comparison of its pair.
        var opens = await ScanPairsAsNobodyAsync(pairs: 10, foreignSize: 3000, ownSize: 2000);

        Assert.True(opens.Count == 80, $"{opens.Count} opens of the 40 data files were traced");
        AssertNoAtimeOnOwnFilesOnly(opens);
    }

    /// <summary>
    /// Scans, as nobody under strace, pairs owned by root and pairs owned by nobody (one size per pair); checks that
    /// every pair is found and returns the traced opens of the data files.
    /// </summary>
    private static async Task<List<string>> ScanPairsAsNobodyAsync(int pairs, int foreignSize, int ownSize)
    {
        using var tree = new TempTree();
        using var cli = new CliAsNobody();
        for (var i = 0; i < pairs; i++)
        {
            var foreign = TempTree.RandomBytes(foreignSize + i, i);
            tree.Write($"data/root/a{i}.bin", foreign);
            tree.Write($"data/root/b{i}.bin", foreign);
            var own = TempTree.RandomBytes(ownSize + i, 100 + i);
            tree.Write($"data/own/own-a{i}.bin", own);
            tree.Write($"data/own/own-b{i}.bin", own);
        }

        TempTree.Run("chown", "-R", "65534:65534", tree.PathOf("data/own"));
        CliAsNobody.MakeTraversable(tree.PathOf("data/root"));
        CliAsNobody.MakeTraversable(tree.PathOf("data/own"));
        var log = tree.PathOf("openat.log");

        var (exitCode, stdout, stderr) = await cli.RunAsync(["find", tree.PathOf("data"), "--format", "json"], straceLog: log);

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {stderr}");
        using var json = System.Text.Json.JsonDocument.Parse(stdout);
        Assert.Equal(2 * pairs, json.RootElement.GetProperty("groups").GetArrayLength());
        return File.ReadAllLines(log).Where(l => l.Contains(".bin\"", StringComparison.Ordinal)).ToList();
    }

    private static void AssertNoAtimeOnOwnFilesOnly(List<string> opens)
    {
        var refused = opens.Where(l => l.Contains("EPERM", StringComparison.Ordinal)).ToList();
        Assert.True(refused.Count == 0, $"{refused.Count} opens refused, first: {refused.FirstOrDefault()}");
        Assert.Equal(opens.Count / 2, opens.Count(l => l.Contains("O_NOATIME", StringComparison.Ordinal))); // as many own files as root's
        Assert.All(opens, l => Assert.Equal(l.Contains("\"own-", StringComparison.Ordinal), l.Contains("O_NOATIME", StringComparison.Ordinal)));
    }
}
