using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;
using Xunit;

namespace Dedup.Core.Tests.Folders;

/// <summary>
/// <see cref="FolderRecheck"/> given the state a race would leave (issue #34, point 12): a file on the scanned inode
/// number but another device is another file, a file with no folder is refused, and a folder the kernel can no longer
/// list stops the action with the reason.
/// </summary>
public sealed class FolderRecheckDetailTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(6000, 241);

    [LinuxFact]
    public async Task A_file_with_the_scanned_inode_number_on_another_device_is_another_file()
    {
        using var tree = new LinkTree();
        var action = await OneDeleteAsync(tree);
        using var roots = new RootHandles();
        using var recheck = new FolderRecheck(action.Group.Roots, roots);
        recheck.Verify(action.Kept, action.Duplicate);
        var elsewhere = action.Duplicate with { Identity = action.Duplicate.Identity with { Device = action.Duplicate.Identity.Device + 1 } };

        var refused = Assert.Throws<ActionStoppedException>(() => recheck.Verify(action.Kept, elsewhere));

        Assert.Equal($"{action.Duplicate.Path} is now another file", refused.Message);
    }

    [LinuxFact]
    public async Task A_file_that_is_in_no_folder_is_refused()
    {
        using var tree = new LinkTree();
        var action = await OneDeleteAsync(tree);
        using var roots = new RootHandles();
        using var recheck = new FolderRecheck(action.Group.Roots, roots);

        var refused = Assert.Throws<ActionStoppedException>(() => recheck.Verify(action.Kept, action.Duplicate with { Path = AbsolutePath.Parse("/") }));

        Assert.Equal("/ is not in a folder", refused.Message);
    }

    /// <summary>Two copies in the tree's root and the one delete action planned for them.</summary>
    private static async Task<DuplicateAction> OneDeleteAsync(LinkTree tree)
    {
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        return Assert.Single(LinkTree.Plan(await tree.ScanAsync(), Linkers.Delete).Actions);
    }

    [LinuxFact]
    public void A_folder_the_kernel_can_no_longer_list_stops_the_action()
    {
        // The descriptors of a process that has exited and been reaped: the folder (opened while it ran) cannot be read.
        using var process = Process.Start(new ProcessStartInfo("sleep", "600") { UseShellExecute = false })!;
        var folder = AbsolutePath.Parse($"/proc/{process.Id.ToString(CultureInfo.InvariantCulture)}/fd");
        ScanRoot[] scanned = [ScanRoot.Capture(folder)];
        using var roots = new RootHandles();
        Assert.NotNull(roots.Get(scanned[0], out var problem));
        Assert.Equal(string.Empty, problem);
        process.Kill();
        process.WaitForExit();
        using var recheck = new FolderRecheck(scanned, roots);

        var refused = Assert.Throws<ActionStoppedException>(() => recheck.RequireUnchanged(Snapshot(folder), "folder", checkChangeTime: true));

        Assert.Equal("the folder cannot be listed again (.: No such file or directory)", refused.Message);
    }

    /// <summary>A snapshot of an empty folder (the scan builds them from its tree; here only the folder matters).</summary>
    private static FolderSnapshot Snapshot(AbsolutePath folder) =>
        (FolderSnapshot)typeof(FolderSnapshot)
            .GetConstructor(BindingFlags.NonPublic | BindingFlags.Instance, [typeof(AbsolutePath), typeof(IReadOnlyList<FolderSnapshotEntry>), typeof(bool)])!
            .Invoke([folder, Array.Empty<FolderSnapshotEntry>(), false]);
}
