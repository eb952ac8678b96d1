using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Topology;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Pairs across the btrfs (<c>DEDUP_TEST_BTRFS</c>) and the small ext4 (<c>DEDUP_TEST_SMALLFS</c>): both are local
/// disk file systems, so Delete may act across them. In the small file system's collection: another test fills it up.
/// </summary>
[Collection(SmallFsCollection.Name)]
public sealed class CrossFileSystemTests
{
    private const string Btrfs = "DEDUP_TEST_BTRFS";
    private const string Small = "DEDUP_TEST_SMALLFS";

    [FactRequiringFolder(Btrfs, "a mounted btrfs", Small, "a mounted ext4")]
    public void A_file_on_btrfs_reports_the_btrfs_file_system_type()
    {
        using var btrfs = new LinkTree(LinkTree.BtrfsMount);
        var file = btrfs.Write("a.bin", [1, 2, 3]);

        // btrfs files carry an anonymous device number that /proc/self/mountinfo does not list.
        var device = DriveTopology.CreateDefault().GetDevice(TestNative.Device(file));

        Assert.Equal("btrfs", device.FileSystemType);
        Assert.StartsWith("loop", device.Name, StringComparison.Ordinal);
        Assert.Equal("ext4", DriveTopology.CreateDefault().GetDevice(TestNative.Device(LinkTree.SmallMount!)).FileSystemType);
    }

    [FactRequiringFolder(Btrfs, "a mounted btrfs", Small, "a mounted ext4")]
    public async Task Delete_across_btrfs_and_ext4_is_planned_and_applied()
    {
        using var btrfs = new LinkTree(LinkTree.BtrfsMount);
        using var small = new LinkTree(LinkTree.SmallMount);
        var content = TempTree.RandomBytes(10_000, 21);
        var kept = btrfs.Write("a.bin", content);
        var duplicate = small.Write("b.bin", content);
        var plan = LinkTree.Plan(await btrfs.ScanAsync(btrfs.Root, small.Root), Linkers.Delete, KeepRule.PreferUnder(btrfs.Root));

        var action = Assert.Single(plan.Actions);
        Assert.Null(action.Refusal);
        var report = await plan.ApplyAsync();

        Assert.Equal(DuplicateActionStatus.Done, Assert.Single(report.Outcomes).Status);
        Assert.False(File.Exists(duplicate));
        Assert.Equal(content, await File.ReadAllBytesAsync(kept));
    }
}
