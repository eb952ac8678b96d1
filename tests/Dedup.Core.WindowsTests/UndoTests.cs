using Dedup.Core.Linking;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Linking.Undo;
using Dedup.Core.WindowsTests.Infrastructure;

namespace Dedup.Core.WindowsTests;

/// <summary>
/// Issue #38 on Windows: a real run with a journal (<c>--log</c>), then <see cref="UndoPlan"/> through the public API,
/// as <c>dedup undo</c> runs it. The kept file and the duplicate get different modification times, so a restored
/// name shows the logged time, not the kept file's.
/// </summary>
public sealed class UndoTests
{
    private static readonly DateTime KeptTime = new(2021, 5, 6, 7, 8, 9, DateTimeKind.Utc);
    private static readonly DateTime DuplicateTime = new(2020, 1, 2, 3, 4, 5, DateTimeKind.Utc);

    [Fact]
    public async Task A_hard_link_undone_is_an_independent_file_with_the_logged_bytes_and_time()
    {
        using var tree = new TempTree();
        var (kept, duplicate, journal) = await ActAsync(tree, Linkers.HardLink);
        Assert.Equal(Win32.FileIdentity(kept).Index, Win32.FileIdentity(duplicate).Index);

        var plan = UndoPlan.Create(journal);
        var step = Assert.Single(plan.Steps);
        Assert.Equal("hardLink", step.Kind);
        Assert.True(step.Note is null, step.ToString());
        Assert.Equal(ActionTests.Content.Length, step.Bytes);
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.True(outcome.Outcome == UndoOutcome.Restored, outcome.ToString());
        var (_, index, links) = Win32.FileIdentity(duplicate);
        Assert.NotEqual(Win32.FileIdentity(kept).Index, index);
        Assert.Equal(1u, links);
        Assert.Equal(ActionTests.Content, await File.ReadAllBytesAsync(duplicate));
        Assert.Equal(ActionTests.Content, await File.ReadAllBytesAsync(kept));
        Assert.Equal(DuplicateTime, File.GetLastWriteTimeUtc(duplicate));
        Assert.Equal(KeptTime, File.GetLastWriteTimeUtc(kept));
        Assert.Empty(Directory.GetFiles(tree.PathOf("other"), ".dedup-tmp-*"));
    }

    [Fact]
    public async Task Undo_twice_is_harmless_the_second_says_already_restored()
    {
        using var tree = new TempTree();
        var (_, duplicate, journal) = await ActAsync(tree, Linkers.HardLink);
        Assert.Equal(UndoOutcome.Restored, Assert.Single((await UndoPlan.Create(journal).ApplyAsync()).Outcomes).Outcome);
        var restored = Win32.FileIdentity(duplicate).Index;

        var outcome = Assert.Single((await UndoPlan.Create(journal).ApplyAsync()).Outcomes);

        Assert.Equal(UndoOutcome.AlreadyRestored, outcome.Outcome);
        Assert.Equal(restored, Win32.FileIdentity(duplicate).Index);
        Assert.Equal(ActionTests.Content, await File.ReadAllBytesAsync(duplicate));
    }

