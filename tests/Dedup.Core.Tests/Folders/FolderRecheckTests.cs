using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;
using Xunit;

namespace Dedup.Core.Tests.Folders;

/// <summary>
/// The folder executor's checks and clean-up, one reason each (issue #34, point 12): every kind of change between the
/// scan and the action refuses the folder with its own reason, files swapped before the bytes are compared are
/// caught, what is left after the files is removed only as scanned, and every descriptor is closed.
/// </summary>
public sealed class FolderRecheckTests
{
    private static readonly byte[] One = TempTree.RandomBytes(5000, 91);
    private static readonly byte[] Two = TempTree.RandomBytes(6000, 92);
    private static readonly byte[] Three = TempTree.RandomBytes(7000, 93);

    /// <summary>Identical folders: two files in album/, cover.jpg, a link in links/ and an empty deep/empty/.</summary>
    private static void Copies(TempTree tree, params string[] folders)
    {
        foreach (var root in folders)
        {
            tree.Write($"{root}/album/01.mp3", One);
            tree.Write($"{root}/album/02.mp3", Two);
            tree.Write($"{root}/cover.jpg", Three);
            tree.Symlink("../album/01.mp3", $"{root}/links/first.mp3");
            Directory.CreateDirectory(tree.PathOf($"{root}/deep/empty"));
        }
    }

    private static async Task<DuplicateFolderActionPlan> PlanAsync(TempTree tree, params string[] roots)
    {
        DuplicateScan scan;
        if (roots.Length == 0)
        {
            (_, _, scan) = await FolderScanRun.RunAsync(tree);
        }
        else
        {
            scan = new DuplicateFinderBuilder().AddRoots(roots.Select(tree.PathOf).ToArray()).UseFolderMode().Build().FindAsync();
            await foreach (var _ in scan)
            {
            }
        }

        return new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().PlanFolders(scan.FolderGroups);
    }

    private static string? ReasonOf(DuplicateFolderActionReport report, TempTree tree, string folder) =>
        report.Outcomes.Single(o => o.Action.Folder.ToString() == tree.PathOf(folder)).Reason;

