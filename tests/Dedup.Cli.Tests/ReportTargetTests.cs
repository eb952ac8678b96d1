using System.Text.Json;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests;

/// <summary>
/// Where <c>-o</c> writes (#37 point 1): a file a shell already opened as a descriptor is written through it, never
/// renamed over; a report that cannot be written is found before the scan; a replaced report keeps owner and mode.
/// </summary>
public sealed class ReportTargetTests
{
    [LinuxTheory]
    [InlineData("/dev/stdout", ">>")]
    [InlineData("/proc/self/fd/1", ">>")]
    [InlineData("/dev/stderr", "2>>")]
    [InlineData("/proc/self/fd/3", "3>>")]
    public async Task A_log_the_shell_appends_to_keeps_its_file_and_what_it_held(string output, string redirect)
    {
        using var tree = Duplicates();
        var log = tree.Write("app.log", "before\n");
        var inode = Inode(log);
        var channel = redirect == ">>" ? string.Empty : $" >&{redirect[0]}";

        var (exit, _, stderr) = await ShellAsync($"{{ echo run{channel}; {Dedup("find", tree.PathOf("data"), "--summary", "-o", output)}; echo after{channel}; }} {redirect} {Quote(log)}");

        Assert.True(exit == 0, stderr);
        Assert.Equal(inode, Inode(log));
        var lines = File.ReadAllLines(log);
        Assert.Equal("before", lines[0]);
        Assert.Equal("run", lines[1]);
        Assert.StartsWith("1 groups, 1 duplicate files", lines[2], StringComparison.Ordinal);
        Assert.Equal("after", lines[3]);
    }

    [LinuxFact]
    public async Task A_report_to_dev_stdout_reaches_a_pipe()
    {
        using var tree = Duplicates();
        var (exit, stdout, stderr) = await ShellAsync($"set -o pipefail; {Dedup("find", "--format", "json", tree.PathOf("data"), "-o", "/dev/stdout")} | cat");

        Assert.True(exit == 0, stderr);
        using var json = JsonDocument.Parse(stdout);
        Assert.Equal(1, json.RootElement.GetProperty("groups").GetArrayLength());
    }

    [Fact]
    public async Task Dash_is_standard_output_not_a_file_named_dash()
    {
        using var tree = Duplicates();
        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--format", "json", "-o", "-", "data"], workingDirectory: tree.Root);

        Assert.True(exit == 0, stderr);
        using var json = JsonDocument.Parse(stdout);
        Assert.Equal(1, json.RootElement.GetProperty("groups").GetArrayLength());
        Assert.False(File.Exists(tree.PathOf("-")));
    }

    [LinuxFact]
    public async Task A_missing_output_folder_is_a_usage_error_before_the_scan()
    {
        using var tree = Duplicates();
        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "-o", tree.PathOf("missing/report.txt"), tree.PathOf("data")]);

        Assert.Equal(2, exit);
        Assert.Equal(string.Empty, stdout);
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains("no folder", line, StringComparison.Ordinal);
        Assert.False(Directory.Exists(tree.PathOf("missing")));
    }

    [LinuxFact(RequiresRoot = true)]
    public async Task A_replaced_report_keeps_its_owner_group_and_mode()
    {
        using var tree = Duplicates();
        var report = tree.Write("out/report.json", "the previous report");
        TempTree.Run("chown", "nobody:nogroup", report);
        TempTree.Run("chmod", "600", report);

        var (exit, _, stderr) = await CliProcess.RunAsync(["find", "--format", "json", "-o", report, tree.PathOf("data")]);

        Assert.True(exit == 0, stderr);
        Assert.Equal("nobody nogroup 600", ProcessRunner.RunChecked("stat", "-c", "%U %G %a", report).Trim());
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(report));
        Assert.Equal(1, json.RootElement.GetProperty("groups").GetArrayLength());
    }

    [LinuxFact]
    public async Task A_symbolic_link_given_to_o_is_refused_and_neither_it_nor_its_target_changes()
    {
        using var tree = Duplicates();
        tree.Write("reports/latest.json", "the previous report");
        Directory.CreateDirectory(tree.PathOf("out"));
        var link = tree.PathOf("out/report.json");
        File.CreateSymbolicLink(link, tree.PathOf("reports/latest.json"));

        var (exit, _, stderr) = await CliProcess.RunAsync(["find", "--format", "json", "-o", link, tree.PathOf("data")]);

        Assert.Equal(2, exit);
        Assert.Contains("symbolic link", stderr, StringComparison.Ordinal);
        Assert.Equal(tree.PathOf("reports/latest.json"), new FileInfo(link).LinkTarget);
        Assert.Equal("the previous report", await File.ReadAllTextAsync(tree.PathOf("reports/latest.json")));
    }

    private static TempTree Duplicates()
    {
        var tree = new TempTree();
        tree.Write("data/a", "same bytes");
        tree.Write("data/b", "same bytes");
        return tree;
    }

    private static string Inode(string path) => ProcessRunner.RunChecked("stat", "-c", "%d:%i", path).Trim();

    private static Task<(int ExitCode, string Stdout, string Stderr)> ShellAsync(string script) =>
        ProcessRunner.RunAsync("bash", ["-c", script]);

    private static string Dedup(params string[] args) => string.Join(' ', new[] { CliProcess.Dotnet, CliProcess.Dll }.Concat(args).Select(Quote));

    private static string Quote(string word) => "'" + word.Replace("'", "'\\''", StringComparison.Ordinal) + "'";
}
