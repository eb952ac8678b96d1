using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests;

/// <summary>
/// <c>--format paths0</c> (#37 point 6): the names as the kernel's exact bytes, NUL-ended, for <c>xargs -0</c>; with
/// <c>--keep</c> only those the rules would remove. Run through a real shell so that no byte passes through a .NET string.
/// </summary>
public sealed class PathsFormatTests
{
    private static readonly byte[] Latin1Name = "caf"u8.ToArray().Append((byte)0xE9).ToArray();

    [LinuxFact]
    public async Task Paths0_writes_every_duplicate_name_as_its_exact_bytes()
    {
        using var tree = Tree();
        var (exit, _, stderr) = await ShellAsync($"{Dedup("find", "--format", "paths0", tree.PathOf("d"))} > {Quote(tree.PathOf("out"))}");

        Assert.True(exit == 0, stderr);
        byte[] expected = [.. Name(tree, "d/a"), .. Name(tree, "d/"), .. Latin1Name, 0, .. Name(tree, "d/z/b"), .. Name(tree, "d/z/c")];
        Assert.Equal(expected, await File.ReadAllBytesAsync(tree.PathOf("out")));
    }

    [LinuxFact]
    public async Task Paths0_with_keep_feeds_xargs_rm_only_the_names_to_remove()
    {
        using var tree = Tree();
        var (exit, _, stderr) = await ShellAsync($"set -o pipefail; {Dedup("find", "--format", "paths0", "--keep", "path-order", tree.PathOf("d"))} | xargs -0 rm --");

        Assert.True(exit == 0, stderr);
        Assert.Equal(["a", "lonely", "z/b"], Directory.EnumerateFiles(tree.PathOf("d"), "*", SearchOption.AllDirectories).Select(f => Path.GetRelativePath(tree.PathOf("d"), f)).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task A_group_no_keep_rule_decides_writes_nothing_and_exits_3()
    {
        using var tree = Tree();
        var time = new DateTime(2024, 5, 1, 0, 0, 0, DateTimeKind.Utc);
        File.SetLastWriteTimeUtc(tree.PathOf("d/z/b"), time);
        File.SetLastWriteTimeUtc(tree.PathOf("d/z/c"), time); // equally old: "oldest" cannot decide

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--format", "paths0", "--keep", "oldest", tree.PathOf("d/z")]);

        Assert.Equal(3, exit);
        Assert.Equal(string.Empty, stdout);
        Assert.Contains("left out 1 groups where no --keep rule decides", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Keep_without_paths0_is_a_usage_error()
    {
        using var tree = Tree();
        var (exit, _, stderr) = await CliProcess.RunAsync(["find", "--keep", "oldest", tree.PathOf("d/z")]);

        Assert.Equal(2, exit);
        Assert.Contains("--format paths0", stderr, StringComparison.Ordinal);
    }

    /// <summary>Two groups (the larger first in the default order) and a file with no copy.</summary>
    private static TempTree Tree()
    {
        var tree = new TempTree();
        tree.Write("d/a", TempTree.RandomBytes(3000, 1));
        TempTree.Run("bash", "-c", $"cp {Quote(tree.PathOf("d/a"))} {Quote(tree.PathOf("d"))}/caf$'\\xe9'");
        tree.Write("d/z/b", TempTree.RandomBytes(1000, 2));
        tree.Write("d/z/c", TempTree.RandomBytes(1000, 2));
        tree.Write("d/lonely", TempTree.RandomBytes(500, 3));
        return tree;
    }

    private static byte[] Name(TempTree tree, string relative) =>
        [.. System.Text.Encoding.UTF8.GetBytes(tree.PathOf(relative)), .. relative.EndsWith('/') ? Array.Empty<byte>() : [0]];

    private static Task<(int ExitCode, string Stdout, string Stderr)> ShellAsync(string script) => ProcessRunner.RunAsync("bash", ["-c", script]);

    private static string Dedup(params string[] args) => string.Join(' ', new[] { CliProcess.Dotnet, CliProcess.Dll }.Concat(args).Select(Quote));

    private static string Quote(string word) => "'" + word.Replace("'", "'\\''", StringComparison.Ordinal) + "'";
}
