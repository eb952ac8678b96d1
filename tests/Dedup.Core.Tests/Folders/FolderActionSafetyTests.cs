using System.Text;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;
using Xunit;

namespace Dedup.Core.Tests.Folders;

/// <summary>
/// Folder actions (#34): names swapped between the re-listing and the byte comparison, names that are not UTF-8, and
/// the leftovers of a run killed in the middle of a folder.
/// </summary>
public sealed class FolderActionSafetyTests
{
    private static readonly byte[] One = TempTree.RandomBytes(5000, 11);
    private static readonly byte[] Two = TempTree.RandomBytes(6000, 12);
    private static readonly byte[] Three = TempTree.RandomBytes(7000, 13);

    private static void Copies(TempTree tree, params string[] folders)
    {
        foreach (var root in folders.Length == 0 ? ["a_kept", "b_copy"] : folders)
        {
            tree.Write($"{root}/album/01.mp3", One);
            tree.Write($"{root}/album/02.mp3", Two);
            tree.Write($"{root}/cover.jpg", Three);
        }
    }

    private static async Task<DuplicateFolderActionPlan> PlanAsync(TempTree tree, Linker linker)
    {
        var (_, _, scan) = await FolderScanRun.RunAsync(tree);
        return new DuplicateActionPlanBuilder().UseLinker(linker).Build().PlanFolders(scan.FolderGroups);
    }

