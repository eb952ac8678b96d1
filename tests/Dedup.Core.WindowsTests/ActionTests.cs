using System.Text;
using Dedup.Core.Linking;
using Dedup.Core.WindowsTests.Infrastructure;

namespace Dedup.Core.WindowsTests;

/// <summary>
/// Acting on duplicates on Windows through the public API: a real scan, a plan keeping the file under keep/, and its
/// application (the portable re-checks, then delete or the Recycle Bin).
/// </summary>
public sealed class ActionTests
{
    internal static readonly byte[] Content = TempTree.RandomBytes(30_000, 11);

    [Fact]
    public async Task Delete_removes_the_duplicate_and_keeps_the_kept_file()
    {
        using var tree = new TempTree();
        var (kept, duplicate, plan) = await PlanAsync(tree, Linkers.Delete);

        var report = await plan.ApplyAsync();

        Assert.Equal(1, report.Done);
        Assert.Equal(Content.Length, report.ReclaimedBytes);
        Assert.False(File.Exists(duplicate));
        Assert.Equal(Content, await File.ReadAllBytesAsync(kept));
    }

    [Fact]
    public async Task Trash_moves_the_duplicate_away_and_keeps_the_kept_file()
    {
        using var tree = new TempTree();
        var (kept, duplicate, plan) = await PlanAsync(tree, Linkers.Trash, UniqueName());

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.True(outcome.Status == DuplicateActionStatus.Done, $"{outcome.Status}: {outcome.Reason}");
        Assert.False(File.Exists(duplicate));
        Assert.Equal(Content, await File.ReadAllBytesAsync(kept));
        if (Wine.IsRunning)
        {
            // Wine's SHFileOperationW moves to the freedesktop trash of the Unix user: the file must be there, whole.
            var trashed = Path.Combine(Wine.HomeFolder(), ".local", "share", "Trash", "files", Path.GetFileName(duplicate));
            try
            {
                Assert.Equal(Content, await File.ReadAllBytesAsync(trashed));
            }
            finally
            {
                File.Delete(trashed);
                File.Delete(Path.Combine(Path.GetDirectoryName(Path.GetDirectoryName(trashed))!, "info", Path.GetFileName(duplicate) + ".trashinfo"));
            }
        }
    }

