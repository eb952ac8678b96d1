using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking.Journal;

namespace Dedup.Core.Tests.Linking.Undo;

/// <summary>
/// Issue #38 point 3, folders: the forward action's renames and unlinks move their folder's modification time, and so
/// do undo's own; undo gives each folder back the times it had before the run (to the nanosecond), but never over a
/// change someone else made since, and only once every journalled step in it is restored.
/// </summary>
public sealed class UndoFolderTimesTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(40_000, 3838);
    private static readonly byte[] Other = TempTree.RandomBytes(30_000, 3839);

    private const long FolderMtime = 1_577_934_245_123_456_789;

    [LinuxFact]
    public async Task A_hard_link_undone_gives_its_folder_back_its_modification_time_to_the_nanosecond()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("data/a.bin", Content);
        tree.Write("data/b.bin", Content);
        var folder = tree.PathOf("data");
        SetMtime(folder);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, folder)).Done);
        Assert.NotEqual(FolderMtime, Mtime(folder));

        // The begun line holds the folder as it was before the action; the outcome what the step left.
        var lines = JournalText.Read(journal);
        var parent = JournalText.Begun(lines).GetProperty("parent");
        Assert.Equal(TestNative.Inode(folder), parent.Unsigned("inode"));
        Assert.Equal(FolderMtime, parent.Number("mtimeNs"));
        var left = Mtime(folder);
        Assert.Equal(left, Assert.Single(lines, l => l.Text("status") == "done").Number("parentMtimeNs"));

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.Restored, outcome.Outcome);
        Assert.Null(outcome.Reason);
        Assert.Equal(FolderMtime, Mtime(folder));

        // A repeat undo changes nothing, the folder's times included (setting them would move its change time).
        var changed = Ctime(folder);
        var again = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);
        Assert.Equal(UndoOutcome.AlreadyRestored, again.Outcome);
        Assert.Null(again.Reason);
        Assert.Equal(FolderMtime, Mtime(folder));
        Assert.Equal(changed, Ctime(folder));
    }

    [LinuxFact]
    public async Task A_folder_changed_after_the_run_keeps_its_new_modification_time_and_the_step_says_why()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var folder = tree.PathOf("data");
        SetMtime(folder);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, folder)).Done);
        tree.Write("data/new.txt", "mine"u8.ToArray()); // the user's change to the folder after the run
        TempTree.Run("touch", "-m", "-d", "@1700000000.5", folder);

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.Restored, outcome.Outcome);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.Equal(1_700_000_000_500_000_000, Mtime(folder));
        Assert.Contains("its folder was changed since the journal's last record of it", outcome.Reason, StringComparison.Ordinal);

        // A repeat undo keeps it so.
        await UndoFixtures.UndoAsync(journal);
        Assert.Equal(1_700_000_000_500_000_000, Mtime(folder));
    }

    [LinuxFact]
    public async Task Undo_of_half_a_folder_with_only_leaves_its_modification_time_alone_until_the_rest_is_undone()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        tree.Write("data/c.bin", Other);
        var d = tree.Write("data/d.bin", Other);
        var folder = tree.PathOf("data");
        SetMtime(folder);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(2, (await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, folder)).Done);

        var half = Assert.Single((await UndoFixtures.UndoAsync(journal, b)).Outcomes);

        Assert.Equal(UndoOutcome.Restored, half.Outcome);
        Assert.NotEqual(TestNative.Inode(tree.PathOf("data/a.bin")), TestNative.Inode(b));
        Assert.Equal(TestNative.Inode(tree.PathOf("data/c.bin")), TestNative.Inode(d));
        Assert.NotEqual(FolderMtime, Mtime(folder));

        var rest = await UndoFixtures.UndoAsync(journal);

        Assert.Equal([UndoOutcome.Restored, UndoOutcome.AlreadyRestored], rest.Outcomes.Select(o => o.Outcome).OrderBy(o => o));
        Assert.All(rest.Outcomes, o => Assert.Null(o.Reason));
        Assert.Equal(FolderMtime, Mtime(folder));
    }

    private static void SetMtime(string folder, long ns = FolderMtime) =>
        TempTree.Run("touch", "-m", "-d", $"@{ns / 1_000_000_000}.{ns % 1_000_000_000:D9}", folder);

    private static long Mtime(string path)
    {
        Assert.Equal(0, TestNative.FileStatusOf(path, out var status));
        return status.LastWriteTimeNs;
    }

    private static (long, uint) Ctime(string path)
    {
        Assert.Equal(0, TestNative.FileStatusOf(path, out var status));
        return (status.CtimeSec, status.CtimeNsec);
    }
}