    private static void AssertKeptIntact(TempTree tree)
    {
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("a_kept/album/01.mp3")));
        Assert.Equal(Two, File.ReadAllBytes(tree.PathOf("a_kept/album/02.mp3")));
        Assert.Equal(Three, File.ReadAllBytes(tree.PathOf("a_kept/cover.jpg")));
    }

    [RequiresToolFact("mkfifo")]
    public async Task A_file_swapped_for_a_fifo_before_the_bytes_are_compared_is_not_waited_on_and_refuses_the_folder()
    {
        using var tree = new TempTree();
        Copies(tree);
        var plan = await PlanAsync(tree, Linkers.Delete);
        var fifo = tree.PathOf("b_copy/cover.jpg");
        plan.Faults = new LinkerFaults
        {
            BeforeFolderVerify = _ =>
            {
                File.Delete(fifo);
                TempTree.Run("mkfifo", fifo);
            },
        };

        var apply = plan.ApplyAsync().AsTask();

        // A guard against hanging the test run, not a measurement: opened blocking, the FIFO waits for ever for a writer.
        if (await Task.WhenAny(apply, Task.Delay(TimeSpan.FromSeconds(60))) != apply)
        {
            TempTree.Run("sh", "-c", "true > \"$0\"", fifo); // a writer comes and goes: the blocked open returns
            await apply;
            Assert.Fail("applying opened the FIFO and waited for a writer");
        }

        var outcome = Assert.Single((await apply).Outcomes);
        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("cover.jpg is now another file", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal("fifo", ProcessRunner.RunChecked("stat", ["-c", "%F", fifo]).Trim());
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("b_copy/album/01.mp3")));
        Assert.Equal(Two, File.ReadAllBytes(tree.PathOf("b_copy/album/02.mp3")));
        AssertKeptIntact(tree);
    }

    [LinuxFact]
    public async Task A_file_swapped_for_a_symbolic_link_before_the_bytes_are_compared_is_not_followed()
    {
        using var tree = new TempTree();
        Copies(tree);
        var plan = await PlanAsync(tree, Linkers.Delete);
        var swapped = tree.PathOf("b_copy/album/02.mp3");
        plan.Faults = new LinkerFaults
        {
            BeforeFolderVerify = _ =>
            {
                File.Delete(swapped);
                File.CreateSymbolicLink(swapped, tree.PathOf("a_kept/album/02.mp3")); // same bytes, through a link
            },
        };

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("album/02.mp3 cannot be read", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(tree.PathOf("a_kept/album/02.mp3"), new FileInfo(swapped).LinkTarget);
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("b_copy/album/01.mp3")));
        AssertKeptIntact(tree);
    }

    [LinuxFact]
    public async Task Folders_holding_names_that_are_not_utf8_are_acted_on()
    {
        using var tree = new TempTree();
        foreach (var root in new[] { "a_kept", "b_copy" })
        {
            tree.Write($"{root}/cover.jpg", Three);
            var folder = Encoding.UTF8.GetBytes(tree.PathOf(root));
            ExactNames.WriteFile([.. folder, .. "/a"u8, 0xFF, .. ".bin"u8], One);
            ExactNames.CreateFolder([.. folder, .. "/d"u8, 0xFE]);
            ExactNames.WriteFile([.. folder, .. "/d"u8, 0xFE, .. "/b"u8, 0xFD, .. ".bin"u8], Two);
        }

        var plan = await PlanAsync(tree, Linkers.Delete);
        var action = Assert.Single(plan.Actions);
        Assert.Null(action.Refusal);
        var report = await plan.ApplyAsync();

        Assert.True(report.Done == 1, string.Join("; ", report.Outcomes));
        Assert.Equal(3, action.FileActions.Count);
        Assert.False(Directory.Exists(tree.PathOf("b_copy")));
        Assert.Equal(Three, File.ReadAllBytes(tree.PathOf("a_kept/cover.jpg")));
        Assert.Equal(3, Directory.GetFileSystemEntries(tree.PathOf("a_kept")).Length); // the other two cannot be named through .NET
    }

    [LinuxFact]
    public async Task A_hard_link_to_a_folder_holding_a_name_that_is_not_utf8_links_it()
    {
        using var tree = new TempTree();
        foreach (var root in new[] { "a_kept", "b_copy" })
        {
            tree.Write($"{root}/cover.jpg", Three);
            ExactNames.WriteFile([.. Encoding.UTF8.GetBytes(tree.PathOf(root)), .. "/a"u8, 0xFF, .. ".bin"u8], One);
            tree.Symlink("cover.jpg", $"{root}/link");
        }

        var report = await (await PlanAsync(tree, Linkers.HardLink)).ApplyAsync();

        Assert.True(report.Done == 1, string.Join("; ", report.Outcomes));
        Assert.Equal(TestNative.Inode(tree.PathOf("a_kept/cover.jpg")), TestNative.Inode(tree.PathOf("b_copy/cover.jpg")));
        Assert.Equal("cover.jpg", new FileInfo(tree.PathOf("b_copy/link")).LinkTarget);
    }

    [LinuxFact]
    public async Task A_kept_file_rewritten_with_its_time_put_back_refuses_the_copy_before_any_file_is_touched()
    {
        using var tree = new TempTree();
        Copies(tree);
        var plan = await PlanAsync(tree, Linkers.Delete);

        // Same inode, size and modification time: only the bytes tell, and they are compared before any file is acted on.
        var kept = tree.PathOf("a_kept/cover.jpg");
        var times = tree.Write("times", "a reference for touch -r, to the nanosecond");
        TempTree.Run("touch", "-r", kept, times);
        var edited = (byte[])Three.Clone();
        edited[^1] ^= 0xFF;
        using (var stream = new FileStream(kept, FileMode.Open, FileAccess.Write))
        {
            stream.Write(edited);
        }

        TempTree.Run("touch", "-r", times, kept);
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("content differs from the kept file at byte 6999", outcome.Reason, StringComparison.Ordinal);
        Assert.Contains("nothing in the folder was touched", outcome.Reason, StringComparison.Ordinal);
        Assert.Empty(outcome.Files);
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("b_copy/album/01.mp3")));
        Assert.Equal(Three, File.ReadAllBytes(tree.PathOf("b_copy/cover.jpg")));
    }

    [LinuxFact]
    public async Task A_copy_whose_link_points_elsewhere_or_whose_file_changed_mode_is_refused()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept", "b_copy", "c_copy");
        foreach (var root in new[] { "a_kept", "b_copy", "c_copy" })
        {
            tree.Symlink("cover.jpg", $"{root}/link");
        }

        var plan = await PlanAsync(tree, Linkers.Delete);
        File.Delete(tree.PathOf("b_copy/link"));
        tree.Symlink("album/01.mp3", "b_copy/link");
        File.SetUnixFileMode(tree.PathOf("c_copy/cover.jpg"), UnixFileMode.UserRead | UnixFileMode.UserWrite); // only the change time moves
        var outcomes = (await plan.ApplyAsync()).Outcomes;

        Assert.Equal(2, outcomes.Count);
        Assert.All(outcomes, o => Assert.Equal(DuplicateActionStatus.Skipped, o.Status));
        Assert.Contains("link points elsewhere now", outcomes.Single(o => o.Action.Folder.ToString() == tree.PathOf("b_copy")).Reason, StringComparison.Ordinal);
        Assert.Contains("cover.jpg changed (its change time moved", outcomes.Single(o => o.Action.Folder.ToString() == tree.PathOf("c_copy")).Reason, StringComparison.Ordinal);
        Assert.Equal(Three, File.ReadAllBytes(tree.PathOf("c_copy/cover.jpg")));
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("b_copy/album/01.mp3")));
    }
}
