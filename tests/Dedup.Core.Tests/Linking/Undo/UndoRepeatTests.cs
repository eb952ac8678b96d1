using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Undo;

/// <summary>
/// Undo run again, in process (the CLI's review tests cover the same through <c>dedup undo</c>, which a mutation run
/// cannot see): "already restored" needs the identity an earlier undo gave the name and the logged size and
/// modification time; the inode flags an interrupted undo left unset are set then; a folder undo made and the user
/// removed since is not made again; a recreated folder gets its flags back after its files.
/// </summary>
public sealed class UndoRepeatTests
{
    private const char NoDump = 'd'; // chattr +d: a flag any owner may set, kept by ext4

    private static readonly byte[] Content = TempTree.RandomBytes(12_000, 3802);

    [LinuxFact]
    public async Task A_restored_name_rewritten_in_place_with_another_size_is_not_already_restored()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (journal, b) = await LinkedAndUndoneAsync(tree, logs);
        var inode = TestNative.Inode(b);
        var other = TempTree.RandomBytes(5_000, 3803);
        using (var stream = new FileStream(b, FileMode.Truncate, FileAccess.Write))
        {
            stream.Write(other); // the same inode, the identity the undone line gives
        }

        Assert.Equal(inode, TestNative.Inode(b));

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.Equal(other, await File.ReadAllBytesAsync(b));
    }

    [LinuxFact]
    public async Task A_restored_name_with_only_its_modification_time_changed_is_not_already_restored()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var (journal, b) = await LinkedAndUndoneAsync(tree, logs);
        TempTree.Run("touch", "-m", "-d", "@1400000000.5", b); // same inode, same size

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
    }

    [LinuxFact]
    public async Task A_second_undo_sets_the_inode_flags_an_interrupted_first_one_left_unset()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        TempTree.Run("chattr", "+d", a);
        TempTree.Run("chattr", "+d", b);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, tree.PathOf("data"))).Done);
        var name = Assert.Single(UndoPlan.Create(journal).Steps).Path;
        Assert.Equal(UndoOutcome.Restored, Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes).Outcome);
        Assert.True(HasFlag(name, NoDump));
        TempTree.Run("chattr", "-d", name); // as if that undo had been killed between its rename and FS_IOC_SETFLAGS

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.AlreadyRestored, outcome.Outcome);
        Assert.Null(outcome.Reason);
        Assert.True(HasFlag(name, NoDump));
    }

    [LinuxFact]
    public async Task A_folder_undo_made_again_and_the_user_removed_since_is_not_made_a_second_time()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var journal = logs.PathOf("journal.jsonl");
        var copy = await TrashFolderAsync(tree, UndoKindTests.PrepareTrash(tree), journal, flags: false);
        Assert.All((await UndoFixtures.UndoAsync(journal)).Outcomes, o => Assert.Equal(UndoOutcome.Restored, o.Outcome));
        Assert.True(File.Exists(Path.Combine(copy, "x.bin")));
        Directory.Delete(copy, recursive: true);

        var outcomes = (await UndoFixtures.UndoAsync(journal)).Outcomes;

        var folder = Assert.Single(outcomes, o => o.Step.Kind == "removeFolder");
        Assert.Equal(UndoOutcome.LeftAlone, folder.Outcome);
        Assert.Equal("an earlier undo made it again, and it has been removed since; not made again", folder.Reason);
        Assert.False(Directory.Exists(copy));
    }

    [LinuxFact]
    public async Task A_recreated_folder_gets_its_inode_flags_once_its_files_are_back()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var journal = logs.PathOf("journal.jsonl");
        var copy = await TrashFolderAsync(tree, UndoKindTests.PrepareTrash(tree), journal, flags: true);

        var report = await UndoFixtures.UndoAsync(journal);

        Assert.All(report.Outcomes, o => Assert.Equal(UndoOutcome.Restored, o.Outcome));
        Assert.Empty(report.Notes);
        Assert.True(HasFlag(copy, NoDump));
        Assert.True(File.Exists(Path.Combine(copy, "x.bin")));
    }

    [LinuxFact]
    public async Task Links_between_files_given_as_roots_are_undone_from_their_folder()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, a, b)).Done); // file roots, no folder root
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));

        var plan = UndoPlan.Create(journal);
        var step = Assert.Single(plan.Steps);
        Assert.Null(step.Note);
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(UndoOutcome.Restored, outcome.Outcome);
        Assert.NotEqual(TestNative.Inode(a), TestNative.Inode(b));
        Assert.Equal(Content, await File.ReadAllBytesAsync(step.Path));
    }

    [LinuxFact]
    public async Task A_file_roots_folder_swapped_for_another_is_left_alone()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, a, b)).Done);
        Directory.Move(tree.PathOf("data"), tree.PathOf("moved"));
        Directory.CreateDirectory(tree.PathOf("data"));
        File.Copy(tree.PathOf("moved/a.bin"), a);
        File.Copy(tree.PathOf("moved/b.bin"), b);

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.EndsWith("; nothing is done outside the run's roots", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(TestNative.Inode(tree.PathOf("moved/a.bin")), TestNative.Inode(tree.PathOf("moved/b.bin")));
    }

    /// <summary>Hard-links two equal files with a journal and undoes it; returns the journal and the restored name.</summary>
    private static async Task<(string Journal, string Name)> LinkedAndUndoneAsync(LinkTree tree, TempTree logs)
    {
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        TempTree.Run("touch", "-m", "-d", "@1500000000.25", b);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, tree.PathOf("data"))).Done);
        var name = Assert.Single(UndoPlan.Create(journal).Steps).Path;
        Assert.Equal(UndoOutcome.Restored, Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes).Outcome);
        Assert.Equal(UndoOutcome.AlreadyRestored, Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes).Outcome);
        return (journal, name);
    }

    /// <summary>Two equal folders <c>data/a_keep</c>, <c>data/b_copy</c> (chattr +d when <paramref name="flags"/>); the copy trashed as a folder.</summary>
    /// <remarks>The trash (<see cref="UndoKindTests.PrepareTrash"/>) is prepared by the test itself: the trash undo accepts is an <see cref="AsyncLocal{T}"/> an async helper could not set for its caller.</remarks>
    private static async Task<string> TrashFolderAsync(LinkTree tree, string home, string journal, bool flags)
    {
        tree.Write("data/a_keep/x.bin", Content);
        tree.Write("data/b_copy/x.bin", Content);
        var copy = tree.PathOf("data/b_copy");
        if (flags)
        {
            TempTree.Run("chattr", "+d", copy);
        }

        var scan = new DuplicateFinderBuilder().AddRoot(tree.PathOf("data")).UseFolderMode().Build().FindAsync();
        await foreach (var _ in scan)
        {
        }

        using (var opened = Dedup.Core.Linking.Journal.ActionJournal.Open(journal))
        {
            var planner = new DuplicateActionPlanBuilder().UseLinker(new TrashLinker(home)).Keep(KeepRule.PathOrder).UseJournal(opened).Build();
            Assert.Equal(1, (await planner.PlanFolders(scan.FolderGroups).ApplyAsync()).Done);
        }

        Assert.False(Directory.Exists(copy));
        return copy;
    }

    private static bool HasFlag(string path, char flag) =>
        ProcessRunner.RunChecked("lsattr", "-d", path).Split(' ')[0].Contains(flag, StringComparison.Ordinal);
}