    [Fact]
    public async Task A_name_modified_after_the_run_is_left_alone_with_the_reason()
    {
        using var tree = new TempTree();
        var (kept, duplicate, journal) = await ActAsync(tree, Linkers.HardLink);
        File.SetLastWriteTimeUtc(duplicate, KeptTime.AddDays(1)); // the one file both names lead to

        var outcome = Assert.Single((await UndoPlan.Create(journal).ApplyAsync()).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.Equal("was modified since the action", outcome.Reason);
        Assert.Equal(Win32.FileIdentity(kept).Index, Win32.FileIdentity(duplicate).Index);
        Assert.Empty(Directory.GetFiles(tree.PathOf("other"), ".dedup-tmp-*"));
    }

    [Fact]
    public async Task A_delete_is_irreversible()
    {
        using var tree = new TempTree();
        var (_, _, journal) = await ActAsync(tree, Linkers.Delete);

        var outcome = Assert.Single((await UndoPlan.Create(journal).ApplyAsync()).Outcomes);

        Assert.Equal(UndoOutcome.Irreversible, outcome.Outcome);
    }

    [Fact]
    public async Task A_trashed_file_goes_back_from_the_Recycle_Bin_and_its_entry_is_removed()
    {
        Wine.SkipUnderWine("the Recycle Bin (its SHFileOperationW moves files to the freedesktop trash of the Unix user, not to $Recycle.Bin)");
        using var tree = new TempTree();
        var (_, duplicate, journal) = await ActAsync(tree, Linkers.Trash, ActionTests.UniqueName());
        Assert.False(File.Exists(duplicate));
        var located = Assert.Single(File.ReadLines(journal), l => l.Contains("\"status\":\"trashed\"", StringComparison.Ordinal));
        Assert.Contains("$Recycle.Bin", located, StringComparison.OrdinalIgnoreCase);

        var outcome = Assert.Single((await UndoPlan.Create(journal).ApplyAsync()).Outcomes);

        Assert.True(outcome.Outcome == UndoOutcome.Restored, outcome.ToString());
        Assert.Equal(ActionTests.Content, await File.ReadAllBytesAsync(duplicate));
        Assert.Equal(DuplicateTime, File.GetLastWriteTimeUtc(duplicate));
        Assert.Equal(UndoOutcome.AlreadyRestored, Assert.Single((await UndoPlan.Create(journal).ApplyAsync()).Outcomes).Outcome);
    }

    [Fact]
    public async Task A_trashed_file_whose_place_in_the_Recycle_Bin_is_unknown_is_left_for_Explorer()
    {
        // Wine's shell trashes into the freedesktop trash, where no $R file can be found: the no-location case, for real.
        Assert.SkipUnless(Wine.IsRunning, "Windows proper records where the Recycle Bin put the file (the test above).");
        using var tree = new TempTree();
        var name = ActionTests.UniqueName();
        var (_, duplicate, journal) = await ActAsync(tree, Linkers.Trash, name);
        var trashed = Path.Combine(Wine.HomeFolder(), ".local", "share", "Trash", "files", name);
        try
        {
            Assert.DoesNotContain(File.ReadLines(journal), l => l.Contains("\"status\":\"trashed\"", StringComparison.Ordinal));

            var outcome = Assert.Single((await UndoPlan.Create(journal).ApplyAsync()).Outcomes);

            Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
            Assert.Equal("the journal does not say where in the Recycle Bin it went; restore it from the Recycle Bin (Explorer)", outcome.Reason);
            Assert.False(File.Exists(duplicate));
            Assert.Equal(ActionTests.Content, await File.ReadAllBytesAsync(trashed));
        }
        finally
        {
            File.Delete(trashed);
            File.Delete(Path.Combine(Path.GetDirectoryName(Path.GetDirectoryName(trashed))!, "info", name + ".trashinfo"));
        }
    }

    /// <summary>keep/a.bin and its duplicate other/<paramref name="duplicateName"/> (different times), acted on with a journal; returns the journal's path.</summary>
    private static async Task<(string Kept, string Duplicate, string Journal)> ActAsync(TempTree tree, Linker linker, string duplicateName = "b.bin")
    {
        var kept = tree.Write("keep/a.bin", ActionTests.Content);
        var duplicate = tree.Write("other/" + duplicateName, ActionTests.Content);
        File.SetLastWriteTimeUtc(kept, KeptTime);
        File.SetLastWriteTimeUtc(duplicate, DuplicateTime);
        var path = tree.PathOf("journal.jsonl");
        using (var journal = ActionJournal.Open(path))
        {
            var planner = new DuplicateActionPlanBuilder().UseLinker(linker).UseJournal(journal).Keep(KeepRule.PreferUnder(tree.PathOf("keep"))).Build();
            var plan = await planner.PlanAsync(new DuplicateFinderBuilder().AddRoot(tree.PathOf("keep")).AddRoot(tree.PathOf("other")).Build().FindAsync());
            var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);
            Assert.True(outcome.Status == DuplicateActionStatus.Done, $"{outcome.Status}: {outcome.Reason}");
        }

        return (kept, duplicate, path);
    }
}
