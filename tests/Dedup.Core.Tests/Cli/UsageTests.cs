using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Cli;

/// <summary>The real CLI: every command takes the same selection options, and a mistake is named, never taken for a folder.</summary>
public sealed class UsageTests
{
    [Theory]
    [InlineData("fnd", "unknown command 'fnd'; did you mean 'find'?")]
    [InlineData("find --summry", "unknown option '--summry' for 'dedup find'")]
    [InlineData("find --min-sise 1", "unknown option '--min-sise' for 'dedup find'; did you mean '--min-size'?")]
    [InlineData("link --mode hard --bogus", "unknown option '--bogus' for 'dedup link'")]
    [InlineData("delete -q", "unknown option '-q' for 'dedup delete'")]
    [InlineData("find --max-size 1K --min-size 2K", "--max-size (1024 bytes) is smaller than --min-size (2048 bytes)")]
    [InlineData("link --mode hard --include [abc", "The glob pattern '[abc' has an unclosed '[' at position 0.")]
    public async Task A_usage_mistake_is_one_line_naming_it_and_exit_code_2(string arguments, string expected)
    {
        using var tree = Tree();
        var (exit, stdout, stderr) = await CliProcess.RunAsync([.. arguments.Split(' '), tree.Root]);

        Assert.Equal(2, exit);
        Assert.Equal(string.Empty, stdout);
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("dedup: " + expected, line, StringComparison.Ordinal);
        Assert.DoesNotContain("Parameter", line, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Link_and_delete_take_the_selection_options_of_find()
    {
        using var tree = Tree();
        var (exit, stdout, stderr) = await CliProcess.RunAsync(["link", "--mode", "hard", "--dry-run", "--min-size", "1K", "--exclude", "skip/**", tree.Root]);
        Assert.True(exit == 0, stderr);
        Assert.Contains(tree.PathOf("big/a.bin"), stdout, StringComparison.Ordinal);
        Assert.DoesNotContain("small", stdout, StringComparison.Ordinal);
        Assert.DoesNotContain(tree.PathOf("skip"), stdout, StringComparison.Ordinal);

        (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--dry-run", "--hidden", "--max-size", "10", tree.Root]);
        Assert.True(exit == 0, stderr);
        Assert.Contains(tree.PathOf(".hidden/a"), stdout, StringComparison.Ordinal);
        Assert.DoesNotContain("big", stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_folder_named_like_an_option_is_scanned_after_a_double_dash()
    {
        using var tree = Tree();
        tree.Write("--odd/a", "copy");
        tree.Write("--odd/b", "copy");
        var folder = tree.PathOf("--odd");
        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--", "--odd"], workingDirectory: tree.Root);
        Assert.True(exit == 0, stderr);
        Assert.Contains(Path.Combine(folder, "a"), stdout, StringComparison.Ordinal);
    }

    private static TempTree Tree()
    {
        var tree = new TempTree();
        var big = TempTree.RandomBytes(4096, 1);
        tree.Write("big/a.bin", big);
        tree.Write("big/b.bin", big);
        tree.Write("skip/c.bin", big);
        tree.Write("small/a", "tiny");
        tree.Write("small/b", "tiny");
        tree.Write(".hidden/a", "dot");
        tree.Write(".hidden/b", "dot");
        return tree;
    }
}
