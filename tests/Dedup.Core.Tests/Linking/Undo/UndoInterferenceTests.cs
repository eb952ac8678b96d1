using System.Text.Json.Nodes;
using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Undo;

/// <summary>
/// Issue #38 point 2: a name that no longer leads to what the journal says is left alone with the reason, a taken
/// name is never overwritten, and nothing outside the run's roots is touched (even when the journal says so).
/// </summary>
public sealed class UndoInterferenceTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(40_000, 381);

    [LinuxFact]
    public async Task A_name_whose_shared_file_was_modified_after_the_action_is_left_alone()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var journal = await HardLinkedAsync(tree, logs);
        await File.AppendAllTextAsync(a, "more"); // the shared inode: b's bytes are no longer the logged ones

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.StartsWith("changed size since the action", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));
    }

    [LinuxFact]
    public async Task A_name_replaced_by_another_file_after_the_action_is_left_alone()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var before = TestNative.Inode(b);
        var journal = await HardLinkedAsync(tree, logs);
        File.Delete(b);
        // Another file with the same size and modification time as before and after the action: only its identity differs.
        // Not b's inode before the action, which the action freed and a new file can get again (the undo then rightly
        // finds the action not done: seen once in CI): such a file is held aside while another is made.
        var other = TempTree.RandomBytes(Content.Length, 386);
        var made = new List<string>();
        do
        {
            made.Add(tree.PathOf($"data/other{made.Count}.tmp"));
            await File.WriteAllBytesAsync(made[^1], other);
        }
        while (TestNative.Inode(made[^1]) == before);

        File.Move(made[^1], b);
        made.Take(made.Count - 1).ToList().ForEach(File.Delete);
        TempTree.Run("touch", "-m", "-r", tree.PathOf("data/a.bin"), b);

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.StartsWith("was replaced by another file since the action", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(other, await File.ReadAllBytesAsync(b));
    }

    [LinuxFact]
    public async Task A_symbolic_link_swapped_in_at_the_name_is_left_alone_and_not_followed()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var journal = await HardLinkedAsync(tree, logs);
        File.Delete(b);
        File.CreateSymbolicLink(b, a); // leads to the very file the journal's after names

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.StartsWith("a symbolic link is there now", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(a, new FileInfo(b).LinkTarget);
    }

    [LinuxFact]
    public async Task A_taken_name_is_never_overwritten_by_a_trash_restore()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var home = UndoKindTests.PrepareTrash(tree);
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, new TrashLinker(home), journal, tree.PathOf("data"))).Done);
        await File.WriteAllTextAsync(b, "made since");

        var plan = UndoPlan.Create(journal);
        Assert.StartsWith("left alone: the name is taken", Assert.Single(plan.Steps).Note, StringComparison.Ordinal);
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.Equal("made since", await File.ReadAllTextAsync(b));
        Assert.Equal(Content, await File.ReadAllBytesAsync(Path.Combine(home, "files", "b.bin")));
        Assert.True(File.Exists(Path.Combine(home, "info", "b.bin.trashinfo")));
    }

    [LinuxFact]
    public async Task A_hand_edited_name_outside_the_runs_roots_is_left_alone()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        tree.Write("data/b.bin", Content);
        var journal = await HardLinkedAsync(tree, logs);
        // Another name of the kept file, outside the scanned root: its identity is the journal's "after".
        var outside = tree.PathOf("elsewhere/c.bin");
        Directory.CreateDirectory(tree.PathOf("elsewhere"));
        TempTree.Run("ln", a, outside);
        var lines = UndoFixtures.Lines(journal);
        UndoFixtures.Begun(lines)["path"] = outside;
        UndoFixtures.Write(journal, lines);

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.Contains("is not under any scanned root", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(outside));
    }

    [LinuxFact]
    public async Task An_action_the_run_never_made_is_was_not_done_and_only_selects_by_name_or_folder()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var c = tree.Write("data/sub/c.bin", Content);
        var journal = await HardLinkedAsync(tree, logs);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(c));
        // A run killed right after a begun line: the name still leads to the file as it was before.
        var lines = UndoFixtures.Lines(journal);
        var notDone = (JsonObject)UndoFixtures.Begun(lines).DeepClone();
        var d = tree.Write("data/d.bin", Content);
        Assert.Equal(0, TestNative.FileStatusOf(d, out var status));
        notDone["seq"] = 99;
        notDone["path"] = d;
        notDone["before"]!["device"] = status.Device;
        notDone["before"]!["inode"] = status.Ino;
        notDone["before"]!["mtimeNs"] = status.LastWriteTimeNs;
        lines.Add(notDone);
        UndoFixtures.Write(journal, lines);

        var report = await UndoFixtures.UndoAsync(journal, tree.PathOf("data/sub"), d);

        Assert.Equal([(d, UndoOutcome.WasNotDone), (c, UndoOutcome.Restored)], report.Outcomes.Select(o => (o.Step.Path, o.Outcome)));
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b)); // not selected
        Assert.NotEqual(TestNative.Inode(a), TestNative.Inode(c));
    }

    [LinuxFact]
    public async Task An_undo_killed_after_its_undone_line_leaves_a_copy_the_next_undo_removes_before_restoring()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var journal = await HardLinkedAsync(tree, logs);
        var plan = UndoPlan.Create(journal);
        plan.Faults = path =>
        {
            // As a kill: the copy's temporary name stays, as its finally block never runs.
            var copy = Assert.Single(Directory.GetFiles(tree.PathOf("data"), ".dedup-tmp-*"));
            File.Copy(copy, copy + "x");
            throw new InvalidOperationException("killed");
        };
        await Assert.ThrowsAsync<InvalidOperationException>(() => plan.ApplyAsync());
        var leftover = Assert.Single(Directory.GetFiles(tree.PathOf("data"), ".dedup-tmp-*x"));
        File.Move(leftover, leftover[..^1]);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));

        var report = await UndoFixtures.UndoAsync(journal);

        Assert.Equal(UndoOutcome.Restored, Assert.Single(report.Outcomes).Outcome);
        Assert.Empty(report.Notes);
        Assert.Empty(Directory.GetFiles(tree.PathOf("data"), ".dedup-tmp-*"));
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
    }

    private static async Task<string> HardLinkedAsync(LinkTree tree, TempTree logs)
    {
        var journal = logs.PathOf("journal.jsonl");
        var report = await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, tree.PathOf("data"));
        Assert.Equal(0, report.Failed + report.Skipped);
        return journal;
    }
}