    [Fact]
    public async Task Trash_refuses_a_volume_that_is_not_a_fixed_disk_and_leaves_the_file()
    {
        // The refusal path of the real Recycle Bin code: Windows would delete permanently where it keeps no Recycle Bin.
        // The temp folder is on a fixed disk (under Wine too, through the volume's drive letter), so the tree is made
        // on a removable or network volume when one is mounted.
        var other = DriveInfo.GetDrives().FirstOrDefault(d => d.DriveType is DriveType.Removable or DriveType.Network && d.IsReady);
        Assert.SkipWhen(other is null, "Needs a writable removable or network volume; none is mounted.");
        using var tree = new TempTree(other!.RootDirectory.FullName);
        var (kept, duplicate, plan) = await PlanAsync(tree, Linkers.Trash, UniqueName());

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("not a fixed disk", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(Content, await File.ReadAllBytesAsync(duplicate));
        Assert.Equal(Content, await File.ReadAllBytesAsync(kept));
    }

    [Fact]
    public async Task Trash_puts_the_duplicate_in_the_Recycle_Bin()
    {
        Wine.SkipUnderWine("the Recycle Bin (its SHFileOperationW moves files to the freedesktop trash of the Unix user, not to $Recycle.Bin)");
        using var tree = new TempTree();
        var (_, duplicate, plan) = await PlanAsync(tree, Linkers.Trash, UniqueName());

        Assert.Equal(1, (await plan.ApplyAsync()).Done);

        var (info, data) = FindInRecycleBin(duplicate);
        try
        {
            Assert.Equal(Content, await File.ReadAllBytesAsync(data));
        }
        finally
        {
            File.Delete(data);
            File.Delete(info);
        }
    }

    [Fact]
    public async Task A_duplicate_changed_between_scan_and_apply_is_skipped_and_untouched()
    {
        using var tree = new TempTree();
        var (kept, duplicate, plan) = await PlanAsync(tree, Linkers.Trash);
        await File.AppendAllTextAsync(duplicate, "changed");

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("duplicate changed size", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(Content.Concat(Encoding.ASCII.GetBytes("changed")), await File.ReadAllBytesAsync(duplicate));
        Assert.Equal(Content, await File.ReadAllBytesAsync(kept));
    }

    [Fact]
    public async Task A_duplicate_with_the_same_size_and_time_but_other_bytes_is_left_alone()
    {
        using var tree = new TempTree();
        var (_, duplicate, plan) = await PlanAsync(tree, Linkers.Delete);
        var time = File.GetLastWriteTimeUtc(duplicate);
        var other = (byte[])Content.Clone();
        other[^1] ^= 0xFF;
        await File.WriteAllBytesAsync(duplicate, other);
        File.SetLastWriteTimeUtc(duplicate, time); // only the content verification can see the change

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.NotEqual(DuplicateActionStatus.Done, outcome.Status);
        Assert.Equal(other, await File.ReadAllBytesAsync(duplicate));
    }

    [Fact]
    public async Task A_duplicate_held_open_without_delete_sharing_is_not_deleted()
    {
        using var tree = new TempTree();
        var (_, duplicate, plan) = await PlanAsync(tree, Linkers.Delete);

        DuplicateActionOutcome outcome;
        using (new FileStream(duplicate, FileMode.Open, FileAccess.Read, FileShare.Read)) // no FILE_SHARE_DELETE
        {
            outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);
        }

        Assert.NotEqual(DuplicateActionStatus.Done, outcome.Status);
        Assert.False(string.IsNullOrEmpty(outcome.Reason));
        Assert.Equal(Content, await File.ReadAllBytesAsync(duplicate));
    }

    [Fact]
    public void Dedupe_is_refused_with_NotSupportedException_and_the_other_modes_are_accepted()
    {
        // Windows has no kernel-verified dedupe (FIDEDUPERANGE); the plan builder says so up front.
        var refused = Assert.Throws<NotSupportedException>(() => new DuplicateActionPlanBuilder().UseLinker(Linkers.Dedupe).Build());
        Assert.Contains("Linkers.Clone on ReFS", refused.Message, StringComparison.Ordinal);

        foreach (var linker in new[] { Linkers.HardLink, Linkers.SymbolicLink(), Linkers.SymbolicLink(relative: false), Linkers.Clone, Linkers.Delete, Linkers.Trash })
        {
            Assert.Equal(linker.Kind, new DuplicateActionPlanBuilder().UseLinker(linker).Build().Linker.Kind);
        }
    }

    [Fact]
    public async Task A_hard_link_replaces_the_duplicate_with_the_kept_files_identity()
    {
        using var tree = new TempTree();
        var (kept, duplicate, plan) = await PlanAsync(tree, Linkers.HardLink);

        var report = await plan.ApplyAsync();

        Assert.Equal(1, report.Done);
        Assert.Equal(Win32.FileIdentity(kept).Index, Win32.FileIdentity(duplicate).Index);
        Assert.Equal(Content, File.ReadAllBytes(duplicate));
        Assert.Empty(Directory.GetFiles(tree.PathOf("other"), ".dedup-tmp-*"));
    }

    internal static string UniqueName() => Guid.NewGuid().ToString("N") + ".bin";

    /// <summary>keep/a.bin and its duplicate other/<paramref name="duplicateName"/>, scanned and planned with <paramref name="linker"/>.</summary>
    internal static async Task<(string Kept, string Duplicate, DuplicateActionPlan Plan)> PlanAsync(TempTree tree, Linker linker, string duplicateName = "b.bin")
    {
        var kept = tree.Write("keep/a.bin", Content);
        var duplicate = tree.Write("other/" + duplicateName, Content);
        var planner = new DuplicateActionPlanBuilder().UseLinker(linker).Keep(KeepRule.PreferUnder(tree.PathOf("keep"))).Build();
        var plan = await planner.PlanAsync(new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync());
        Assert.Single(plan.Actions);
        return (kept, duplicate, plan);
    }

    /// <summary>
    /// The Recycle Bin entry of <paramref name="original"/>: <c>$I…</c> holds the original path (UTF-16; found by the
    /// file's unique name, since the folder part may be written in another form), the <c>$R…</c> file of the same
    /// suffix holds the data.
    /// </summary>
    private static (string Info, string Data) FindInRecycleBin(string original)
    {
        var sid = System.Security.Principal.WindowsIdentity.GetCurrent().User!.Value;
        var bin = Path.Combine(Path.GetPathRoot(original)!, "$Recycle.Bin", sid);
        var needle = Encoding.Unicode.GetBytes(Path.DirectorySeparatorChar + Path.GetFileName(original));
        var all = new EnumerationOptions { AttributesToSkip = 0 };
        var info = Directory.EnumerateFiles(bin, "$I*", all).Single(i => File.ReadAllBytes(i).AsSpan().IndexOf(needle) >= 0);
        return (info, Path.Combine(bin, "$R" + Path.GetFileName(info)[2..]));
    }
}
