using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Selection;

/// <summary>
/// An <c>--include</c>/<c>--exclude</c> glob that matches nothing is a warning naming the glob to use (#37 point 6):
/// globs are relative to each root, so an absolute or current-folder path silently excluded nothing before.
/// </summary>
public sealed class PatternWarningTests
{
    [LinuxFact]
    public async Task An_absolute_exclude_under_the_root_warns_and_names_the_relative_glob()
    {
        using var tree = Tree();
        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--exclude", tree.PathOf("photos/tmp"), tree.PathOf("photos")]);

        Assert.Equal(0, exit);
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith($"dedup: warning: --exclude '{tree.PathOf("photos/tmp")}' matches nothing", line, StringComparison.Ordinal);
        Assert.EndsWith("use 'tmp')", line, StringComparison.Ordinal);
        Assert.Contains("tmp/b", stdout, StringComparison.Ordinal); // a warning only: the scan is what the options say
    }

    [Theory]
    [InlineData("./tmp", "can never match")]
    [InlineData("tmp/", "can never match")]
    [InlineData("../photos/tmp", "can never match")]
    [InlineData("photos/tmp", "matches nothing")]
    public async Task A_folder_relative_or_malformed_glob_warns(string pattern, string expected)
    {
        using var tree = Tree();
        var (exit, _, stderr) = await CliProcess.RunAsync(["find", "--exclude", pattern, "photos"], workingDirectory: tree.Root);

        Assert.Equal(0, exit);
        Assert.Contains($"dedup: warning: --exclude '{pattern}' {expected}", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Only_the_glob_that_matches_nothing_is_warned_of()
    {
        using var tree = Tree();
        var (exit, _, stderr) = await CliProcess.RunAsync(
            ["find", "--exclude", "tmp", "--exclude", "/tmp", "--exclude", "**/tmp", "--include", "tmp/b", "--include", "*.jpg", "--exclude", "./tmp", tree.PathOf("photos")]);

        Assert.Equal(0, exit);
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("dedup: warning: --exclude './tmp' can never match", line, StringComparison.Ordinal);
    }

    [LinuxFact]
    public async Task Delete_warns_before_its_plan()
    {
        using var tree = Tree();
        var (exit, _, stderr) = await CliProcess.RunAsync(["delete", "--dry-run", "--exclude", tree.PathOf("photos/tmp"), tree.PathOf("photos")]);

        Assert.Equal(0, exit);
        Assert.Contains("dedup: warning: --exclude", stderr, StringComparison.Ordinal);
    }

    private static TempTree Tree()
    {
        var tree = new TempTree();
        tree.Write("photos/a", "same");
        tree.Write("photos/tmp/b", "same");
        return tree;
    }
}
