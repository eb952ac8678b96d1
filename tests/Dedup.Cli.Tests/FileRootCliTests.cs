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
    public async Task A_report_file_root_whose_folder_link_now_leads_to_another_snapshot_is_left_alone()
    {
        // rsnapshot-like: the same file (one inode) in two snapshots, `latest` naming the first when the report is made.
        using var tree = new TempTree();
        tree.Write("e/u.bin", "same bytes");
        var first = tree.Write("snap1/u.bin", "same bytes");
        var second = tree.HardLink("snap1/u.bin", "snap2/u.bin");
        File.CreateSymbolicLink(tree.PathOf("latest"), tree.PathOf("snap1"));
        var report = tree.PathOf("report.json");
        var (found, _, findErrors) = await CliProcess.RunAsync(["find", "--format", "json", "-o", report, tree.PathOf("e"), tree.PathOf("latest/u.bin")]);
        Assert.True(found == 0, findErrors);
        File.Delete(tree.PathOf("latest"));
        File.CreateSymbolicLink(tree.PathOf("latest"), tree.PathOf("snap2"));

        var (_, stdout, stderr) = await CliProcess.RunAsync(["delete", "--yes", "--from-report", report, "--keep", "prefix:" + tree.PathOf("e")]);

        Assert.True(File.Exists(first), stderr + stdout);
        Assert.True(File.Exists(second), "a name that was never scanned was deleted: " + stderr + stdout);
        Assert.Contains("its folder is no longer the folder that was scanned", stderr + stdout, StringComparison.Ordinal);
    }

    [LinuxFact]
    public async Task A_leftover_temporary_file_beside_a_file_root_is_removed()
    {
        using var tree = new TempTree();
        tree.Write("e/u.bin", "same bytes");
        var root = tree.Write("d/u.bin", "same bytes");
        var leftover = tree.Write("d/.dedup-tmp-0123456789abcdef0123456789abcdef", "same bytes");

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--yes", tree.PathOf("e"), root]);

        Assert.True(exit == 0, stderr + stdout);
        Assert.False(File.Exists(leftover), stderr + stdout);
        Assert.DoesNotContain("not under any scanned root", stderr, StringComparison.Ordinal);
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