    [LinuxFact]
    public async Task A_deleted_copy_is_removed_deepest_first_and_no_descriptor_stays_open()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept", "b_copy");
        var plan = await PlanAsync(tree);

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.True(outcome.Status == DuplicateActionStatus.Done, outcome.Reason);
        Assert.Null(outcome.Reason);
        Assert.Equal(3, outcome.Files.Count);
        Assert.False(Directory.Exists(tree.PathOf("b_copy")));
        Assert.Equal(Three, File.ReadAllBytes(tree.PathOf("a_kept/cover.jpg")));
        Assert.Equal("../album/01.mp3", new FileInfo(tree.PathOf("a_kept/links/first.mp3")).LinkTarget);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public async Task A_copy_that_is_a_scanned_root_is_emptied_but_stays()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept", "b_copy");
        var plan = await PlanAsync(tree, "a_kept", "b_copy");

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.True(outcome.Status == DuplicateActionStatus.Done, outcome.Reason);
        Assert.True(Directory.Exists(tree.PathOf("b_copy")));
        Assert.Empty(Directory.EnumerateFileSystemEntries(tree.PathOf("b_copy")));
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("a_kept/album/01.mp3")));
    }

    [LinuxFact]
    public async Task Only_the_change_time_of_a_kept_file_moving_does_not_refuse_the_copy()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept", "b_copy");
        var plan = await PlanAsync(tree);
        File.SetUnixFileMode(tree.PathOf("a_kept/cover.jpg"), UnixFileMode.UserRead | UnixFileMode.UserWrite);

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.True(outcome.Status == DuplicateActionStatus.Done, outcome.Reason);
        Assert.False(Directory.Exists(tree.PathOf("b_copy")));
    }

    [LinuxFact]
    public async Task Each_change_since_the_scan_refuses_its_folder_with_its_own_reason()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept", "b", "c", "d", "e", "f", "g", "h");
        var plan = await PlanAsync(tree);
        Directory.Delete(tree.PathOf("b/deep/empty"));
        File.WriteAllBytes(tree.PathOf("b/deep/empty"), []);                 // a folder is now a file
        File.Delete(tree.PathOf("c/links/first.mp3"));
        File.WriteAllBytes(tree.PathOf("c/links/first.mp3"), One);           // a link is now a file
        var time = File.GetLastWriteTimeUtc(tree.PathOf("d/cover.jpg"));
        tree.Write("d/cover.new", Three);
        TempTree.Run("touch", "-r", tree.PathOf("d/cover.jpg"), tree.PathOf("d/cover.new"));
        File.Move(tree.PathOf("d/cover.new"), tree.PathOf("d/cover.jpg"), overwrite: true); // same bytes and time, another file
        File.SetLastWriteTimeUtc(tree.PathOf("e/album/02.mp3"), time.AddHours(1));
        File.AppendAllText(tree.PathOf("f/cover.jpg"), "x");
        File.Delete(tree.PathOf("g/album/01.mp3"));
        File.Delete(tree.PathOf("h/cover.jpg"));
        Directory.CreateDirectory(tree.PathOf("h/cover.jpg"));               // a file is now a folder

        var report = await plan.ApplyAsync();

        Assert.All(report.Outcomes, o => Assert.Equal(DuplicateActionStatus.Skipped, o.Status));
        const string Untouched = "; nothing in the folder was touched";
        Assert.Equal("the folder changed since the scan: deep/empty is no longer a folder" + Untouched, ReasonOf(report, tree, "b"));
        Assert.Equal("the folder changed since the scan: links/first.mp3 is no longer a symbolic link" + Untouched, ReasonOf(report, tree, "c"));
        Assert.Equal("the folder changed since the scan: cover.jpg is now another file (replaced or renamed over)" + Untouched, ReasonOf(report, tree, "d"));
        Assert.Equal("the folder changed since the scan: album/02.mp3 was modified" + Untouched, ReasonOf(report, tree, "e"));
        Assert.Equal("the folder changed since the scan: cover.jpg changed size" + Untouched, ReasonOf(report, tree, "f"));
        Assert.Equal("the folder changed since the scan: album/01.mp3 is missing since the scan" + Untouched, ReasonOf(report, tree, "g"));
        Assert.Equal("the folder changed since the scan: cover.jpg is no longer a regular file" + Untouched, ReasonOf(report, tree, "h"));
        Assert.Equal(Two, File.ReadAllBytes(tree.PathOf("e/album/02.mp3")));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public async Task A_kept_folder_gone_since_the_scan_refuses_the_copy()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept", "b_copy");
        var plan = await PlanAsync(tree);
        Directory.Move(tree.PathOf("a_kept"), tree.PathOf("z_moved"));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal(
            $"the kept folder {tree.PathOf("a_kept")} is no longer the scanned folder ({tree.PathOf("a_kept")}: No such file or directory); nothing in the folder was touched",
            outcome.Reason);
        Assert.Equal(Three, File.ReadAllBytes(tree.PathOf("b_copy/cover.jpg")));
    }

    [LinuxFact]
    public async Task Files_swapped_before_the_bytes_are_compared_refuse_their_folder_with_their_reason()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept", "b", "c", "d");
        var plan = await PlanAsync(tree);
        plan.Faults = new LinkerFaults
        {
            BeforeFolderVerify = folder =>
            {
                if (folder == tree.PathOf("b"))
                {
                    File.Delete(tree.PathOf("b/cover.jpg"));
                }
                else if (folder == tree.PathOf("c"))
                {
                    Directory.Move(tree.PathOf("c/album"), tree.PathOf("c/album.real"));
                    File.CreateSymbolicLink(tree.PathOf("c/album"), "album.real");
                }
                else if (folder == tree.PathOf("d"))
                {
                    File.Move(tree.PathOf("d/cover.jpg"), tree.PathOf("d/cover.old"));
                    File.WriteAllBytes(tree.PathOf("d/cover.jpg"), Three);
                }
            },
        };

        var report = await plan.ApplyAsync();

        Assert.All(report.Outcomes, o => Assert.Equal(DuplicateActionStatus.Skipped, o.Status));
        Assert.Equal($"{tree.PathOf("b/cover.jpg")} cannot be read (No such file or directory); nothing in the folder was touched", ReasonOf(report, tree, "b"));
        Assert.Equal(
            $"{tree.PathOf("c/album/01.mp3")} cannot be reached ({tree.PathOf("c/album")}: is a symbolic link (actions never follow links below a scanned root)); nothing in the folder was touched",
            ReasonOf(report, tree, "c"));
        Assert.Equal($"{tree.PathOf("d/cover.jpg")} is now another file; nothing in the folder was touched", ReasonOf(report, tree, "d"));
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("c/album.real/01.mp3")));
        Assert.Equal(Three, File.ReadAllBytes(tree.PathOf("d/cover.old")));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public async Task A_file_that_fails_keeps_the_folder_and_says_how_many_were_done()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept", "b", "c");
        var plan = await PlanAsync(tree);
        plan.Faults = new LinkerFaults
        {
            BeforeDelete = path =>
            {
                if (path == tree.PathOf("b/cover.jpg") || path.StartsWith(tree.PathOf("c") + "/", StringComparison.Ordinal))
                {
                    throw new IOException("injected");
                }
            },
        };

        var report = await plan.ApplyAsync();

        var b = report.Outcomes.Single(o => o.Action.Folder.ToString() == tree.PathOf("b"));
        Assert.Equal(DuplicateActionStatus.Failed, b.Status);
        Assert.Equal($"2 of 3 files done, the folder is kept; {tree.PathOf("b/cover.jpg")}: injected", b.Reason);
        Assert.Equal(One.Length + Two.Length, report.ReclaimedBytes);
        var c = report.Outcomes.Single(o => o.Action.Folder.ToString() == tree.PathOf("c"));
        Assert.Equal(DuplicateActionStatus.Skipped, c.Status);
        Assert.StartsWith($"0 of 3 files done, the folder is kept; {tree.PathOf("c/album/01.mp3")}: injected", c.Reason, StringComparison.Ordinal);
        Assert.Equal(Three, File.ReadAllBytes(tree.PathOf("b/cover.jpg")));
        Assert.True(Directory.Exists(tree.PathOf("b/deep/empty")));
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("c/album/01.mp3")));
    }

    [LinuxFact]
    public async Task What_is_left_after_the_files_is_removed_only_as_scanned()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept", "b", "c", "d", "e", "f", "g");
        var plan = await PlanAsync(tree);
        plan.Faults = new LinkerFaults
        {
            BeforeDelete = path =>
            {
                if (Path.GetFileName(path) != "cover.jpg")
                {
                    return; // the last file of each folder
                }

                var folder = Path.GetFileName(Path.GetDirectoryName(path));
                switch (folder)
                {
                    case "b":
                        File.Delete(tree.PathOf("b/links/first.mp3"));
                        File.CreateSymbolicLink(tree.PathOf("b/links/first.mp3"), "../album/02.mp3");
                        break;
                    case "c":
                        TempTree.Run("chattr", "+i", tree.PathOf("c/links"));
                        break;
                    case "d":
                        Directory.Move(tree.PathOf("d/links"), tree.PathOf("d/links.real"));
                        File.CreateSymbolicLink(tree.PathOf("d/links"), "links.real");
                        break;
                    case "e":
                        File.WriteAllBytes(tree.PathOf("e/deep/empty/new.txt"), [1]);
                        break;
                    case "g":
                        File.WriteAllBytes(tree.PathOf("g/new.txt"), [1]);
                        break;
                    case "f":
                        Directory.Move(tree.PathOf("f/deep"), tree.PathOf("f/deep.real"));
                        File.CreateSymbolicLink(tree.PathOf("f/deep"), "deep.real");
                        break;
                }
            },
        };

        DuplicateFolderActionReport report;
        try
        {
            report = await plan.ApplyAsync();
        }
        finally
        {
            TempTree.Run("chattr", "-i", tree.PathOf("c/links"));
        }

        Assert.All(report.Outcomes, o => Assert.Equal(DuplicateActionStatus.Failed, o.Status));
        const string Stays = "; what is left of the folder stays";
        Assert.Equal("every file was handled, but the symbolic link links/first.mp3 changed" + Stays, ReasonOf(report, tree, "b"));
        Assert.Equal("every file was handled, but the symbolic link links/first.mp3 could not be removed (Operation not permitted)" + Stays, ReasonOf(report, tree, "c"));
        Assert.Equal(
            $"every file was handled, but the symbolic link links/first.mp3 could not be reached ({tree.PathOf("d/links")}: is a symbolic link (actions never follow links below a scanned root))" + Stays,
            ReasonOf(report, tree, "d"));
        Assert.Equal("every file was handled, but deep/empty/ could not be removed (Directory not empty)" + Stays, ReasonOf(report, tree, "e"));
        Assert.Equal(
            $"every file was handled, but deep/empty/ could not be reached ({tree.PathOf("f/deep")}: is a symbolic link (actions never follow links below a scanned root))" + Stays,
            ReasonOf(report, tree, "f"));
        Assert.Equal($"every file was handled, but {tree.PathOf("g")}/ could not be removed (Directory not empty)" + Stays, ReasonOf(report, tree, "g"));
        Assert.False(Directory.Exists(tree.PathOf("g/deep")));
        Assert.Equal("../album/02.mp3", new FileInfo(tree.PathOf("b/links/first.mp3")).LinkTarget);
        Assert.Equal("../album/01.mp3", new FileInfo(tree.PathOf("c/links/first.mp3")).LinkTarget);
        Assert.Equal("../album/01.mp3", new FileInfo(tree.PathOf("d/links.real/first.mp3")).LinkTarget);
        Assert.True(File.Exists(tree.PathOf("e/deep/empty/new.txt")));
        Assert.True(Directory.Exists(tree.PathOf("f/deep.real/empty")));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public async Task Empty_leftovers_in_the_kept_folder_and_in_the_copy_are_removed_first()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept", "b_copy");
        var inKept = tree.Write("a_kept/album/.dedup-tmp-" + new string('1', 32), []);
        var inCopy = tree.Write("b_copy/.dedup-tmp-" + new string('2', 32), []);
        var plan = await PlanAsync(tree);
        Assert.Equal([inKept, inCopy], plan.LeftoverTemporaryFiles);

        var report = await plan.ApplyAsync();

        Assert.True(report.TemporaryFilesRemoved == 2, string.Join("\n", report.TemporaryFilesLeftAlone));
        Assert.Empty(report.TemporaryFilesLeftAlone);
        Assert.False(File.Exists(inKept));
        Assert.Equal(DuplicateActionStatus.Done, Assert.Single(report.Outcomes).Status);
    }

    [LinuxFact]
    public async Task Cancelling_during_a_folder_keeps_its_files_and_skips_the_next_folders()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept", "b", "c");
        var plan = await PlanAsync(tree);
        using var cancel = new CancellationTokenSource();
        plan.Faults = new LinkerFaults { BeforeFolderVerify = _ => cancel.Cancel() };

        var cancelled = await Assert.ThrowsAsync<ActionsCancelledException>(async () => await plan.ApplyAsync(cancel.Token));

        var report = cancelled.FolderReport!;
        var b = Assert.Single(report.Outcomes);
        Assert.Equal(DuplicateActionStatus.Skipped, b.Status);
        Assert.Equal("cancelled after 0 of 3 files, the folder is kept", ReasonOf(report, tree, "b"));
        Assert.Empty(b.Files);
        Assert.Equal(b.Action.FileActions, b.NotStarted);
        Assert.Equal(tree.PathOf("c"), Assert.Single(report.NotStarted).Folder.ToString());
        Assert.Equal(Three, File.ReadAllBytes(tree.PathOf("b/cover.jpg")));
    }

    [LinuxFact]
    public async Task Cancelling_between_the_files_of_a_folder_throws_with_its_files_done_and_the_rest_listed()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept", "b", "c");
        var plan = await PlanAsync(tree);
        using var cancel = new CancellationTokenSource();

        var cancelled = await Assert.ThrowsAsync<ActionsCancelledException>(async () => await plan.ApplyAsync(new CancelAtFirst(cancel), cancel.Token));

        var report = cancelled.FolderReport!;
        var b = Assert.Single(report.Outcomes);
        Assert.Equal(DuplicateActionStatus.Failed, b.Status); // handled in part
        Assert.Equal("cancelled after 1 of 3 files, the folder is kept", ReasonOf(report, tree, "b"));
        Assert.Equal(b.Action.FileActions[0], Assert.Single(b.Files, f => f.Status == DuplicateActionStatus.Done).Action);
        Assert.Equal(b.Action.FileActions.Skip(1), b.NotStarted);
        Assert.Equal(tree.PathOf("c"), Assert.Single(report.NotStarted).Folder.ToString());
        Assert.Equal(1, report.Failed);
        Assert.False(File.Exists(b.Action.FileActions[0].Path.ToString()));
        Assert.All(b.Action.FileActions.Skip(1), a => Assert.True(File.Exists(a.Path.ToString())));
        Assert.Equal(Three, File.ReadAllBytes(tree.PathOf("c/cover.jpg")));
    }

    [LinuxFact]
    public async Task Cancelling_between_folders_throws_with_the_next_folders_listed_and_logs_it_once()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept", "b", "c", "d");
        var (_, _, scan) = await FolderScanRun.RunAsync(tree);
        var logger = new CollectingLogger();
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).UseLogger(logger).Build().PlanFolders(scan.FolderGroups);
        _ = logger.Take();
        using var cancel = new CancellationTokenSource();

        // After the last file of the first folder: its run completes, the next folder is not started.
        var cancelled = await Assert.ThrowsAsync<ActionsCancelledException>(async () => await plan.ApplyAsync(new CancelAtLast(cancel), cancel.Token));

        var report = cancelled.FolderReport!;
        var b = Assert.Single(report.Outcomes);
        Assert.Equal(DuplicateActionStatus.Done, b.Status);
        Assert.Empty(b.NotStarted);
        Assert.False(Directory.Exists(tree.PathOf("b")));
        Assert.Equal([tree.PathOf("c"), tree.PathOf("d")], report.NotStarted.Select(a => a.Folder.ToString()));
        Assert.Equal(Three, File.ReadAllBytes(tree.PathOf("c/cover.jpg")));
        Assert.Equal("Applying the plan was cancelled: 1 folders done, 2 not started.", cancelled.Message);
        var stop = Assert.Single(logger.Take(), e => e.Id.Id == 206);
        Assert.Equal($"Cancelled: 3 done, 6 not started (0 skipped, 0 failed), {report.ReclaimedBytes} bytes reclaimed", stop.Message);
        Assert.True(report.ReclaimedBytes > 0);
    }

    /// <summary>Cancels at the report of a folder's last file.</summary>
    private sealed class CancelAtLast(CancellationTokenSource cancel) : IProgress<ApplyProgress>
    {
        public void Report(ApplyProgress value)
        {
            if (value.Completed == value.Total)
            {
                cancel.Cancel();
            }
        }
    }

    /// <summary>Cancels at the first progress report, on the applying thread, before the next file starts.</summary>
    private sealed class CancelAtFirst(CancellationTokenSource cancel) : IProgress<ApplyProgress>
    {
        public void Report(ApplyProgress value) => cancel.Cancel();
    }
}
