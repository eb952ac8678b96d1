using System.Text.Json;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Folders;

/// <summary>
/// Folder mode counts what removing copies frees: hard-linked copies (<c>cp -al</c>, rsnapshot) share their storage,
/// a file named outside the removed folders stays, and a bind mount is one folder seen twice, not a copy.
/// </summary>
public sealed class FolderWasteTests
{
    private static readonly byte[] One = TempTree.RandomBytes(1000, 11);
    private static readonly byte[] Two = TempTree.RandomBytes(2000, 12);
    private static readonly byte[] Three = TempTree.RandomBytes(4000, 13);
    private static readonly byte[] Four = TempTree.RandomBytes(8000, 14);

    private static void Album(TempTree tree, string folder)
    {
        tree.Write($"{folder}/01.mp3", One);
        tree.Write($"{folder}/02.mp3", Two);
        tree.Write($"{folder}/cd2/03.mp3", Three);
        tree.Write($"{folder}/cd2/04.mp3", Four);
    }

    [LinuxFact(Tool = "cp")]
    public async Task A_hard_linked_copy_is_not_a_duplicate_folder_and_wastes_nothing()
    {
        using var tree = new TempTree();
        Album(tree, "a");
        TempTree.Run("cp", "-al", tree.PathOf("a"), tree.PathOf("b"));

        foreach (var ignoreNames in new[] { false, true })
        {
            var (folders, files, scan) = await FolderScanRun.RunAsync(tree, ignoreNames);

            Assert.Empty(folders);
            Assert.Empty(scan.FolderGroups);
            Assert.Empty(files); // names of one file are no file group either
            Assert.Equal(0, scan.Summary.Folders!.WastedBytes);
            Assert.Equal(0, scan.Summary.WastedBytes);
        }

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--folders", tree.Root]);
        Assert.True(exit == 0, stderr);
        Assert.Contains("0 folder groups, 0 copied folders (0 files), 0 B wasted", stdout, StringComparison.Ordinal);
    }

    [LinuxFact(Tool = "cp")]
    public async Task A_half_hard_linked_copy_wastes_the_bytes_of_its_own_files_only()
    {
        using var tree = new TempTree();
        Album(tree, "a");
        TempTree.Run("cp", "-al", tree.PathOf("a"), tree.PathOf("b"));
        foreach (var name in new[] { "b/02.mp3", "b/cd2/04.mp3" })
        {
            File.Delete(tree.PathOf(name)); // replaced by a separate copy of the same bytes
        }

        tree.Write("b/02.mp3", Two);
        tree.Write("b/cd2/04.mp3", Four);

        var (folders, files, scan) = await FolderScanRun.RunAsync(tree);

        Assert.Equal(["a | b"], folders);
        Assert.Empty(files);
        var group = Assert.Single(scan.FolderGroups);
        Assert.Equal(One.Length + Two.Length + Three.Length + Four.Length, group.Bytes);
        Assert.Equal(Two.Length + Four.Length, group.WastedBytes);
        Assert.Equal(group.WastedBytes, scan.Summary.Folders!.WastedBytes);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--folders", tree.Root]);
        Assert.True(exit == 0, stderr);
        Assert.Contains("2 folders of 14.6 KiB each (4 files, 15000 bytes), 9.8 KiB wasted (the rest shares storage through hard links)", stdout, StringComparison.Ordinal);
        Assert.Contains("1 folder groups, 1 copied folders (4 files), 9.8 KiB wasted", stdout, StringComparison.Ordinal);

        (exit, stdout, stderr) = await CliProcess.RunAsync(["find", "--folders", "--format", "json", tree.Root]);
        Assert.True(exit == 0, stderr);
        using var json = JsonDocument.Parse(stdout);
        Assert.Equal(10000, json.RootElement.GetProperty("folderGroups")[0].GetProperty("wastedBytes").GetInt64());
        Assert.Equal(10000, json.RootElement.GetProperty("summary").GetProperty("folders").GetProperty("wastedBytes").GetInt64());
    }

    [LinuxFact(Tool = "ln")]
    public async Task A_file_with_a_name_outside_the_scan_frees_nothing()
    {
        using var tree = new TempTree();
        using var outside = new TempTree();
        Album(tree, "a");
        Album(tree, "b");
        TempTree.Run("ln", tree.PathOf("b/cd2/04.mp3"), outside.PathOf("kept-elsewhere.mp3"));
        TempTree.Run("ln", tree.PathOf("a/cd2/04.mp3"), outside.PathOf("kept-too.mp3"));

        var (folders, _, scan) = await FolderScanRun.RunAsync(tree);

        Assert.Equal(["a | b"], folders);
        var group = Assert.Single(scan.FolderGroups);
        Assert.Equal(One.Length + Two.Length + Three.Length, group.WastedBytes); // 04.mp3 stays through its other name
        Assert.Equal(group.WastedBytes, scan.Summary.Folders!.WastedBytes);
    }

