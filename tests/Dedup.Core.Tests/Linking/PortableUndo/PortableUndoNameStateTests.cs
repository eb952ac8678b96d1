using System.Text.Json.Nodes;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking.Undo;

namespace Dedup.Core.Tests.Linking.PortableUndo;

/// <summary>
/// What the portable undo engine says when the name is no longer what the journal left there, in the Linux engine's
/// words: gone, a folder, another file, another size; still the file before the action (not done); an earlier undo's
/// copy changed since; and for the trash, a name taken by a link, a file put back by hand, a bin emptied, an undo killed
/// before the <c>$I…</c> file went.
/// </summary>
public sealed class PortableUndoNameStateTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(70_000, 3803);
    private static readonly DateTime Seconds = new(2020, 1, 2, 3, 4, 5, DateTimeKind.Utc);

    [LinuxFact]
    public async Task A_name_gone_a_folder_another_file_or_another_size_each_says_so()
    {
        Assert.Equal("no longer exists", await LeftAloneAsync(File.Delete));
        Assert.Equal("a folder is there now, not what the action left", await LeftAloneAsync(b =>
        {
            File.Delete(b);
            Directory.CreateDirectory(b);
        }));
        Assert.Equal("was replaced by another file since the action (not what the action left)", await LeftAloneAsync(b =>
        {
            File.Delete(b);
            File.WriteAllBytes(b, Content[..^1]); // another size: a reused inode number is then not the file before the action
            File.SetLastWriteTimeUtc(b, Seconds);
        }));
        Assert.Equal("changed size since the action (70001 bytes, not 70000)", await LeftAloneAsync(b =>
        {
            using (var stream = new FileStream(b, FileMode.Append))
            {
                stream.WriteByte(1);
            }

            File.SetLastWriteTimeUtc(b, Seconds);
        }));
    }

    [LinuxFact]
    public async Task A_name_that_cannot_be_opened_says_why()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (_, b, journal) = await HardLinkedAsync(tree, logs);
        File.Delete(b);
        // open(2) of a socket fails (ENXIO); kept open, for .NET removes the socket's file when it closes.
        using var socket = new System.Net.Sockets.Socket(System.Net.Sockets.AddressFamily.Unix, System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Unspecified);
        socket.Bind(new System.Net.Sockets.UnixDomainSocketEndPoint(b));

        var outcome = await UndoAsync(journal);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.StartsWith("cannot be opened: ", outcome.Reason, StringComparison.Ordinal);
        Assert.True(outcome.Reason!.Length > "cannot be opened: ".Length, outcome.Reason); // with the system's words
    }

    [LinuxFact]
    public async Task A_name_still_the_file_before_the_action_was_not_done()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (_, b, journal) = await HardLinkedAsync(tree, logs);
        var lines = UndoFixtures.Lines(journal);
        var begun = UndoFixtures.Begun(lines);
        var after = (JsonObject)begun["after"]!;
        ((JsonObject)begun["before"]!)["inode"] = (ulong)after["inode"]!; // the name is the before file...
        after["inode"] = (ulong)after["inode"]! + 1_000_000; // ...and the action's result is another one
        UndoFixtures.Write(journal, lines);

        var outcome = await UndoAsync(journal);

        Assert.Equal((UndoOutcome.WasNotDone, (string?)null), (outcome.Outcome, outcome.Reason));
        Assert.Equal(2u, TestNative.LinkCount(b));
    }

    [LinuxTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task An_earlier_undos_copy_changed_since_is_not_already_restored(bool size)
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (_, b, journal) = await HardLinkedAsync(tree, logs);
        Assert.Equal(UndoOutcome.Restored, (await UndoAsync(journal)).Outcome);
        if (size)
        {
            File.WriteAllBytes(b, Content[..^1]);
        }

        File.SetLastWriteTimeUtc(b, size ? Seconds : Seconds.AddSeconds(1));

        var again = await UndoAsync(journal);

        Assert.Equal((UndoOutcome.LeftAlone, "was replaced by another file since the action (not what the action left)"), (again.Outcome, again.Reason));
    }

    [LinuxFact]
    public async Task A_link_at_the_trashed_files_name_takes_it()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (duplicate, bin, journal) = await TrashedAsync(tree, logs);
        File.CreateSymbolicLink(duplicate, "/nowhere-near/dangling");

        var outcome = await UndoAsync(journal);

        Assert.Equal((UndoOutcome.LeftAlone, $"the name is taken; never overwritten (the file stays in the Recycle Bin as {bin.Data})"), (outcome.Outcome, outcome.Reason));
        Assert.Equal(Content, File.ReadAllBytes(bin.Data));
        Assert.Equal("/nowhere-near/dangling", new FileInfo(duplicate).LinkTarget);
    }

    [LinuxFact]
    public async Task A_trashed_file_put_back_by_hand_was_not_done_by_undo()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (duplicate, bin, journal) = await TrashedAsync(tree, logs);
        File.Move(bin.Data, duplicate);

        var outcome = await UndoAsync(journal);

        Assert.Equal((UndoOutcome.WasNotDone, (string?)null), (outcome.Outcome, outcome.Reason));
        Assert.True(File.Exists(bin.Info)); // not undo's to remove: no undo moved it back
    }

    [LinuxFact]
    public async Task An_emptied_bin_says_where_the_file_was_and_what_the_name_is()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (_, bin, journal) = await TrashedAsync(tree, logs);
        File.Delete(bin.Data);

        var outcome = await UndoAsync(journal);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.Equal($"the trashed file is no longer in the Recycle Bin as {bin.Data} (emptied, or restored by hand), and the name no longer exists", outcome.Reason);
    }

    [LinuxFact]
    public async Task An_emptied_bin_and_a_folder_at_the_name_says_both()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (duplicate, bin, journal) = await TrashedAsync(tree, logs);
        File.Delete(bin.Data);
        Directory.CreateDirectory(duplicate);

        var outcome = await UndoAsync(journal);

        Assert.Equal($"the trashed file is no longer in the Recycle Bin as {bin.Data} (emptied, or restored by hand), and the name a folder is there now, not the trashed file", outcome.Reason);
    }

    [LinuxFact]
    public async Task An_undo_killed_before_the_info_file_went_removes_it_the_next_time()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (duplicate, bin, journal) = await TrashedAsync(tree, logs);
        var info = File.ReadAllBytes(bin.Info);
        Assert.Equal(UndoOutcome.Restored, (await UndoAsync(journal)).Outcome);
        File.WriteAllBytes(bin.Info, info); // as if killed between the move back and the removal

        var again = await UndoAsync(journal);

        Assert.Equal(UndoOutcome.AlreadyRestored, again.Outcome);
        Assert.False(File.Exists(bin.Info));
        Assert.Equal(Content, File.ReadAllBytes(duplicate));
    }

    /// <summary>Hard-links data/b.bin to data/a.bin, changes b with <paramref name="change"/>, undoes: the reason it was left alone.</summary>
    private static async Task<string?> LeftAloneAsync(Action<string> change)
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (_, b, journal) = await HardLinkedAsync(tree, logs);
        change(b);
        var outcome = await UndoAsync(journal);
        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        return outcome.Reason;
    }

    private static async Task<UndoStepOutcome> UndoAsync(string journal)
    {
        UndoPlan.PortableOnLinux.Value = true;
        var plan = UndoPlan.Create(journal);
        return Assert.Single((await plan.ApplyAsync()).Outcomes);
    }

    /// <summary>data/b.bin hard-linked to data/a.bin by a journalled run; the journal's <c>before</c> cut to the portable fields.</summary>
    private static async Task<(string A, string B, string Journal)> HardLinkedAsync(LinkTree tree, TempTree logs)
    {
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        File.SetLastWriteTimeUtc(a, Seconds);
        File.SetLastWriteTimeUtc(b, Seconds);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, tree.PathOf("data"))).Done);
        var lines = UndoFixtures.Lines(journal);
        var before = (JsonObject)UndoFixtures.Begun(lines)["before"]!;
        foreach (var field in new[] { "mode", "uid", "gid", "atimeNs", "flags", "xattrs" })
        {
            before.Remove(field);
        }

        UndoFixtures.Write(journal, lines);
        return (a, b, journal);
    }

    /// <summary>keep/a.bin and other/b.bin, the second trashed by the portable path into a stand-in Recycle Bin.</summary>
    private static async Task<(string Duplicate, StandInBin Bin, string Journal)> TrashedAsync(LinkTree tree, TempTree logs)
    {
        var journal = logs.PathOf("journal.jsonl");
        var bin = new StandInBin(tree);
        tree.Write("keep/a.bin", Content);
        var duplicate = tree.Write("other/b.bin", Content);
        File.SetLastWriteTimeUtc(tree.PathOf("keep/a.bin"), Seconds);
        File.SetLastWriteTimeUtc(duplicate, Seconds);
        using (var opened = ActionJournal.Open(journal))
        {
            var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Trash).UseJournal(opened).Keep(KeepRule.PreferUnder(tree.PathOf("keep")))
                .Build().Plan(await tree.ScanAsync(tree.PathOf("keep"), tree.PathOf("other")));
            var outcome = Assert.Single(PlanExecutor.ApplyPortableTracked(plan, bin.Move, CancellationToken.None).Outcomes);
            Assert.True(outcome.Status == DuplicateActionStatus.Done, $"{outcome.Status}: {outcome.Reason}");
        }

        return (duplicate, bin, journal);
    }

    /// <summary>A Recycle Bin folder as Windows fills it: the file renamed to <c>$R…</c>, a version 2 <c>$I…</c> beside it.</summary>
    private sealed class StandInBin(LinkTree tree)
    {
        public string Data => tree.PathOf("bin/$RDEF456.bin");

        public string Info => tree.PathOf("bin/$IDEF456.bin");

        public TrashedLocation? Move(string path, Enumeration.FileIdentity? identity)
        {
            Directory.CreateDirectory(tree.PathOf("bin"));
            File.Move(path, Data);
            File.WriteAllBytes(Info, RecycleBinInfoTests.Version2(path, Content.Length, DateTime.UtcNow));
            return new TrashedLocation(Data, Info);
        }
    }
}
