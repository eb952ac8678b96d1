using Dedup.Core.Linking;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;

namespace Dedup.Cli.Tests.Undo;

/// <summary>
/// <c>dedup undo LOG</c> (issue #38 points 2, 4, 5): the plan in one line, <c>--dry-run</c> changes nothing, <c>--yes</c>
/// restores, a second run finds everything already restored; exit 1 when a name is left alone, 2 for a damaged journal,
/// for too little space and without confirmation.
/// </summary>
[Collection(SmallFsCollection.Name)]
public sealed class UndoCommandTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(30_000, 384);

    [LinuxFact]
    public async Task Dry_run_lists_the_steps_then_yes_restores_and_a_second_undo_has_nothing_to_do()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var journal = await HardLinkAsync(tree, logs);

        var (dryExit, dryOut, _) = await RunCliAsync("undo", journal, "--dry-run");

        Assert.Equal(0, dryExit);
        Assert.Contains($"restore {b} (hard link, 29.3 KiB)", dryOut, StringComparison.Ordinal);
        Assert.Contains("1 journalled action: 1 to restore (29.3 KiB to copy)", dryOut, StringComparison.Ordinal);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));

        var (exit, stdout, stderr) = await RunCliAsync("undo", journal, "--yes", "-v");

        Assert.Equal(0, exit);
        Assert.Equal(string.Empty, stderr);
        Assert.Contains($"restored {b}", stdout, StringComparison.Ordinal);
        Assert.Contains("1 restored, 0 already restored, 0 not done, 0 left alone, 0 irreversible, 0 failed", stdout, StringComparison.Ordinal);
        Assert.NotEqual(TestNative.Inode(a), TestNative.Inode(b));

        var (againExit, againOut, _) = await RunCliAsync("undo", journal, "--yes");

        Assert.Equal(0, againExit);
        Assert.Contains("1 journalled action: 0 to restore (0 B to copy), 1 already restored", againOut, StringComparison.Ordinal);
    }

    [LinuxFact]
    public async Task The_log_of_real_link_and_trash_runs_is_undone_newest_first()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var c = tree.Write("data/c.bin", Content);
        var journal = logs.PathOf("journal.jsonl");
        var home = new Dictionary<string, string> { ["XDG_DATA_HOME"] = tree.PathOf("home") };
        var (linked, _, _) = await CliProcess.RunAsync(["link", "--mode", "hard", "--yes", "--log", journal, tree.PathOf("data")], environment: home);
        Assert.Equal(0, linked);
        File.Delete(c); // by hand, since the run
        var d = tree.Write("data/d.bin", Content); // a new copy, which the next run trashes
        var (trashed, _, _) = await CliProcess.RunAsync(["delete", "--trash", "--yes", "--log", journal, tree.PathOf("data")], environment: home);
        Assert.Equal(0, trashed);
        Assert.False(File.Exists(d));

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["undo", journal, "--yes"], environment: home);

        Assert.Equal(1, exit); // c, deleted by hand, is left alone
        Assert.Contains("2 restored, 0 already restored, 0 not done, 1 left alone, 0 irreversible, 0 failed", stdout, StringComparison.Ordinal);
        Assert.Contains($"dedup: left alone {c}: no longer exists", stderr, StringComparison.Ordinal);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.Equal(Content, await File.ReadAllBytesAsync(d));
        Assert.NotEqual(TestNative.Inode(a), TestNative.Inode(b));
        Assert.Equal(1u, TestNative.LinkCount(a));
    }

    [LinuxFact(RequiresRoot = true)]
    public async Task Not_as_root_a_file_of_another_owner_is_left_alone_and_the_rest_restored()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var other = TempTree.RandomBytes(30_000, 387);
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content); // root's
        var x = tree.Write("data/x.bin", other);
        var y = tree.Write("data/y.bin", other); // nobody's
        TempTree.Run("chown", "65534:65534", x, y, tree.PathOf("data"));
        var journal = await HardLinkAsync(tree, logs);
        TempTree.Run("chown", "65534:65534", journal);
        CliAsNobody.MakeTraversable(tree.PathOf("data"));
        CliAsNobody.MakeTraversable(logs.Root);
        using var cli = new CliAsNobody();

        var (exit, stdout, stderr) = await cli.RunAsync(["undo", journal, "--yes"]);

        Assert.Equal(1, exit);
        Assert.Contains($"dedup: left alone {b}: owned by uid 0; only root can restore it", stderr, StringComparison.Ordinal);
        Assert.Contains("1 restored, 0 already restored, 0 not done, 1 left alone, 0 irreversible, 0 failed", stdout, StringComparison.Ordinal);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));
        Assert.NotEqual(TestNative.Inode(x), TestNative.Inode(y));
        Assert.Equal(0, TestNative.FileStatusOf(y, out var restored));
        Assert.Equal(65534u, restored.Uid);
        Assert.Equal(other, await File.ReadAllBytesAsync(y));
    }

    [LinuxFact]
    public async Task A_name_left_alone_exits_1_and_says_why()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        tree.Write("data/c.bin", Content);
        var journal = await HardLinkAsync(tree, logs);
        File.Delete(b);
        await File.WriteAllTextAsync(b, "new");

        var (exit, stdout, stderr) = await RunCliAsync("undo", journal, "--yes");

        Assert.Equal(1, exit);
        Assert.Contains($"dedup: left alone {b}: was replaced by another file since the action", stderr, StringComparison.Ordinal);
        Assert.Contains("1 restored, 0 already restored, 0 not done, 1 left alone, 0 irreversible, 0 failed", stdout, StringComparison.Ordinal);
        Assert.Equal("new", await File.ReadAllTextAsync(b));
    }

    [LinuxFact]
    public async Task A_damaged_journal_and_a_missing_confirmation_exit_2_changing_nothing()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var journal = await HardLinkAsync(tree, logs);

        var (noYes, _, noYesErr) = await RunCliAsync("undo", journal);

        Assert.Equal(2, noYes);
        Assert.Contains("refusing to change files without confirmation", noYesErr, StringComparison.Ordinal);

        var lines = await File.ReadAllLinesAsync(journal);
        await File.WriteAllLinesAsync(journal, [lines[0], "{not json", .. lines[1..]]);
        var (exit, _, stderr) = await RunCliAsync("undo", journal, "--yes");

        Assert.Equal(2, exit);
        Assert.StartsWith($"dedup: {journal}: line 2 is not a journal line", stderr, StringComparison.Ordinal);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));
    }

    [FactRequiringFolder("DEDUP_TEST_SMALLFS", "a small ext4 to run out of space on")]
    public async Task Too_little_space_exits_2_with_one_line_and_changes_nothing()
    {
        var big = TempTree.RandomBytes(10 << 20, 385);
        using var tree = new LinkTree(LinkTree.SmallMount);
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", big);
        var b = tree.Write("data/b.bin", big);
        var c = tree.Write("data/c.bin", big);
        var journal = await HardLinkAsync(tree, logs);
        var available = new DriveInfo(tree.Root).AvailableFreeSpace;
        TempTree.Run("fallocate", "-l", (available - (15 << 20)).ToString(System.Globalization.CultureInfo.InvariantCulture), tree.PathOf("filler"));

        var (exit, _, stderr) = await RunCliAsync("undo", journal, "--yes");

        Assert.Equal(2, exit);
        Assert.StartsWith("dedup: not enough space to undo: 20.0 MiB needed on the file system of ", Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries)), StringComparison.Ordinal);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(c));
    }

    private static async Task<string> HardLinkAsync(LinkTree tree, TempTree logs)
    {
        var journal = logs.PathOf("journal.jsonl");
        var groups = await tree.ScanAsync(tree.PathOf("data"));
        using var opened = ActionJournal.Open(journal);
        var report = await new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).UseJournal(opened).Build().Plan(groups).ApplyAsync();
        Assert.Equal(0, report.Failed + report.Skipped);
        return journal;
    }

    private static Task<(int ExitCode, string Stdout, string Stderr)> RunCliAsync(params string[] args) =>
        ProcessRunner.RunAsync(CliProcess.Dotnet, [CliProcess.Dll, .. args]);
}
