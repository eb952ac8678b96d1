using System.Runtime.Versioning;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// Opens ask for <c>O_NOATIME</c>, which the kernel refuses (EPERM) on files the process does not own; an
/// unprivileged scan of other users' files must not pay a second open for every file.
/// </summary>
public sealed class NoAtimeTests
{
    [LinuxFact(RequiresRoot = true, Tool = "strace")]
    [SupportedOSPlatform("linux")]
    public async Task An_unprivileged_scan_stops_asking_for_O_NOATIME_after_a_few_refusals()
    {
        // 40 pairs owned by root and readable by all, scanned by user nobody: 80 files, each opened for its probe
        // and again for the comparison.
        using var tree = new TempTree();
        using var cli = new CliAsNobody();
        for (var i = 0; i < 40; i++)
        {
            var content = TempTree.RandomBytes(20_000 + i, i);
            tree.Write($"data/a/{i}.bin", content);
            tree.Write($"data/b/{i}.bin", content);
        }

        CliAsNobody.MakeTraversable(tree.PathOf("data/a"));
        CliAsNobody.MakeTraversable(tree.PathOf("data/b"));
        var log = tree.PathOf("openat.log");

        var (exitCode, stdout, stderr) = await cli.RunAsync(["find", tree.PathOf("data"), "--format", "json"], straceLog: log);

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {stderr}");
        using var json = System.Text.Json.JsonDocument.Parse(stdout);
        Assert.Equal(40, json.RootElement.GetProperty("groups").GetArrayLength());
        var opens = File.ReadAllLines(log).Where(l => l.Contains(".bin\"", StringComparison.Ordinal)).ToList();
        var refused = opens.Count(l => l.Contains("O_NOATIME", StringComparison.Ordinal) && l.Contains("EPERM", StringComparison.Ordinal));
        Assert.True(opens.Count >= 80, $"only {opens.Count} opens of the data files were traced");
        Assert.InRange(refused, 1, Core.Scanning.ScanState.NoAtimeRefusalLimit + 2); // +2: opens already under way when the limit is reached
    }
}
