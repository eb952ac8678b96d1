using System.Text;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Trash;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The repair of interrupted trashings (<see cref="TrashDirectory.RemoveIncompleteTrashings"/>) at its edges: the size
/// and age limits to the byte and the tick, what is not a regular file or not a UTF-8 name, the info file given back,
/// and the folder sync; no descriptor is left open by any of them.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class TrashRepairTests
{
    private static readonly DateTime Written = new(2026, 1, 2, 3, 4, 5, DateTimeKind.Utc);

    [LinuxFact]
    public void An_orphan_of_the_largest_size_is_removed_and_one_byte_more_is_kept()
    {
        using var tree = new TempTree();
        var trash = Trash(tree);
        Orphan(trash, "largest.bin", new byte[8192]);
        Orphan(trash, "larger.bin", new byte[8193]);

        var removed = Repair(tree, trash, Written + TrashDirectory.OrphanGracePeriod);

        Assert.Equal(["largest.bin.trashinfo"], removed);
        Assert.Equal(["larger.bin.trashinfo"], Names(trash.InfoFolder));
    }

    [LinuxFact]
    public void An_orphan_is_removed_from_exactly_the_end_of_the_grace_period()
    {
        using var tree = new TempTree();
        var trash = Trash(tree);
        Orphan(trash, "x.bin", []);

        Assert.Empty(Repair(tree, trash, Written + TrashDirectory.OrphanGracePeriod - TimeSpan.FromTicks(1)));
        Assert.Equal(["x.bin.trashinfo"], Repair(tree, trash, Written + TrashDirectory.OrphanGracePeriod));
        Assert.Empty(Names(trash.InfoFolder));
    }

    [RequiresToolFact("mkfifo")]
    public void A_fifo_or_a_folder_named_as_an_info_file_is_never_removed()
    {
        using var tree = new TempTree();
        var trash = Trash(tree);
        TempTree.Run("mkfifo", Path.Combine(trash.InfoFolder, "pipe.bin.trashinfo"));
        Directory.CreateDirectory(Path.Combine(trash.InfoFolder, "folder.bin.trashinfo"));
        Orphan(trash, "x.bin", []);

        var removed = Repair(tree, trash, DateTime.UtcNow.AddDays(1));

        Assert.Equal(["x.bin.trashinfo"], removed);
        Assert.Equal(["folder.bin.trashinfo", "pipe.bin.trashinfo"], Names(trash.InfoFolder));
    }

    [LinuxFact]
    public void An_info_name_that_is_not_utf8_is_left_alone()
    {
        using var tree = new TempTree();
        var trash = Trash(tree);
        ExactNames.WriteFile([.. Encoding.UTF8.GetBytes(trash.InfoFolder + "/"), 0xFF, .. ".trashinfo"u8], new byte[16]);

        Assert.Empty(Repair(tree, trash, DateTime.UtcNow.AddDays(1)));
        Assert.Single(Names(trash.InfoFolder));
    }

    [LinuxFact]
    public void Restoring_an_info_file_writes_it_private_and_never_over_an_existing_name_or_through_a_link()
    {
        using var tree = new TempTree();
        var trash = Trash(tree);
        var outside = tree.Write("outside.txt", "outside");
        File.WriteAllText(Path.Combine(trash.InfoFolder, "taken.bin.trashinfo"), "another program's");
        File.CreateSymbolicLink(Path.Combine(trash.InfoFolder, "link.bin.trashinfo"), outside);
        var content = Encoding.UTF8.GetBytes("[Trash Info]\nPath=/x\nDeletionDate=2026-01-02T03:04:05\n");

        var (files, info) = trash.Open();
        using (files)
        using (info)
        {
            TrashDirectory.Restore(info.Fd, "x.bin.trashinfo", content);
            TrashDirectory.Restore(info.Fd, "taken.bin.trashinfo", content);
            TrashDirectory.Restore(info.Fd, "link.bin.trashinfo", content);
        }

        var restored = Path.Combine(trash.InfoFolder, "x.bin.trashinfo");
        Assert.Equal(content, File.ReadAllBytes(restored));
        Assert.Equal(0, TestNative.FileStatusOf(restored, out var status));
        Assert.Equal(0x8180u, status.Mode & 0xFFFFu); // a regular file, 0600
        Assert.Equal("another program's", File.ReadAllText(Path.Combine(trash.InfoFolder, "taken.bin.trashinfo")));
        Assert.Equal("outside", File.ReadAllText(outside));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public void Syncing_a_folder_gives_0_or_the_errno_and_keeps_no_descriptor()
    {
        using var tree = new TempTree();
        var file = tree.Write("file.bin", "a");
        using var folder = FolderHandle.TryOpen(tree.Root, followLast: false, out _)!;
        var fileFd = Libc.OpenAt(Libc.AT_FDCWD, file, Libc.O_RDONLY | Libc.O_CLOEXEC, 0);
        Assert.True(fileFd >= 0);
        try
        {
            Assert.Equal(0, TrashDirectory.SyncFolder(folder.Fd));
            Assert.Equal(20, TrashDirectory.SyncFolder(fileFd)); // ENOTDIR, not fsync's EBADF on no descriptor
        }
        finally
        {
            _ = Libc.Close(fileFd);
        }

        folder.Dispose();
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    private static TrashDirectory Trash(TempTree tree)
    {
        var file = tree.Write("data/x.bin", "a");
        return TrashDirectory.For(file, TestNative.Device(file), tree.PathOf("home/Trash"));
    }

    private static void Orphan(TrashDirectory trash, string name, byte[] content)
    {
        var path = Path.Combine(trash.InfoFolder, name + ".trashinfo");
        File.WriteAllBytes(path, content);
        File.SetLastWriteTimeUtc(path, Written);
    }

    /// <summary>Runs the repair and checks it left no descriptor open (each info file read is closed).</summary>
    private static List<string> Repair(TempTree tree, TrashDirectory trash, DateTime nowUtc)
    {
        var (files, info) = trash.Open();
        List<string> removed;
        using (files)
        using (info)
        {
            removed = TrashDirectory.RemoveIncompleteTrashings(files, info, nowUtc);
        }

        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
        removed.Sort(StringComparer.Ordinal);
        return removed;
    }

    private static List<string> Names(string folder) =>
        [.. Directory.GetFileSystemEntries(folder).Select(path => Path.GetFileName(path)).Order(StringComparer.Ordinal)];
}
