using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The last checks of <see cref="LeftoverCleaner"/> given the state a race would leave (issue #34, point 12): a name
/// whose file was swapped or touched after it was checked is not unlinked, a file opened that is not the one checked
/// is left alone, a kept file whose identity is not the scanned one proves nothing, and no descriptor stays open.
/// </summary>
public sealed class LeftoverCleanerDetailTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(15_000, 221);

    [LinuxFact]
    public void A_name_is_unlinked_only_while_it_is_the_file_checked_with_the_same_change_time()
    {
        using var tree = new TempTree();
        var name = TemporaryNames.NewName();
        var path = tree.Write(name, Content);
        using var folder = FolderHandle.TryOpen(tree.Root, followLast: true, out _)!;
        Assert.Equal(0, Libc.LStatAt(folder.Fd, name, out var status));

        var otherNanoseconds = status;
        otherNanoseconds.CtimeNsec ^= 1;
        var otherSecond = status;
        otherSecond.CtimeSec += 1;
        var otherFile = status;
        otherFile.Ino += 1;
        foreach (var stale in new[] { otherNanoseconds, otherSecond, otherFile })
        {
            Assert.Equal("changed while being checked; left alone", LeftoverCleaner.Unlink(folder, name, stale));
            Assert.Equal(Content, File.ReadAllBytes(path));
        }

        Assert.Null(LeftoverCleaner.Unlink(folder, name, status));
        Assert.False(File.Exists(path));
        Assert.Equal("changed while being checked; left alone", LeftoverCleaner.Unlink(folder, name, status));
    }

    [LinuxFact]
    public void A_file_opened_that_is_not_the_one_checked_or_cannot_be_opened_is_left_alone()
    {
        using var tree = new TempTree();
        var checkedName = TemporaryNames.NewName();
        var otherName = TemporaryNames.NewName();
        tree.Write(checkedName, []);
        var other = tree.Write(otherName, []);
        using var folder = FolderHandle.TryOpen(tree.Root, followLast: true, out _)!;
        using var roots = new RootHandles();
        Assert.Equal(0, Libc.LStatAt(folder.Fd, checkedName, out var status));

        Assert.Equal("changed while being checked; left alone", LeftoverCleaner.TryRemoveFile(folder, otherName, status, [], roots));
        Assert.True(File.Exists(other));
        Assert.Equal("cannot be opened (No such file or directory); left alone", LeftoverCleaner.TryRemoveFile(folder, TemporaryNames.NewName(), status, [], roots));
        Assert.Null(LeftoverCleaner.TryRemoveFile(folder, checkedName, status, [], roots)); // empty: removed
        Assert.False(File.Exists(tree.PathOf(checkedName)));
    }

    [LinuxFact]
    public async Task Another_name_of_a_kept_file_on_another_device_than_the_scanned_one_proves_nothing()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        var action = Assert.Single(LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink).Actions);
        var leftover = tree.PathOf(TemporaryNames.NewName());
        TempTree.Run("ln", action.Kept.Path.ToString(), leftover);
        var elsewhere = action.Kept with { Identity = action.Kept.Identity with { Device = action.Kept.Identity.Device + 1 } };
        DuplicateAction[] actions = [new(action.Kind, action.Group, elsewhere, action.Duplicate, action.Path, action.ReclaimableBytes, null)];

        var (removed, leftAlone) = Remove([leftover], actions);

        Assert.Equal(0, removed);
        Assert.Equal($"{leftover}: not provably a replacement made by this tool (no file this plan keeps has its bytes); left alone", Assert.Single(leftAlone));
        Assert.Equal(2u, TestNative.LinkCount(leftover));
    }

    [LinuxFact]
    public async Task A_copy_of_a_kept_file_is_removed_and_every_descriptor_is_closed()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        var action = Assert.Single(LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink).Actions);
        var leftover = tree.Write(TemporaryNames.NewName(), Content);

        var (removed, leftAlone) = Remove([leftover], [action]);

        Assert.Equal(1, removed);
        Assert.Empty(leftAlone);
        Assert.False(File.Exists(leftover));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    private static (int Removed, IReadOnlyList<string> LeftAlone) Remove(string[] leftovers, DuplicateAction[] actions)
    {
        using var roots = new RootHandles();
        return LeftoverCleaner.Remove(leftovers, actions, _ => actions[0].Group.Roots, roots);
    }
}
