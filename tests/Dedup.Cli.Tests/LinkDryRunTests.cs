using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;

namespace Dedup.Cli.Tests;

/// <summary>
/// <c>dedup link --mode clone --dry-run</c> on the small ext4 (<c>DEDUP_TEST_SMALLFS</c>), which cannot clone: the dry
/// run lists every refusal the real run makes and promises no bytes (issue #13). In the small file system's collection:
/// another test fills it up.
/// </summary>
[Collection(SmallFsCollection.Name)]
public sealed class LinkDryRunTests
{
    private const string Small = "DEDUP_TEST_SMALLFS";
    private static readonly byte[] Content = TempTree.RandomBytes(30_000, 151);

    [FactRequiringFolder(Small, "a mounted ext4, which cannot clone")]
    public async Task A_clone_dry_run_on_ext4_lists_the_refusals_the_real_run_makes()
    {
        using var tree = new LinkTree(LinkTree.SmallMount);
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var c = tree.Write("c.bin", Content);

        var (exit, stdout, _) = await RunCliAsync("link", "--mode", "clone", "--dry-run", tree.Root);

        Assert.Equal(0, exit);
        var skips = stdout.Split('\n').Where(l => l.StartsWith("  skip ", StringComparison.Ordinal)).ToList();
        Assert.Equal(2, skips.Count);
        Assert.All(skips, l => Assert.EndsWith(": the file system cannot clone this file (FICLONE: Operation not supported); no copy or link is made instead", l, StringComparison.Ordinal));
        Assert.Contains("2 actions, 0 B (0 bytes) to reclaim", stdout, StringComparison.Ordinal);

        var (realExit, realStdout, stderr) = await RunCliAsync("link", "--mode", "clone", "--yes", tree.Root);

        Assert.Equal(1, realExit);
        Assert.Contains("2 actions (copy-on-write clone), 2 of them refused (see --dry-run), 0 B to reclaim", realStdout, StringComparison.Ordinal);
        // #37 pt8: the refusal applies to the whole file system: said once, up front, not once per file; each is still skipped.
        Assert.DoesNotContain("dedup: skipped ", stderr, StringComparison.Ordinal);
        Assert.Equal(
            $"dedup: skipping 2 files on the file system of {tree.Root}: the file system cannot clone this file (FICLONE: Operation not supported); no copy or link is made instead",
            Assert.Single(stderr.Split('\n'), l => l.StartsWith("dedup: skipping ", StringComparison.Ordinal)));
        Assert.Contains("0 done, 2 skipped, 0 failed", realStdout, StringComparison.Ordinal);
        Assert.Equal(Content, File.ReadAllBytes(b));
        Assert.Equal(Content, File.ReadAllBytes(c));
    }

    [FactRequiringFolder(Small, "a mounted ext4, which cannot clone")]
    public async Task One_refused_clone_is_said_once_in_the_singular()
    {
        using var tree = new LinkTree(LinkTree.SmallMount);
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);

        var (exit, stdout, stderr) = await RunCliAsync("link", "--mode", "clone", "--yes", tree.Root);

        Assert.Equal(1, exit);
        Assert.Contains("1 action (copy-on-write clone), 1 of them refused (see --dry-run), 0 B to reclaim", stdout, StringComparison.Ordinal);
        Assert.StartsWith($"dedup: skipping 1 file on the file system of {tree.Root}: ", Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries)), StringComparison.Ordinal);
    }

    private static async Task<(int ExitCode, string Stdout, string Stderr)> RunCliAsync(params string[] args)
    {
        var dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? RequiresToolFactAttribute.FindOnPath("dotnet") ?? "dotnet";
        return await ProcessRunner.RunAsync(dotnet, [Path.Combine(AppContext.BaseDirectory, "dedup.dll"), .. args]);
    }
}
