using System.Text;
using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Undo;

/// <summary>
/// Issue #38 point 2: each kind of action, done for real with a journal, then undone: the name is an independent
/// file again with the bytes and the metadata (mode, owner, times to the nanosecond, extended attributes) it had.
/// </summary>
public sealed class UndoKindTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(70_000, 380);

    [LinuxFact]
    public async Task Hard_link_undone_gives_the_name_its_own_file_with_the_logged_bytes_and_metadata()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        File.SetUnixFileMode(b, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead);
        File.SetUnixFileMode(a, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead);
        TestNative.SetXattr(b, "user.note", "mine"u8.ToArray());
        TempTree.Run("touch", "-m", "-d", "@1577934245.123456789", b);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, tree.PathOf("data"))).Done);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));

        var plan = UndoPlan.Create(journal);
        var step = Assert.Single(plan.Steps);
        Assert.Equal(b, step.Path);
        Assert.Equal("hardLink", step.Kind);
        Assert.Null(step.Note);
        Assert.Equal(Content.Length, step.Bytes);
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(UndoOutcome.Restored, outcome.Outcome);
        Assert.NotEqual(TestNative.Inode(a), TestNative.Inode(b));
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.Equal(0, TestNative.FileStatusOf(b, out var restored));
        Assert.Equal(0x8000 | 0x1A0, restored.Mode);
        Assert.Equal(1_577_934_245_123_456_789, restored.LastWriteTimeNs);
        Assert.Equal(1u, restored.NLink);
        Assert.Equal("mine", Encoding.UTF8.GetString(TestNative.GetXattr(b, "user.note")!));
        Assert.Equal(Content, await File.ReadAllBytesAsync(a));
        Assert.Empty(Directory.GetFiles(tree.PathOf("data"), ".dedup-tmp-*"));
    }

    [LinuxFact]
    public async Task Undo_twice_is_harmless_the_second_says_already_restored()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var journal = logs.PathOf("journal.jsonl");
        await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, tree.PathOf("data"));
        Assert.Equal(UndoOutcome.Restored, Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes).Outcome);
        var inode = TestNative.Inode(b);

        var again = UndoPlan.Create(journal);
        Assert.Equal("already restored", Assert.Single(again.Steps).Note);
        var outcome = Assert.Single((await again.ApplyAsync()).Outcomes);

        Assert.Equal(UndoOutcome.AlreadyRestored, outcome.Outcome);
        Assert.Equal(inode, TestNative.Inode(b));
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
    }

    [LinuxFact]
    public async Task Symbolic_link_undone_is_a_regular_file_again_copied_from_the_kept_file()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/sub/b.bin", Content);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, Linkers.SymbolicLink(relative: true), journal, tree.PathOf("data"))).Done);
        Assert.NotNull(new FileInfo(b).LinkTarget);

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.Restored, outcome.Outcome);
        Assert.Null(new FileInfo(b).LinkTarget);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.NotEqual(TestNative.Inode(a), TestNative.Inode(b));
    }

    [LinuxFact]
    public async Task A_symbolic_link_whose_kept_file_changed_since_is_left_alone()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/sub/b.bin", Content);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, Linkers.SymbolicLink(relative: true), journal, tree.PathOf("data"))).Done);
        TempTree.Run("touch", "-m", "-d", "@1400000000", a); // same bytes, but no longer provably the logged ones

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.Equal($"kept file {a} changed since the action; its bytes are no longer the logged ones", outcome.Reason);
        Assert.NotNull(new FileInfo(b).LinkTarget);
    }

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs, which can clone and dedupe")]
    public async Task Clone_and_dedupe_undone_give_each_name_its_own_unshared_copy()
    {
        foreach (var linker in new[] { Linkers.Clone, Linkers.Dedupe })
        {
            using var tree = new LinkTree(LinkTree.BtrfsMount);
            using var logs = new TempTree();
            tree.Write("data/a.bin", Content);
            var b = tree.Write("data/b.bin", Content);
            TempTree.Run("touch", "-m", "-d", "@1600000000.5", b);
            var journal = logs.PathOf("journal.jsonl");
            Assert.Equal(1, (await UndoFixtures.ActAsync(tree, linker, journal, tree.PathOf("data"))).Done);
            var inode = TestNative.Inode(b);

            var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

            Assert.Equal(UndoOutcome.Restored, outcome.Outcome);
            Assert.NotEqual(inode, TestNative.Inode(b)); // a new file: its extents are its own
            Assert.Equal(Content, await File.ReadAllBytesAsync(b));
            Assert.Equal(0, TestNative.FileStatusOf(b, out var restored));
            Assert.Equal(1_600_000_000_500_000_000, restored.LastWriteTimeNs);
        }
    }

    [LinuxFact]
    public async Task Trash_undone_moves_the_same_file_back_and_removes_its_info_file()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var home = PrepareTrash(tree);
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var inode = TestNative.Inode(b);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, new TrashLinker(home), journal, tree.PathOf("data"))).Done);
        Assert.False(File.Exists(b));

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.Restored, outcome.Outcome);
        Assert.Equal(inode, TestNative.Inode(b));
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.Empty(Directory.GetFileSystemEntries(Path.Combine(home, "files")));
        Assert.Empty(Directory.GetFileSystemEntries(Path.Combine(home, "info")));
        Assert.Equal(UndoOutcome.AlreadyRestored, Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes).Outcome);
        Assert.Equal(inode, TestNative.Inode(b));
    }

    [LinuxFact]
    public async Task Delete_is_listed_as_irreversible_and_nothing_is_made_up()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, Linkers.Delete, journal, tree.PathOf("data"))).Done);

        var plan = UndoPlan.Create(journal);
        Assert.StartsWith("irreversible: deleted permanently", Assert.Single(plan.Steps).Note, StringComparison.Ordinal);
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(UndoOutcome.Irreversible, outcome.Outcome);
        Assert.False(File.Exists(b));
    }

    [LinuxFact]
    public async Task A_trashed_folder_comes_back_with_its_files_its_mode_and_its_times()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var home = PrepareTrash(tree);
        tree.Write("data/a_keep/x.bin", Content);
        tree.Write("data/a_keep/y.bin", Content.Reverse().ToArray());
        var x = tree.Write("data/b_copy/x.bin", Content);
        var y = tree.Write("data/b_copy/y.bin", Content.Reverse().ToArray());
        var copy = tree.PathOf("data/b_copy");
        File.SetUnixFileMode(copy, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute | UnixFileMode.GroupRead | UnixFileMode.GroupExecute);
        TempTree.Run("touch", "-m", "-d", "@1500000000.25", copy);
        TempTree.Run("touch", "-m", "-d", "@1400000000.75", tree.PathOf("data"));
        Assert.Equal(0, TestNative.FileStatusOf(copy, out var folderBefore));
        var journal = logs.PathOf("journal.jsonl");
        var scan = new DuplicateFinderBuilder().AddRoot(tree.PathOf("data")).UseFolderMode().Build().FindAsync();
        await foreach (var _ in scan)
        {
        }

        using (var opened = Dedup.Core.Linking.Journal.ActionJournal.Open(journal))
        {
            var planner = new DuplicateActionPlanBuilder().UseLinker(new TrashLinker(home)).Keep(KeepRule.PathOrder).UseJournal(opened).Build();
            var report = await planner.PlanFolders(scan.FolderGroups).ApplyAsync();
            Assert.Equal(1, report.Done);
        }

        Assert.False(Directory.Exists(copy));

        var outcomes = (await UndoFixtures.UndoAsync(journal)).Outcomes;

        Assert.Equal("removeFolder", outcomes[0].Step.Kind); // newest first: the folder before its files
        Assert.All(outcomes, o => Assert.Equal(UndoOutcome.Restored, o.Outcome));
        Assert.Equal(Content, await File.ReadAllBytesAsync(x));
        Assert.Equal(Content.Reverse().ToArray(), await File.ReadAllBytesAsync(y));
        Assert.Equal(0, TestNative.FileStatusOf(copy, out var folderAfter));
        Assert.Equal(folderBefore.Mode, folderAfter.Mode);
        // The times it had before the run (its files' begun lines hold them, as their folder's), set after its files
        // came back; and its parent's, which its removal and its making again moved.
        Assert.Equal(folderBefore.LastWriteTimeNs, folderAfter.LastWriteTimeNs);
        Assert.Equal(0, TestNative.FileStatusOf(tree.PathOf("data"), out var parentAfter));
        Assert.Equal(1_400_000_000_750_000_000, parentAfter.LastWriteTimeNs);
        Assert.All((await UndoFixtures.UndoAsync(journal)).Outcomes, o => Assert.Equal(UndoOutcome.AlreadyRestored, o.Outcome));
        Assert.Equal(folderAfter.Ino, TestNative.Inode(copy));
    }

    internal static string PrepareTrash(LinkTree tree)
    {
        var home = tree.PathOf("home/Trash");
        Directory.CreateDirectory(Path.Combine(home, "files"));
        Directory.CreateDirectory(Path.Combine(home, "info"));
        UndoEngine.HomeTrash.Value = home; // the trash undo accepts is the one this test's trash linker used
        return home;
    }
}
