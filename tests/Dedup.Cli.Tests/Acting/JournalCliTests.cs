using System.Text.Json;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;

namespace Dedup.Cli.Tests.Acting;

/// <summary>
/// Issue #38: <c>--log</c> is the library's journal (begun lines written ahead, with the metadata undo needs), and
/// without it no call is made for one; <c>dedup delete</c> without <c>--trash</c> says, before anything is done and
/// after a dry run, that its deletions cannot be undone.
/// </summary>
public sealed class JournalCliTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(4_000, 3838);

    [LinuxFact]
    public async Task Log_writes_the_run_then_a_begun_line_with_the_metadata_before_each_outcome()
    {
        using var tree = new TempTree();
        using var logs = new TempTree();
        tree.Write("d/a.bin", Content);
        var b = tree.Write("d/b.bin", Content);
        TestNative.SetXattr(b, "user.tag", "x"u8.ToArray());
        Assert.Equal(0, TestNative.FileStatusOf(b, out var before));
        var log = logs.PathOf("actions.jsonl");

        var (exit, _, stderr) = await CliProcess.RunAsync(["delete", "--yes", "--keep", "path-order", "--log", log, tree.PathOf("d")]);

        Assert.True(exit == 0, stderr);
        var lines = File.ReadAllLines(log).Select(l => JsonDocument.Parse(l).RootElement).ToArray();
        Assert.Equal(["run", "begun", "done"], lines.Select(l => l.GetProperty("status").GetString()));
        Assert.Equal("delete", lines[0].GetProperty("kind").GetString());
        var was = lines[1].GetProperty("before");
        Assert.Equal(before.Ino, was.GetProperty("inode").GetUInt64());
        Assert.Equal(before.Mode, was.GetProperty("mode").GetInt32());
        Assert.Equal(before.LastWriteTimeNs, was.GetProperty("mtimeNs").GetInt64());
        Assert.Equal("x"u8.ToArray(), was.GetProperty("xattrs").GetProperty("user.tag").GetBytesFromBase64());
    }

    [RequiresToolFact("strace")]
    public async Task Without_log_no_call_is_made_for_the_journal_with_it_they_are()
    {
        Assert.Empty(await JournalCallsAsync(withLog: false));
        var calls = await JournalCallsAsync(withLog: true);
        Assert.Contains(calls, c => c.Contains("flistxattr(", StringComparison.Ordinal));
        Assert.Contains(calls, c => c.Contains("FS_IOC_GETFLAGS", StringComparison.Ordinal));
        Assert.Equal(2, calls.Count(c => c.Contains("fdatasync(", StringComparison.Ordinal))); // the run line and the one begun line
        Assert.Equal(2, calls.Count(c => c.Contains("fsync(", StringComparison.Ordinal))); // the new log file and its folder
    }

    [LinuxFact]
    public async Task A_dry_run_of_a_permanent_delete_says_it_cannot_be_undone_and_suggests_trash()
    {
        using var tree = new TempTree();
        tree.Write("d/a.bin", Content);
        tree.Write("d/b.bin", Content);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--dry-run", tree.PathOf("d")]);
        var (trashExit, _, trashStderr) = await CliProcess.RunAsync(["delete", "--trash", "--dry-run", tree.PathOf("d")]);

        Assert.True(exit == 0, stderr);
        Assert.Contains("delete " + tree.PathOf("d/b.bin"), stdout, StringComparison.Ordinal);
        Assert.Equal(
            "dedup: note: these deletions are permanent and cannot be undone; use 'dedup delete --trash' to be able to restore them",
            Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries)));
        Assert.True(trashExit == 0, trashStderr);
        Assert.DoesNotContain("cannot be undone", trashStderr, StringComparison.Ordinal);
    }

    [RequiresToolFact("script")]
    public async Task The_prompt_of_a_permanent_delete_says_it_cannot_be_undone_before_asking()
    {
        using var tree = new TempTree();
        tree.Write("d/a.bin", Content);
        tree.Write("d/b.bin", Content);
        var command = string.Join(' ', new[] { CliProcess.Dotnet, CliProcess.Dll, "delete", tree.PathOf("d") }.Select(a => "'" + a + "'"));

        var (exit, stdout, stderr) = await ProcessRunner.RunAsync("bash", ["-c", $"printf 'n\\n' | script -qec \"{command}\" /dev/null"]);
        var output = stdout + stderr;

        Assert.Equal(4, exit);
        var note = output.IndexOf("these deletions are permanent and cannot be undone; use 'dedup delete --trash' to be able to restore them", StringComparison.Ordinal);
        Assert.True(note >= 0, output);
        Assert.True(output.IndexOf("delete " + tree.PathOf("d/b.bin"), StringComparison.Ordinal) < note, output);
        Assert.True(note < output.IndexOf("Apply? [y/N]", StringComparison.Ordinal), output);
        Assert.True(File.Exists(tree.PathOf("d/b.bin")));
    }

    [RequiresToolFact("script")]
    public async Task A_declined_prompt_leaves_no_journal_behind_and_an_existing_one_as_it_was()
    {
        using var tree = new TempTree();
        using var logs = new TempTree();
        tree.Write("d/a.bin", Content);
        tree.Write("d/b.bin", Content);
        var fresh = logs.PathOf("new.jsonl");
        var existing = logs.Write("old.jsonl", string.Empty);

        foreach (var log in new[] { fresh, existing })
        {
            var command = string.Join(' ', new[] { CliProcess.Dotnet, CliProcess.Dll, "delete", "--log", log, tree.PathOf("d") }.Select(a => "'" + a + "'"));
            var (exit, stdout, stderr) = await ProcessRunner.RunAsync("bash", ["-c", $"printf 'n\\n' | script -qec \"{command}\" /dev/null"]);
            Assert.True(exit == 4, stdout + stderr);
        }

        Assert.False(File.Exists(fresh));
        Assert.True(File.Exists(existing));
        Assert.Equal(0, new FileInfo(existing).Length);
        Assert.True(File.Exists(tree.PathOf("d/b.bin")));
    }

    [LinuxFact]
    public async Task A_run_refused_for_want_of_a_terminal_or_with_nothing_to_do_leaves_no_journal_behind()
    {
        using var tree = new TempTree();
        using var logs = new TempTree();
        tree.Write("d/a.bin", Content);
        tree.Write("d/b.bin", Content);
        tree.Write("e/only.bin", Content);

        var (refused, _, refusedStderr) = await CliProcess.RunAsync(["delete", "--log", logs.PathOf("refused.jsonl"), tree.PathOf("d")]);
        var (idle, _, idleStderr) = await CliProcess.RunAsync(["delete", "--yes", "--log", logs.PathOf("idle.jsonl"), tree.PathOf("e")]);

        Assert.True(refused == 2, refusedStderr);
        Assert.Contains("standard input is not a terminal", refusedStderr, StringComparison.Ordinal);
        Assert.True(idle == 0, idleStderr);
        Assert.Empty(Directory.GetFileSystemEntries(logs.Root));
    }

    /// <summary>The calls only a journal makes (xattr listing, inode flags, syncs) in one delete run, traced with strace.</summary>
    private static async Task<string[]> JournalCallsAsync(bool withLog)
    {
        using var tree = new TempTree();
        using var logs = new TempTree();
        tree.Write("d/a.bin", Content);
        tree.Write("d/b.bin", Content);
        var trace = logs.PathOf("trace");
        string[] log = withLog ? ["--log", logs.PathOf("actions.jsonl")] : [];
        var (exit, _, stderr) = await ProcessRunner.RunAsync(
            "strace",
            ["-f", "-e", "trace=flistxattr,fgetxattr,llistxattr,ioctl,fdatasync,fsync", "-o", trace, CliProcess.Dotnet, CliProcess.Dll, "delete", "--yes", .. log, tree.PathOf("d")]);

        Assert.True(exit == 0, stderr);
        return File.ReadAllLines(trace).Where(l => l.Contains("xattr(", StringComparison.Ordinal) || l.Contains("sync(", StringComparison.Ordinal) || l.Contains("FS_IOC_GETFLAGS", StringComparison.Ordinal)).ToArray();
    }
}
