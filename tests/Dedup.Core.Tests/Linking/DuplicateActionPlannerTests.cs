using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Topology;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// <see cref="DuplicateActionPlanner.Plan"/>'s own decisions: which file systems a delete may cross, which refusal is
/// given when several apply, groups too small to act on, and a clone done before. In the small file system's
/// collection: one test uses it, and another class fills it up.
/// </summary>
[Collection(SmallFsCollection.Name)]
public sealed class DuplicateActionPlannerTests
{
    private static readonly DateTime Time = new(2022, 5, 1, 0, 0, 0, DateTimeKind.Utc);

    public static TheoryData<string> LocalTypes => new()
    {
        "ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", "zfs", "jfs", "reiserfs", "tmpfs", "vfat", "exfat", "ntfs", "ntfs3", "hfsplus", "apfs",
    };

    [LinuxTheory]
    [MemberData(nameof(LocalTypes))]
    public void Delete_across_two_local_disk_file_systems_is_planned(string type)
    {
        // Each local type on either side, with another local type (ext4, or xfs for ext4 itself) on the other.
        var other = type == "ext4" ? "xfs" : "ext4";
        foreach (var (keptType, duplicateType) in new[] { (type, other), (other, type) })
        {
            var plan = PlanAcross(Linkers.Delete, keptType, duplicateType);

            var action = Assert.Single(plan.Actions);
            Assert.Null(action.Refusal);
            Assert.Equal(10, action.ReclaimableBytes);
        }
    }

    [LinuxFact]
    public void Delete_across_a_file_system_that_may_show_one_file_twice_is_refused_naming_both_types()
    {
        foreach (var (keptType, duplicateType) in new[] { ("fuse.sshfs", "ext4"), ("ext4", "overlay"), ("nfs4", "cifs") })
        {
            var plan = PlanAcross(Linkers.Delete, keptType, duplicateType);

            var action = Assert.Single(plan.Actions);
            Assert.Equal(
                $"kept and duplicate are on different file systems ({keptType}, {duplicateType}), one of which may show the same file under another identity; refused so the only copy is never removed",
                action.Refusal);
            Assert.Equal(0, plan.ReclaimableBytes);
        }
    }

    [LinuxFact]
    public void A_hard_link_is_planned_across_any_types_it_is_the_linkers_own_refusal_that_counts()
    {
        // Only delete, trash, symbolic links and custom linkers ask the file-system types; a hard link refuses any other device itself.
        var plan = PlanAcross(Linkers.HardLink, "fuse.sshfs", "ext4");

        Assert.Equal(
            "kept file and duplicate are on different file systems; a hard link cannot cross devices (no other kind of link is made instead)",
            Assert.Single(plan.Actions).Refusal);
    }

    [LinuxFact]
    public void The_groups_refusal_comes_before_the_linkers()
    {
        var media = new DuplicateGroup(10, [Made("/m/a.mp3", 1, 1), Made("/m/b.mp3", 2, 2)], verifiedByBytes: true, ContentMatch.MediaPayload);

        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).Build().Plan([media]);

        Assert.Equal(
            "media-payload match: the files differ byte for byte (tags or metadata), so neither replaces the other",
            Assert.Single(plan.Actions).Refusal);
    }

    [FactRequiringFolder("DEDUP_TEST_SMALLFS", "a second file system, for a pair across devices")]
    public async Task The_linkers_refusal_comes_before_the_predicted_one()
    {
        using var here = new LinkTree();
        using var small = new LinkTree(LinkTree.SmallMount);
        var content = TempTree.RandomBytes(3000, 41);
        here.Write("a.bin", content);
        var duplicate = small.Write("b.bin", content);
        File.SetUnixFileMode(duplicate, UnixFileMode.UserRead | UnixFileMode.UserWrite); // the prediction would refuse this too
        var groups = await here.ScanAsync(here.Root, small.Root);

        var plan = LinkTree.Plan(groups, Linkers.HardLink, KeepRule.PreferUnder(here.Root));

        var action = Assert.Single(plan.Actions);
        Assert.Equal(duplicate, action.Path.ToString());
        Assert.Equal("kept file and duplicate are on different file systems; a hard link cannot cross devices (no other kind of link is made instead)", action.Refusal);
    }

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs, for clones")]
    public async Task A_duplicate_already_cloned_from_the_kept_file_is_not_planned_again()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes(256 * 1024, 42);
        tree.Write("a.bin", content);
        tree.Write("b.bin", content);
        var first = LinkTree.Plan(await tree.ScanAsync(), Linkers.Clone);
        Assert.Null(Assert.Single(first.Actions).Refusal);
        Assert.Equal(1, (await first.ApplyAsync()).Done);

        var again = LinkTree.Plan(await tree.ScanAsync(), Linkers.Clone);

        Assert.Empty(again.Actions);
        Assert.Equal(0, again.ReclaimableBytes);
    }

    /// <summary>A pair on two devices the topology gives these file-system types, planned with <paramref name="linker"/>.</summary>
    private static DuplicateActionPlan PlanAcross(Linker linker, string keptType, string duplicateType)
    {
        var planner = new DuplicateActionPlanBuilder().UseLinker(linker).Build();
        planner.UseTopology(new FixedTopology(new Dictionary<ulong, string> { [101] = keptType, [102] = duplicateType }));
        return planner.Plan([new DuplicateGroup(10, [Made("/x/a.bin", 101, 1), Made("/y/b.bin", 102, 2)], verifiedByBytes: true).Rooted()]);
    }

    private static DuplicateFile Made(string path, ulong device, ulong inode) =>
        new(AbsolutePath.Parse(path), [], new FileIdentity(device, inode), 10, 1, Time);

    private sealed class FixedTopology(Dictionary<ulong, string> types) : IDriveTopology
    {
        public StorageDevice GetDevice(ulong deviceId) => new(deviceId, "test", DriveKind.Unknown, types.GetValueOrDefault(deviceId));
    }
}
