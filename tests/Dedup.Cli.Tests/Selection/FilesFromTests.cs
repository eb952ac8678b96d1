using System.Text.Json;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Selection;

/// <summary><c>--files-from FILE|-</c> (#37 point 6): the roots from a NUL- or newline-separated list, names as their exact bytes.</summary>
public sealed class FilesFromTests
{
    [LinuxFact]
    public async Task A_nul_separated_list_on_standard_input_is_scanned_with_its_exact_names()
    {
        using var tree = new TempTree();
        tree.Write("e/x", "same bytes");
        TempTree.Run("bash", "-c", $"mkdir {Quote(tree.Root)}/f$'\\xe9' && printf 'same bytes' > {Quote(tree.Root)}/f$'\\xe9'/y");

        var (exit, _, stderr) = await ShellAsync(
            $"printf '%s\\0' {Quote(tree.PathOf("e"))} {Quote(tree.Root)}/f$'\\xe9' | {Dedup("find", "--files-from", "-", "--format", "paths0")} > {Quote(tree.PathOf("out"))}");

        Assert.True(exit == 0, stderr);
        byte[] expected = [.. System.Text.Encoding.UTF8.GetBytes(tree.PathOf("e/x")), 0, .. System.Text.Encoding.UTF8.GetBytes(tree.Root + "/f"), 0xE9, .. "/y"u8, 0];
        Assert.Equal(expected, await File.ReadAllBytesAsync(tree.PathOf("out")));
    }

    [Fact]
    public async Task A_list_file_of_lines_adds_to_the_paths_given()
    {
        using var tree = new TempTree();
        tree.Write("a/x", "same bytes");
        tree.Write("b/y", "same bytes");
        tree.Write("c/z", "same bytes");
        var list = tree.Write("list.txt", $"{tree.PathOf("b")}\n\n{tree.PathOf("c")}\n");

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--format", "json", "--files-from", list, tree.PathOf("a")]);

        Assert.True(exit == 0, stderr);
        using var json = JsonDocument.Parse(stdout);
        Assert.Equal(3, json.RootElement.GetProperty("roots").GetArrayLength());
        Assert.Equal(3, json.RootElement.GetProperty("groups")[0].GetProperty("files").GetArrayLength());
    }

    [Fact]
    public async Task An_empty_list_and_no_path_is_a_usage_error()
    {
        using var tree = new TempTree();
        var list = tree.Write("list.txt", "\n");

        var (exit, _, stderr) = await CliProcess.RunAsync(["find", "--files-from", list]);

        Assert.Equal(2, exit);
        Assert.Contains("--files-from: the list names no path", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Delete_takes_its_paths_from_a_list_file_the_first_listed_being_the_first_root()
    {
        using var tree = new TempTree();
        tree.Write("a/x", "same bytes");
        tree.Write("b/y", "same bytes");
        var list = tree.Write("list.txt", $"{tree.PathOf("a")}\n{tree.PathOf("b")}\n");

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--files-from", list, "--yes"]);

        Assert.True(exit == 0, stderr + stdout);
        Assert.True(File.Exists(tree.PathOf("a/x")));
        Assert.False(File.Exists(tree.PathOf("b/y")));
    }

    [LinuxFact]
    public async Task Link_takes_a_nul_separated_list_on_standard_input_after_its_paths()
    {
        using var tree = new TempTree();
        tree.Write("a/x", "same bytes");
        tree.Write("b/y", "same bytes");

        var (exit, stdout, stderr) = await ShellAsync(
            $"printf '%s\\0' {Quote(tree.PathOf("b"))} | {Dedup("link", "--mode", "hard", "--yes", "--files-from", "-", tree.PathOf("a"))}");

        Assert.True(exit == 0, stderr + stdout);
        Assert.Equal(FileIdentityOf(tree.PathOf("a/x")), FileIdentityOf(tree.PathOf("b/y")));
    }

    [Fact]
    public async Task Acting_with_a_list_and_a_report_or_on_an_empty_list_is_a_usage_error()
    {
        using var tree = new TempTree();
        var list = tree.Write("list.txt", "\n");
        var report = tree.Write("report.json", "{}");

        var (exit, _, stderr) = await CliProcess.RunAsync(["delete", "--files-from", list, "--dry-run"]);
        Assert.Equal(2, exit);
        Assert.Contains("--files-from: the list names no path", stderr, StringComparison.Ordinal);

        (exit, _, stderr) = await CliProcess.RunAsync(["link", "--mode", "hard", "--files-from", list, "--from-report", report, "--dry-run"]);
        Assert.Equal(2, exit);
        Assert.Contains("--files-from names paths to scan", stderr, StringComparison.Ordinal);
    }

    private static string FileIdentityOf(string path) => ProcessRunner.RunChecked("stat", "-c", "%d:%i", path).Trim();

    private static Task<(int ExitCode, string Stdout, string Stderr)> ShellAsync(string script) => ProcessRunner.RunAsync("bash", ["-c", script]);

    private static string Dedup(params string[] args) => string.Join(' ', new[] { CliProcess.Dotnet, CliProcess.Dll }.Concat(args).Select(Quote));

    private static string Quote(string word) => "'" + word.Replace("'", "'\\''", StringComparison.Ordinal) + "'";
}
