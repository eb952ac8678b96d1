using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;
using Xunit;

namespace Dedup.Core.Tests.Folders;

/// <summary>Acting on whole duplicate folders on real trees: delete, trash, link, and folders changed between scan and action.</summary>
public sealed class FolderActionTests
{
    private static readonly byte[] One = TempTree.RandomBytes(5000, 1);
    private static readonly byte[] Two = TempTree.RandomBytes(6000, 2);
    private static readonly byte[] Three = TempTree.RandomBytes(7000, 3);

    /// <summary><c>a_kept</c> and its copy <c>b_copy</c> (path order keeps <c>a_kept</c>), with a sub-folder, an empty folder and a link.</summary>
    private static void Copies(TempTree tree, string kept = "a_kept", string copy = "b_copy")
    {
        foreach (var root in new[] { kept, copy })
        {
            tree.Write($"{root}/album/01.mp3", One);
            tree.Write($"{root}/album/02.mp3", Two);
            tree.Write($"{root}/cover.jpg", Three);
            Directory.CreateDirectory(tree.PathOf($"{root}/empty"));
            tree.Symlink("album/01.mp3", $"{root}/first.mp3");
        }
    }

    private static async Task<DuplicateFolderActionPlan> PlanAsync(TempTree tree, Linker linker, bool ignoreNames = false)
    {
        var (_, _, scan) = await FolderScanRun.RunAsync(tree, ignoreNames);
        return new DuplicateActionPlanBuilder().UseLinker(linker).Build().PlanFolders(scan.FolderGroups);
    }

