using System.Runtime.Versioning;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// Opens ask for <c>O_NOATIME</c> (no access-time writes), which the kernel refuses (EPERM) on files the process
/// does not own: an unprivileged scan asks for it on its own files only, so no file is opened twice.
/// </summary>
public sealed class NoAtimeTests
{
    [LinuxFact(RequiresRoot = true, Tool = "strace")]
    [SupportedOSPlatform("linux")]
    public async Task An_unprivileged_scan_asks_for_O_NOATIME_on_its_own_files_only()
    {
        // Scanned by user nobody: 20 pairs owned by root (larger, so compared first) and 20 pairs owned by nobody;
        // each file is opened once: the comparison reads on through the descriptor its probe opened.
        using var tree = new TempTree();
        using var cli = new CliAsNobody();
        for (var i = 0; i < 20; i++)
        {
            var foreign = TempTree.RandomBytes(50_000 + i, i);
            tree.Write($"data/root/a{i}.bin", foreign);
            tree.Write($"data/root/b{i}.bin", foreign);
            var own = TempTree.RandomBytes(20_000 + i, 100 + i);
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
        Assert.Equal(40, json.RootElement.GetProperty("groups").GetArrayLength());
        var opens = File.ReadAllLines(log).Where(l => l.Contains(".bin\"", StringComparison.Ordinal)).ToList();
        var refused = opens.Where(l => l.Contains("EPERM", StringComparison.Ordinal)).ToList();
        var withFlag = opens.Count(l => l.Contains("O_NOATIME", StringComparison.Ordinal));
        Assert.True(opens.Count == 80, $"{opens.Count} opens of the 80 data files were traced");
        Assert.True(refused.Count == 0, $"{refused.Count} opens refused, first: {refused.FirstOrDefault()}");
        Assert.Equal(opens.Count / 2, withFlag); // the own files, as many as the root-owned ones
        Assert.All(opens, l => Assert.Equal(l.Contains("\"own-", StringComparison.Ordinal), l.Contains("O_NOATIME", StringComparison.Ordinal)));
    }
}
