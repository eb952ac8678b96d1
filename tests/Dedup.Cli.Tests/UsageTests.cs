using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests;

/// <summary>The real CLI: every command takes the same selection options, and a mistake is named, never taken for a folder.</summary>
public sealed class UsageTests
{
    [Theory]
    [InlineData("fnd", "unknown command 'fnd'; did you mean 'find'?")]
    [InlineData("find --summry", "unknown option '--summry' for 'dedup find'")]
    [InlineData("find --min-sise 1", "unknown option '--min-sise' for 'dedup find'; did you mean '--min-size'?")]
    [InlineData("find --include --bogus", "unknown option '--bogus' for 'dedup find'")]
    [InlineData("find --min-size -x", "unknown option '-x' for 'dedup find'")]
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

    [Theory]
    [InlineData("find --min-size 1.5K", "--min-size: '1.5K' is not a size (a whole number of bytes")]
    [InlineData("find --min-size 1E", "--min-size: '1E' is not a size")]
    [InlineData("find --min-size 0x10", "--min-size: '0x10' is not a size")]
    [InlineData("find --min-size -1", "--min-size: '-1' is not a size")]
    [InlineData("find --min-size=-1", "--min-size: '-1' is not a size")]
    [InlineData("find --min-size +5", "--min-size: '+5' is not a size")]
    [InlineData("find --min-size K", "--min-size: 'K' is not a size")]
    [InlineData("find --min-size 1,000", "--min-size: '1,000' is not a size")]
    [InlineData("find --max-size 10Q", "--max-size: '10Q' is not a size")]
    [InlineData("find --max-size 8388608T", "--max-size: '8388608T' is too large (at most 9223372036854775807 bytes")]
    [InlineData("find --max-size 9223372036854775808", "--max-size: '9223372036854775808' is not a size")]
    [InlineData("find --threads 3000000000", "--threads: '3000000000' is not a thread count (a whole number from 1 to 1024)")]
    [InlineData("find --threads 100000", "--threads: '100000' is not a thread count")]
    [InlineData("find --threads 20000", "--threads: '20000' is not a thread count")]
    [InlineData("find --threads 1025", "--threads: '1025' is not a thread count")]
    [InlineData("find --threads 0", "--threads: '0' is not a thread count")]
    [InlineData("find --threads -1", "--threads: '-1' is not a thread count")]
    [InlineData("find --threads 2.5", "--threads: '2.5' is not a thread count")]
    [InlineData("link --mode hard --threads 3000000000", "--threads: '3000000000' is not a thread count")]
    [InlineData("delete --dry-run --min-size 1.5K", "--min-size: '1.5K' is not a size")]
    public async Task A_malformed_or_out_of_range_number_is_one_usage_line_and_nothing_is_scanned(string arguments, string expected)
    {
        using var tree = Tree();
        var (exit, stdout, stderr) = await CliProcess.RunAsync([.. arguments.Split(' '), tree.Root]);

        Assert.Equal(2, exit);
        Assert.Equal(string.Empty, stdout); // a scan of the tree would list its groups
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("dedup: " + expected, line, StringComparison.Ordinal);
        Assert.DoesNotContain("Exception", line, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--threads", "1024")]
    [InlineData("--threads", "1")]
    [InlineData("--min-size", "8388607T")]
    [InlineData("--max-size", "8388607t")]
    [InlineData("--max-size", "9223372036854775807")]
    public async Task A_number_at_the_edge_of_its_range_is_accepted(string option, string value)
    {
        using var tree = Tree();
        var (exit, _, stderr) = await CliProcess.RunAsync(["find", option, value, tree.Root]);
        Assert.True(exit == 0, stderr);
    }

    [Theory]
    [InlineData("find", "-o", "--output")]
    [InlineData("find", "--cache", "--cache")]
    [InlineData("delete", "--from-report", "--from-report")]
    [InlineData("delete", "--log", "--log")]
    [InlineData("link", "--log", "--log")]
    public async Task A_file_option_naming_a_folder_is_one_usage_line_and_nothing_is_scanned_or_changed(string command, string option, string name)
    {
        using var tree = Tree();
        var folder = tree.PathOf("a folder");
        Directory.CreateDirectory(folder);
        string[] arguments = (command, option) switch
        {
            (_, "--from-report") => [command, "--yes", option, folder],
            ("find", _) => [command, option, folder, tree.Root],
            ("link", _) => [command, "--mode", "symbolic", "--yes", option, folder, tree.Root],
            _ => [command, "--yes", option, folder, tree.Root],
        };

        var (exit, stdout, stderr) = await CliProcess.RunAsync(arguments);

        Assert.Equal(2, exit);
        Assert.Equal(string.Empty, stdout);
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith($"dedup: {name}: '{folder}' is a folder; give a file", line, StringComparison.Ordinal);
        Assert.Empty(Directory.GetFileSystemEntries(folder));
        Assert.Equal(7, Directory.GetFiles(tree.Root, "*", SearchOption.AllDirectories).Length); // nothing deleted or linked
        Assert.DoesNotContain(Directory.GetFiles(tree.Root, "*", SearchOption.AllDirectories), f => new FileInfo(f).LinkTarget is not null);
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