    [LinuxFact(Tool = "ln")]
    public async Task A_file_named_in_two_removed_folders_counts_once()
    {
        using var tree = new TempTree();
        tree.Write("a/x.bin", Four);
        tree.Write("a/y.bin", Two);
        tree.Write("b/x.bin", Four);
        tree.Write("b/y.bin", Two);
        tree.HardLink("b/x.bin", "c/x.bin"); // one file in b and c
        tree.Write("c/y.bin", Two);

        var (folders, _, scan) = await FolderScanRun.RunAsync(tree);

        Assert.Equal(["a | b | c"], folders);
        var group = Assert.Single(scan.FolderGroups);
        // Whichever folder stays, the others free one x and two y: b's x goes only with both its names.
        Assert.Equal(Four.Length + (2 * Two.Length), group.WastedBytes);
        Assert.Equal(group.WastedBytes, scan.Summary.Folders!.WastedBytes);
    }

    [LinuxFact(Tool = "cp")]
    public async Task A_hard_linked_copy_beside_a_real_copy_is_left_out_of_the_group()
    {
        using var tree = new TempTree();
        Album(tree, "a");
        TempTree.Run("cp", "-al", tree.PathOf("a"), tree.PathOf("b"));
        Album(tree, "c");

        var (folders, files, scan) = await FolderScanRun.RunAsync(tree);

        // b is names of a's files: not a copy. Removing c frees its files; removing a (c kept) would free nothing.
        Assert.Equal(["a | c"], folders);
        Assert.Empty(files);
        Assert.Equal(15000, Assert.Single(scan.FolderGroups).WastedBytes);
        Assert.Equal(15000, scan.Summary.Folders!.WastedBytes);
    }

    [LinuxFact(Tool = "cp")]
    public async Task A_hard_linked_copy_repeats_no_partial_overlap()
    {
        using var tree = new TempTree();
        Album(tree, "a");
        tree.Write("a/notes.txt", "notes");
        TempTree.Run("cp", "-al", tree.PathOf("a"), tree.PathOf("b"));
        Album(tree, "c");
        tree.Write("c/notes.txt", "other notes");

        var (folders, _, scan) = await FolderScanRun.RunAsync(tree);

        // b is names of a's files: neither its cd2 nor its overlap with c is listed again.
        Assert.Equal(["a/cd2 | c/cd2"], folders);
        var overlap = Assert.Single(scan.FolderGroups, g => !g.IsExact);
        Assert.Equal([tree.PathOf("a"), tree.PathOf("c")], overlap.Folders.Select(f => f.ToString()));
        Assert.Equal(FolderDifferenceKind.Changed, Assert.Single(overlap.Differences).Kind);
        Assert.Equal(1, scan.Summary.Folders!.PartialOverlaps);
    }

    [LinuxFact(RequiresRoot = true, Tool = "mount")]
    public async Task A_bind_mounted_folder_is_not_a_copy_and_delete_removes_nothing()
    {
        using var tree = new TempTree();
        Album(tree, "a");
        Directory.CreateDirectory(tree.PathOf("b"));
        using var mount = new BindMount(tree.PathOf("a"), tree.PathOf("b"));

        var (folders, files, scan) = await FolderScanRun.RunAsync(tree);

        Assert.Empty(folders);
        Assert.Empty(scan.FolderGroups);
        Assert.Empty(files); // each file seen twice is one file under two names
        Assert.Equal(0, scan.Summary.Folders!.WastedBytes);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--folders", "--yes", tree.Root]);
        Assert.True(exit == 0, stderr + stdout);
        foreach (var folder in new[] { "a", "b" })
        {
            Assert.Equal(One, File.ReadAllBytes(tree.PathOf($"{folder}/01.mp3")));
            Assert.Equal(Two, File.ReadAllBytes(tree.PathOf($"{folder}/02.mp3")));
            Assert.Equal(Three, File.ReadAllBytes(tree.PathOf($"{folder}/cd2/03.mp3")));
            Assert.Equal(Four, File.ReadAllBytes(tree.PathOf($"{folder}/cd2/04.mp3")));
        }
    }

    /// <summary>Mounts <c>source</c> again at <c>target</c>; unmounted on dispose.</summary>
    private sealed class BindMount : IDisposable
    {
        private readonly string _target;

        public BindMount(string source, string target)
        {
            _target = target;
            TempTree.Run("mount", "--bind", source, target);
        }

        public void Dispose() => TempTree.Run("umount", _target);
    }
}
