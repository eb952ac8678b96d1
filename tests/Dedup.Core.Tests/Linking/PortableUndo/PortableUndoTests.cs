using System.Text;
using System.Text.Json.Nodes;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking.Undo;

namespace Dedup.Core.Tests.Linking.PortableUndo;

/// <summary>
/// Issue #38 on Windows and macOS: the portable undo engine (what <c>dedup undo</c> runs there), run here on real files
/// through its test seam. Its journals are the portable path's: the trash through <see cref="PlanExecutor.ApplyPortableTracked"/>
/// with a stand-in Recycle Bin; links from a Linux run whose <c>before</c> is cut to what the portable checks record
/// (identity, size, modification time), the files' times whole seconds as the portable clock reads them.
/// </summary>
public sealed class PortableUndoTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(70_000, 3801);

    [LinuxFact]
    public async Task Hard_link_undone_by_the_portable_engine_is_an_independent_file_with_the_bytes_and_time()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (a, b, journal) = await HardLinkedAsync(tree, logs);

        var plan = Portable(() => UndoPlan.Create(journal));
        var step = Assert.Single(plan.Steps);
        Assert.Null(step.Note);
        Assert.Equal(Content.Length, step.Bytes);
        Assert.Equal(18 * 4096, Assert.Single(plan.Space).Needed); // one copy, in 4 KiB blocks
        var outcome = Assert.Single((await ApplyAsync(plan)).Outcomes);

        Assert.True(outcome.Outcome == UndoOutcome.Restored, outcome.ToString());
        Assert.NotEqual(TestNative.Inode(a), TestNative.Inode(b));
        Assert.Equal(1u, TestNative.LinkCount(b));
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.Equal(Content, await File.ReadAllBytesAsync(a));
        Assert.Equal(Seconds, File.GetLastWriteTimeUtc(b));
        Assert.Empty(Directory.GetFiles(tree.PathOf("data"), ".dedup-tmp-*"));
        Assert.Contains(File.ReadLines(journal), l => l.Contains("\"status\":\"undone\"", StringComparison.Ordinal));
    }

    [LinuxFact]
    public async Task Portable_undo_twice_is_harmless_the_second_says_already_restored()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (_, b, journal) = await HardLinkedAsync(tree, logs);
        Assert.Equal(UndoOutcome.Restored, Assert.Single((await ApplyAsync(Portable(() => UndoPlan.Create(journal)))).Outcomes).Outcome);
        var restored = TestNative.Inode(b);

        var again = Portable(() => UndoPlan.Create(journal));
        Assert.Equal("already restored", Assert.Single(again.Steps).Note);
        var outcome = Assert.Single((await ApplyAsync(again)).Outcomes);

        Assert.Equal(UndoOutcome.AlreadyRestored, outcome.Outcome);
        Assert.Equal(restored, TestNative.Inode(b));
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
    }

    [LinuxFact]
    public async Task A_name_modified_after_the_run_is_left_alone_with_the_reason()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (a, b, journal) = await HardLinkedAsync(tree, logs);
        File.SetLastWriteTimeUtc(b, Seconds.AddDays(1)); // through either name: the one shared file

        var outcome = Assert.Single((await ApplyAsync(Portable(() => UndoPlan.Create(journal)))).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.Equal("was modified since the action", outcome.Reason);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));
        Assert.Empty(Directory.GetFiles(tree.PathOf("data"), ".dedup-tmp-*"));
    }

    [LinuxFact]
    public async Task A_name_replaced_between_the_undone_line_and_the_rename_is_left_alone_and_the_copy_removed()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (a, b, journal) = await HardLinkedAsync(tree, logs);
        var plan = Portable(() => UndoPlan.Create(journal));
        var other = Encoding.UTF8.GetBytes("written by someone else meanwhile");
        plan.Faults = path =>
        {
            File.Delete(path);
            File.WriteAllBytes(path, other);
        };

        var outcome = Assert.Single((await ApplyAsync(plan)).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.Equal("changed while being restored", outcome.Reason);
        Assert.Equal(other, await File.ReadAllBytesAsync(b));
        Assert.Equal(Content, await File.ReadAllBytesAsync(a));
        Assert.Empty(Directory.GetFiles(tree.PathOf("data"), ".dedup-tmp-*"));
    }

    [LinuxFact]
    public async Task A_journal_with_Linux_metadata_is_left_to_the_Linux_engine()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (a, b, journal) = await HardLinkedAsync(tree, logs, portableBefore: false);

        var outcome = Assert.Single((await ApplyAsync(Portable(() => UndoPlan.Create(journal)))).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.Equal("the journal records a mode, owner and access time (it was logged on Linux), which undo restores on Linux only", outcome.Reason);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));
    }

    [LinuxFact]
    public async Task Trash_records_where_the_file_went_and_undo_moves_it_back_and_removes_its_info_file()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var journal = logs.PathOf("journal.jsonl");
        var bin = new StandInRecycleBin(tree);
        var duplicate = await TrashAsync(tree, journal, bin.Move);
        var trashed = Assert.Single(UndoFixtures.Lines(journal), l => (string?)l["status"] == "trashed");
        Assert.Equal(bin.Data, (string?)trashed["location"]);
        Assert.Equal(bin.Info, (string?)trashed["info"]);
        Assert.Equal((int?)UndoFixtures.Begun(UndoFixtures.Lines(journal))["seq"], (int?)trashed["seq"]);

        var outcome = Assert.Single((await ApplyAsync(Portable(() => UndoPlan.Create(journal)))).Outcomes);

        Assert.True(outcome.Outcome == UndoOutcome.Restored, outcome.ToString());
        Assert.Equal(Content, await File.ReadAllBytesAsync(duplicate));
        Assert.Equal(Seconds, File.GetLastWriteTimeUtc(duplicate));
        Assert.False(File.Exists(bin.Data));
        Assert.False(File.Exists(bin.Info));

        var again = Assert.Single((await ApplyAsync(Portable(() => UndoPlan.Create(journal)))).Outcomes);
        Assert.Equal(UndoOutcome.AlreadyRestored, again.Outcome);
    }

    [LinuxFact]
    public async Task A_trash_move_without_its_location_line_is_left_to_be_restored_by_hand()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var journal = logs.PathOf("journal.jsonl");
        var bin = new StandInRecycleBin(tree);
        var duplicate = await TrashAsync(tree, journal, (path, identity) =>
        {
            _ = bin.Move(path, identity);
            return null; // the system did not say (or the process was killed before the line)
        });
        Assert.DoesNotContain(UndoFixtures.Lines(journal), l => (string?)l["status"] == "trashed");

        var outcome = Assert.Single((await ApplyAsync(Portable(() => UndoPlan.Create(journal)))).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.Equal("the journal does not say where in the Recycle Bin it went; restore it from the Recycle Bin (Explorer)", outcome.Reason);
        Assert.False(File.Exists(duplicate));
        Assert.Equal(Content, await File.ReadAllBytesAsync(bin.Data));
    }

    [LinuxFact]
    public async Task A_location_that_is_not_the_trashed_file_is_not_journalled()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var journal = logs.PathOf("journal.jsonl");
        var bin = new StandInRecycleBin(tree);
        var decoy = tree.Write("elsewhere/decoy.bin", Content);
        File.SetLastWriteTimeUtc(decoy, Seconds);
        await TrashAsync(tree, journal, (path, identity) =>
        {
            _ = bin.Move(path, identity);
            return new TrashedLocation(decoy, null); // same bytes, size and time; another file
        });

        Assert.DoesNotContain(UndoFixtures.Lines(journal), l => (string?)l["status"] == "trashed");
    }

    [LinuxFact]
    public async Task A_taken_name_is_never_overwritten_and_the_file_stays_in_the_Recycle_Bin()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var journal = logs.PathOf("journal.jsonl");
        var bin = new StandInRecycleBin(tree);
        var duplicate = await TrashAsync(tree, journal, bin.Move);
        var newer = Encoding.UTF8.GetBytes("a new file at the old name");
        await File.WriteAllBytesAsync(duplicate, newer);

        var outcome = Assert.Single((await ApplyAsync(Portable(() => UndoPlan.Create(journal)))).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.Equal($"the name is taken; never overwritten (the file stays in the Recycle Bin as {bin.Data})", outcome.Reason);
        Assert.Equal(newer, await File.ReadAllBytesAsync(duplicate));
        Assert.Equal(Content, await File.ReadAllBytesAsync(bin.Data));
        Assert.True(File.Exists(bin.Info));
    }

    [LinuxFact]
    public async Task A_permanent_delete_is_irreversible()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var journal = logs.PathOf("journal.jsonl");
        tree.Write("data/a.bin", Content);
        tree.Write("data/b.bin", Content);
        foreach (var file in Directory.GetFiles(tree.PathOf("data")))
        {
            File.SetLastWriteTimeUtc(file, Seconds);
        }

        using (var opened = ActionJournal.Open(journal))
        {
            var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).UseJournal(opened).Build().Plan(await tree.ScanAsync(tree.PathOf("data")));
            Assert.Equal(1, PlanExecutor.ApplyPortable(plan, _ => { }, CancellationToken.None).Done);
        }

        var outcome = Assert.Single((await ApplyAsync(Portable(() => UndoPlan.Create(journal)))).Outcomes);

        Assert.Equal(UndoOutcome.Irreversible, outcome.Outcome);
        Assert.Equal("deleted permanently; its bytes are gone (use --trash to keep a way back)", outcome.Reason);
    }

    private static readonly DateTime Seconds = new(2020, 1, 2, 3, 4, 5, DateTimeKind.Utc);

    /// <summary>Runs <paramref name="create"/> with the portable engine chosen (the seam flows into the plan's own tasks).</summary>
    private static UndoPlan Portable(Func<UndoPlan> create)
    {
        UndoPlan.PortableOnLinux.Value = true;
        return create();
    }

    private static Task<UndoReport> ApplyAsync(UndoPlan plan)
    {
        UndoPlan.PortableOnLinux.Value = true;
        return plan.ApplyAsync();
    }

    /// <summary>data/b.bin hard-linked to data/a.bin by a journalled run; the journal's <c>before</c> cut to the portable fields.</summary>
    private static async Task<(string A, string B, string Journal)> HardLinkedAsync(LinkTree tree, TempTree logs, bool portableBefore = true)
    {
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        File.SetLastWriteTimeUtc(a, Seconds);
        File.SetLastWriteTimeUtc(b, Seconds);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, tree.PathOf("data"))).Done);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));
        if (portableBefore)
        {
            var lines = UndoFixtures.Lines(journal);
            var before = (JsonObject)UndoFixtures.Begun(lines)["before"]!;
            foreach (var field in new[] { "mode", "uid", "gid", "atimeNs", "flags", "xattrs" })
            {
                before.Remove(field);
            }

            UndoFixtures.Write(journal, lines);
        }

        return (a, b, journal);
    }

    /// <summary>keep/a.bin and other/b.bin, the second trashed by the portable path with <paramref name="move"/>; returns b's path.</summary>
    private static async Task<string> TrashAsync(LinkTree tree, string journal, SystemTrashMove move)
    {
        tree.Write("keep/a.bin", Content);
        var duplicate = tree.Write("other/b.bin", Content);
        File.SetLastWriteTimeUtc(tree.PathOf("keep/a.bin"), Seconds);
        File.SetLastWriteTimeUtc(duplicate, Seconds);
        using var opened = ActionJournal.Open(journal);
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Trash).UseJournal(opened).Keep(KeepRule.PreferUnder(tree.PathOf("keep")))
            .Build().Plan(await tree.ScanAsync(tree.PathOf("keep"), tree.PathOf("other")));
        var outcome = Assert.Single(PlanExecutor.ApplyPortableTracked(plan, move, CancellationToken.None).Outcomes);
        Assert.True(outcome.Status == DuplicateActionStatus.Done, $"{outcome.Status}: {outcome.Reason}");
        return duplicate;
    }

    /// <summary>A Recycle Bin folder as Windows fills it: the file renamed to <c>$R…</c>, a version 2 <c>$I…</c> beside it.</summary>
    private sealed class StandInRecycleBin(LinkTree tree)
    {
        public string Data => tree.PathOf("bin/$RABC123.bin");

        public string Info => tree.PathOf("bin/$IABC123.bin");

        public TrashedLocation? Move(string path, Enumeration.FileIdentity? identity)
        {
            Directory.CreateDirectory(tree.PathOf("bin"));
            File.Move(path, Data);
            File.WriteAllBytes(Info, RecycleBinInfoTests.Version2(path, Content.Length, DateTime.UtcNow));
            return new TrashedLocation(Data, Info);
        }
    }
}