    private static void AssertKeptIntact(TempTree tree, string kept = "a_kept")
    {
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf($"{kept}/album/01.mp3")));
        Assert.Equal(Two, File.ReadAllBytes(tree.PathOf($"{kept}/album/02.mp3")));
        Assert.Equal(Three, File.ReadAllBytes(tree.PathOf($"{kept}/cover.jpg")));
        Assert.True(Directory.Exists(tree.PathOf($"{kept}/empty")));
        Assert.Equal("album/01.mp3", new FileInfo(tree.PathOf($"{kept}/first.mp3")).LinkTarget);
    }

    private static void AssertCopyUntouched(TempTree tree, ulong[] inodes)
    {
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("b_copy/album/01.mp3")));
        Assert.Equal(inodes, CopyInodes(tree));
        Assert.True(Directory.Exists(tree.PathOf("b_copy/empty")));
        Assert.Equal("album/01.mp3", new FileInfo(tree.PathOf("b_copy/first.mp3")).LinkTarget);
    }

    private static ulong[] CopyInodes(TempTree tree) =>
        new[] { "b_copy/album/01.mp3", "b_copy/album/02.mp3", "b_copy/cover.jpg" }.Select(p => TestNative.Inode(tree.PathOf(p))).ToArray();

    [LinuxFact]
    public async Task Delete_removes_the_copied_folder_and_keeps_the_kept_one()
    {
        using var tree = new TempTree();
        Copies(tree);
        var keptInode = TestNative.Inode(tree.PathOf("a_kept/album/01.mp3"));

        var plan = await PlanAsync(tree, Linkers.Delete);
        var action = Assert.Single(plan.Actions);
        Assert.Null(action.Refusal);
        Assert.Equal(tree.PathOf("a_kept"), action.Kept.ToString());
        Assert.Equal(5000 + 6000 + 7000, plan.ReclaimableBytes);
        var report = await plan.ApplyAsync();

        Assert.Equal(1, report.Done);
        Assert.Equal(18000, report.ReclaimedBytes);
        Assert.False(Directory.Exists(tree.PathOf("b_copy")));
        AssertKeptIntact(tree);
        Assert.Equal(keptInode, TestNative.Inode(tree.PathOf("a_kept/album/01.mp3")));
    }

    [LinuxFact]
    public async Task Trash_moves_the_copied_files_to_the_trash_and_removes_the_folder()
    {
        using var tree = new TempTree();
        foreach (var root in new[] { "a_kept", "b_copy" })
        {
            tree.Write($"{root}/album/01.mp3", One);
            tree.Write($"{root}/cover.jpg", Three);
        }

        var plan = await PlanAsync(tree, new TrashLinker(tree.PathOf("home-trash")));
        var report = await plan.ApplyAsync();

        Assert.Equal(1, report.Done);
        Assert.False(Directory.Exists(tree.PathOf("b_copy")));
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("a_kept/album/01.mp3")));
        var trashed = Directory.GetFiles(tree.PathOf("home-trash/files"));
        Assert.Equal(2, trashed.Length);
        Assert.Contains(trashed, f => File.ReadAllBytes(f).AsSpan().SequenceEqual(One));
    }

    [LinuxFact]
    public async Task Trash_refuses_a_folder_holding_symbolic_links()
    {
        using var tree = new TempTree();
        Copies(tree);
        var inodes = CopyInodes(tree);

        var plan = await PlanAsync(tree, new TrashLinker(tree.PathOf("home-trash")));
        var report = await plan.ApplyAsync();

        Assert.Contains("symbolic links", Assert.Single(plan.Actions).Refusal, StringComparison.Ordinal);
        Assert.Equal(1, report.Skipped);
        AssertCopyUntouched(tree, inodes);
    }

    [LinuxFact]
    public async Task Hard_link_replaces_every_copied_file_by_a_link_to_its_counterpart_and_keeps_the_folders()
    {
        using var tree = new TempTree();
        Copies(tree);

        var report = await (await PlanAsync(tree, Linkers.HardLink)).ApplyAsync();

        Assert.Equal(1, report.Done);
        foreach (var file in new[] { "album/01.mp3", "album/02.mp3", "cover.jpg" })
        {
            Assert.Equal(TestNative.Inode(tree.PathOf("a_kept/" + file)), TestNative.Inode(tree.PathOf("b_copy/" + file)));
        }

        Assert.True(Directory.Exists(tree.PathOf("b_copy/empty")));
        Assert.Equal("album/01.mp3", new FileInfo(tree.PathOf("b_copy/first.mp3")).LinkTarget);
        AssertKeptIntact(tree);
    }

    [LinuxFact]
    public async Task A_file_added_to_the_copy_after_the_scan_refuses_the_folder_and_touches_nothing()
    {
        using var tree = new TempTree();
        Copies(tree);
        var inodes = CopyInodes(tree);
        var plan = await PlanAsync(tree, Linkers.Delete);

        tree.Write("b_copy/album/new.txt", "new");
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("album/new.txt appeared", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal("new", File.ReadAllText(tree.PathOf("b_copy/album/new.txt")));
        AssertCopyUntouched(tree, inodes);
        AssertKeptIntact(tree);
    }

    [LinuxFact]
    public async Task A_sub_folder_added_or_a_file_renamed_in_the_copy_refuses_the_folder()
    {
        using var tree = new TempTree();
        Copies(tree);
        var plan = await PlanAsync(tree, Linkers.Delete);

        File.Move(tree.PathOf("b_copy/cover.jpg"), tree.PathOf("b_copy/cover2.jpg"));
        Directory.CreateDirectory(tree.PathOf("b_copy/album/more"));
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.True(File.Exists(tree.PathOf("b_copy/cover2.jpg")));
        Assert.True(File.Exists(tree.PathOf("b_copy/album/01.mp3")));
        Assert.True(Directory.Exists(tree.PathOf("b_copy/album/more")));
    }

    [LinuxFact]
    public async Task A_file_edited_in_the_copy_with_the_same_size_refuses_the_folder()
    {
        using var tree = new TempTree();
        Copies(tree);
        var plan = await PlanAsync(tree, Linkers.Delete);

        var edited = (byte[])Two.Clone();
        edited[100] ^= 0xFF;
        using (var stream = new FileStream(tree.PathOf("b_copy/album/02.mp3"), FileMode.Open, FileAccess.Write))
        {
            stream.Write(edited); // in place: same file, same size
        }

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("album/02.mp3", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(edited, File.ReadAllBytes(tree.PathOf("b_copy/album/02.mp3")));
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("b_copy/album/01.mp3")));
        Assert.Equal(Three, File.ReadAllBytes(tree.PathOf("b_copy/cover.jpg")));
    }

    [LinuxFact]
    public async Task A_file_changed_in_the_kept_folder_refuses_the_copy()
    {
        using var tree = new TempTree();
        Copies(tree);
        var inodes = CopyInodes(tree);
        var plan = await PlanAsync(tree, Linkers.Delete);

        var edited = (byte[])Three.Clone();
        edited[0] ^= 0xFF;
        using (var stream = new FileStream(tree.PathOf("a_kept/cover.jpg"), FileMode.Open, FileAccess.Write))
        {
            stream.Write(edited);
        }

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("kept folder changed", outcome.Reason, StringComparison.Ordinal);
        AssertCopyUntouched(tree, inodes);
    }

    [LinuxFact]
    public async Task Ignoring_names_pairs_files_by_content_for_delete_and_link()
    {
        using var tree = new TempTree();
        tree.Write("a_kept/album/01.mp3", One);
        tree.Write("a_kept/album/02.mp3", Two);
        tree.Write("b_copy/x.mp3", Two); // other names, other layout
        tree.Write("b_copy/deep/y.mp3", One);
        tree.Write("c_copy/z/one.bin", One);
        tree.Write("c_copy/two.bin", Two);

        var report = await (await PlanAsync(tree, Linkers.HardLink, ignoreNames: true)).ApplyAsync();
        Assert.True(report.Done == 2, string.Join("; ", report.Outcomes)); // b_copy and c_copy
        Assert.Equal(TestNative.Inode(tree.PathOf("a_kept/album/02.mp3")), TestNative.Inode(tree.PathOf("b_copy/x.mp3")));
        Assert.Equal(TestNative.Inode(tree.PathOf("a_kept/album/01.mp3")), TestNative.Inode(tree.PathOf("c_copy/z/one.bin")));

        tree.Write("d_copy/p.mp3", One);
        tree.Write("d_copy/q/r.mp3", Two);
        var plan = await PlanAsync(tree, Linkers.Delete, ignoreNames: true);
        var delete = Assert.Single(plan.Actions, a => a.Folder.ToString() == tree.PathOf("d_copy"));
        Assert.Null(delete.Refusal);
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes, o => o.Action == delete);
        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.False(Directory.Exists(tree.PathOf("d_copy")));
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("a_kept/album/01.mp3")));
        Assert.Equal(Two, File.ReadAllBytes(tree.PathOf("a_kept/album/02.mp3")));
    }

    [LinuxFact]
    public async Task Nested_copies_are_acted_on_once_at_the_top()
    {
        using var tree = new TempTree();
        Copies(tree, "a_kept/inner", "b_copy/inner");
        tree.Write("a_kept/top.txt", "top");
        tree.Write("b_copy/top.txt", "top");

        var plan = await PlanAsync(tree, Linkers.Delete);
        var action = Assert.Single(plan.Actions);
        Assert.Equal(tree.PathOf("b_copy"), action.Folder.ToString());
        var report = await plan.ApplyAsync();

        Assert.Equal(1, report.Done);
        Assert.False(Directory.Exists(tree.PathOf("b_copy")));
        AssertKeptIntact(tree, "a_kept/inner");
    }

    [LinuxFact]
    public async Task A_partial_overlap_is_refused()
    {
        using var tree = new TempTree();
        Copies(tree);
        tree.Write("b_copy/extra.txt", "extra");
        var inodes = CopyInodes(tree);

        // The equal album/ sub-folders are a group of their own; only the partial overlap is planned here.
        var (_, _, scan) = await FolderScanRun.RunAsync(tree);
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().PlanFolders(scan.FolderGroups.Where(g => !g.IsExact));
        var action = Assert.Single(plan.Actions);
        Assert.Equal(tree.PathOf("b_copy"), action.Folder.ToString());
        Assert.Contains("partly overlap", action.Refusal, StringComparison.Ordinal);
        var report = await plan.ApplyAsync();

        Assert.Equal(1, report.Skipped);
        AssertCopyUntouched(tree, inodes);
        Assert.True(File.Exists(tree.PathOf("b_copy/extra.txt")));
    }

    [LinuxFact]
    public async Task Cli_delete_folders_removes_the_copy_and_dry_run_touches_nothing()
    {
        using var tree = new TempTree();
        Copies(tree);
        var inodes = CopyInodes(tree);

        var (dryExit, dryOut, dryErr) = await CliProcess.RunAsync(["delete", "--folders", "--dry-run", tree.Root]);
        Assert.True(dryExit == 0, dryErr);
        Assert.Contains($"keep folder {tree.PathOf("a_kept")}/", dryOut, StringComparison.Ordinal);
        Assert.Contains($"  delete folder {tree.PathOf("b_copy")}/ (3 files, frees 18000 bytes)", dryOut, StringComparison.Ordinal);
        AssertCopyUntouched(tree, inodes);

        var log = Path.Combine(Path.GetTempPath(), $"dedup-folder-log-{Guid.NewGuid():N}.jsonl");
        try
        {
            var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--folders", "--yes", "--log", log, tree.Root]);
            Assert.True(exit == 0, stderr + stdout);
            Assert.Contains("folders: 1 done, 0 skipped, 0 failed", stdout, StringComparison.Ordinal);
            var lines = File.ReadAllLines(log);
            Assert.Equal(3, lines.Count(l => l.Contains("\"status\":\"done\"", StringComparison.Ordinal))); // one per file of the copy
            Assert.StartsWith("{\"version\":2,", lines[0], StringComparison.Ordinal); // the journal: its run line, then begun lines before the outcomes
            Assert.Contains(lines, l => l.Contains("\"status\":\"done\"", StringComparison.Ordinal) && l.Contains("b_copy/cover.jpg", StringComparison.Ordinal));
        }
        finally
        {
            File.Delete(log);
        }

        Assert.False(Directory.Exists(tree.PathOf("b_copy")));
        AssertKeptIntact(tree);
    }

    [LinuxFact]
    public async Task Cli_link_folders_hard_links_the_copy_and_trash_removes_it()
    {
        using var tree = new TempTree();
        foreach (var root in new[] { "a_kept", "b_copy", "c_copy" })
        {
            tree.Write($"{root}/album/01.mp3", One);
            tree.Write($"{root}/cover.jpg", Three);
        }

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["link", "--mode", "hard", "--folders", "--yes", tree.PathOf("a_kept"), tree.PathOf("b_copy")]);
        Assert.True(exit == 0, stderr + stdout);
        Assert.Equal(TestNative.Inode(tree.PathOf("a_kept/album/01.mp3")), TestNative.Inode(tree.PathOf("b_copy/album/01.mp3")));

        var environment = new Dictionary<string, string> { ["XDG_DATA_HOME"] = tree.PathOf("xdg") };
        (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--trash", "--folders", "--yes", tree.PathOf("a_kept"), tree.PathOf("c_copy")], environment: environment);
        Assert.True(exit == 0, stderr + stdout);
        Assert.Empty(Directory.GetFileSystemEntries(tree.PathOf("c_copy"))); // a scanned root is emptied, not removed
        Assert.Equal(2, Directory.GetFiles(tree.PathOf("xdg/Trash/files")).Length);
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("a_kept/album/01.mp3")));
    }

    [LinuxFact]
    public async Task Delete_refuses_a_copy_holding_a_hard_link_of_a_kept_file()
    {
        using var tree = new TempTree();
        tree.Write("a_kept/one.bin", One);
        tree.Write("a_kept/two.bin", Two);
        tree.Write("b_copy/one.bin", One);
        tree.HardLink("a_kept/two.bin", "b_copy/two.bin");

        var plan = await PlanAsync(tree, Linkers.Delete);
        var report = await plan.ApplyAsync();

        Assert.Contains("already a hard link", Assert.Single(plan.Actions).Refusal, StringComparison.Ordinal);
        Assert.Equal(1, report.Skipped);
        Assert.Equal(One, File.ReadAllBytes(tree.PathOf("b_copy/one.bin")));
        Assert.Equal(Two, File.ReadAllBytes(tree.PathOf("b_copy/two.bin")));
    }

    [LinuxFact]
    public async Task Cli_dry_run_lists_a_partial_overlap_as_refused_and_applying_leaves_it()
    {
        using var tree = new TempTree();
        tree.Write("a_kept/one.bin", One);
        tree.Write("a_kept/two.bin", Two);
        tree.Write("b_copy/one.bin", One);
        tree.Write("b_copy/two.bin", Two);
        tree.Write("b_copy/extra.bin", Three);

        var (dryExit, dryOut, dryErr) = await CliProcess.RunAsync(["delete", "--folders", "--dry-run", tree.Root]);
        Assert.True(dryExit == 0, dryErr);
        Assert.Contains($"  skip folder {tree.PathOf("b_copy")}/: the folders only partly overlap", dryOut, StringComparison.Ordinal);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--folders", "--yes", tree.Root]);
        Assert.Equal(1, exit);
        Assert.Contains($"dedup: skipped folder {tree.PathOf("b_copy")}/", stderr, StringComparison.Ordinal);
        Assert.Contains("folders: 0 done, 1 skipped", stdout, StringComparison.Ordinal);
        Assert.True(File.Exists(tree.PathOf("b_copy/extra.bin")));
    }

    [LinuxFact]
    public async Task Cli_refuses_folders_with_from_report()
    {
        using var tree = new TempTree();
        tree.Write("r.json", "{}");

        var (exit, _, stderr) = await CliProcess.RunAsync(["delete", "--folders", "--yes", "--from-report", tree.PathOf("r.json")]);

        Assert.Equal(2, exit);
        Assert.Contains("--from-report", stderr, StringComparison.Ordinal);
    }
}
