using System.Text.Json;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests;

/// <summary>
/// Files as PATHs (#37 point 6), as jdupes, fdupes and rmlint take them: compared with the rest, acted on as
/// themselves and nothing beside them, from a scan, a list or a report; a FIFO is refused in one line.
/// </summary>
public sealed class FileRootCliTests
{
    [LinuxFact]
    public async Task Find_compares_files_given_as_paths_with_a_folders_files()
    {
        using var tree = new TempTree();
        tree.Write("dir/x.bin", "same bytes");
        var a = tree.Write("loose/a.bin", "same bytes");
        var b = tree.Write("loose/b.bin", "same bytes");
        tree.Write("loose/beside.bin", "same bytes");

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--format", "json", a, b, tree.PathOf("dir")]);

        Assert.True(exit == 0, stderr);
        using var json = JsonDocument.Parse(stdout);
        Assert.Equal(3, json.RootElement.GetProperty("roots").GetArrayLength());
        var paths = json.RootElement.GetProperty("groups")[0].GetProperty("files").EnumerateArray().Select(f => f.GetProperty("path").GetString()).Order(StringComparer.Ordinal);
        Assert.Equal([tree.PathOf("dir/x.bin"), a, b], paths);
    }

    [LinuxFact]
    public async Task Delete_with_a_file_path_removes_that_file_and_nothing_beside_it()
    {
        using var tree = new TempTree();
        tree.Write("dir/x.bin", "same bytes");
        var a = tree.Write("loose/a.bin", "same bytes");
        tree.Write("loose/beside.bin", "same bytes");

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--yes", tree.PathOf("dir"), a]);

        Assert.True(exit == 0, stderr + stdout);
        Assert.False(File.Exists(a));
        Assert.True(File.Exists(tree.PathOf("dir/x.bin")));
        Assert.Equal("same bytes", File.ReadAllText(tree.PathOf("loose/beside.bin")));
    }

    [LinuxFact]
    public async Task A_file_as_the_first_path_is_the_one_kept_by_default()
    {
        using var tree = new TempTree();
        var a = tree.Write("loose/a.bin", "same bytes");
        tree.Write("dir/x.bin", "same bytes");

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["link", "--mode", "hard", "--yes", a, tree.PathOf("dir")]);

        Assert.True(exit == 0, stderr + stdout);
        Assert.Equal(Inode(a), Inode(tree.PathOf("dir/x.bin")));
    }

    [LinuxFact]
    public async Task A_report_with_a_file_root_is_acted_on_for_that_file_only()
    {
        using var tree = new TempTree();
        tree.Write("dir/x.bin", "same bytes");
        var a = tree.Write("loose/a.bin", "same bytes");
        tree.Write("loose/beside.bin", "same bytes");
        var report = tree.PathOf("report.json");
        var (found, _, findErrors) = await CliProcess.RunAsync(["find", "--format", "json", "-o", report, a, tree.PathOf("dir")]);
        Assert.True(found == 0, findErrors);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--yes", "--from-report", report, "--keep", "prefix:" + tree.PathOf("dir")]);

        Assert.True(exit == 0, stderr + stdout);
        Assert.False(File.Exists(a));
        Assert.True(File.Exists(tree.PathOf("loose/beside.bin")));
    }

    [LinuxFact]
    public async Task Files_listed_by_find_print0_are_acted_on()
    {
        using var tree = new TempTree();
        tree.Write("dir/x.bin", "same bytes");
        tree.Write("loose/a.bin", "same bytes");
        tree.Write("loose/keep-me.bin", "same bytes");

        var (exit, stdout, stderr) = await ProcessRunner.RunAsync("bash", ["-c",
            $"find {Quote(tree.PathOf("loose"))} -name 'a*' -print0 | {string.Join(' ', new[] { CliProcess.Dotnet, CliProcess.Dll, "delete", "--yes", "--files-from", "-", tree.PathOf("dir") }.Select(Quote))}"]);

        Assert.True(exit == 0, stderr + stdout);
        Assert.False(File.Exists(tree.PathOf("loose/a.bin")));
        Assert.True(File.Exists(tree.PathOf("loose/keep-me.bin")));
    }

    [LinuxFact]
    public async Task A_fifo_given_as_a_path_is_refused_in_one_line_and_nothing_changes()
    {
        using var tree = new TempTree();
        tree.Write("dir/x.bin", "same bytes");
        tree.Write("dir/y.bin", "same bytes");
        var fifo = tree.PathOf("pipe");
        TempTree.Run("mkfifo", fifo);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--yes", tree.PathOf("dir"), fifo]);

        Assert.Equal(2, exit);
        Assert.Equal($"dedup: The root '{fifo}' is not a regular file or folder (a FIFO, socket or device is never opened).\n", stderr);
        Assert.Equal(string.Empty, stdout);
        Assert.True(File.Exists(tree.PathOf("dir/y.bin")));
    }

    private static string Inode(string path) => ProcessRunner.RunChecked("stat", "-c", "%d:%i", path).Trim();

    private static string Quote(string word) => "'" + word.Replace("'", "'\\''", StringComparison.Ordinal) + "'";
}
