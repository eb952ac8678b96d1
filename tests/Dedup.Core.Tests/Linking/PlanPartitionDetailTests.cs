using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using static Dedup.Core.Tests.Linking.PartitionFiles;
using Dedup.Core.Topology;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The details of splitting a group by what the action can do (#36): the status at plan time decides, the described
/// owner and mode where no status can be read, which kept file a copy that joins none is shown against, the order of
/// the plan, and the groups that stay whole (delete, clone across modes, symbolic links across devices, media matches).
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class PlanPartitionDetailTests
{
    private static readonly DateTime Time = new(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    [LinuxFact]
    public async Task Parts_follow_each_files_status_at_plan_time_not_the_scans()
    {
        using var tree = new LinkTree();
        var a = Write(tree, "a.bin", "644");
        var b = Write(tree, "b.bin", "644");
        var c = Write(tree, "c.bin", "644");
        var groups = await tree.ScanAsync();
        TempTree.Run("chmod", "600", a); // after the scan: what applying will find

        var plan = LinkTree.Plan(groups, Linkers.HardLink);

        Assert.Equal([(b, a, true), (b, c, false)], Summary(plan));
    }

    [LinuxFact]
    public void Where_no_status_can_be_read_the_described_owner_and_mode_split_the_group()
    {
        // Made-up paths: nothing to read now, so the files' own OwnerId, GroupId and Mode decide (the file-type bits ignored).
        var group = new DuplicateGroup(10, [Described("/p/a.bin", 1, 0x8180), Described("/p/b.bin", 2, 0x81A4), Described("/p/c.bin", 3, 0x81A4)], verifiedByBytes: true).Rooted();

        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).Build().Plan([group]);

        Assert.Equal(["/p/b.bin", "/p/b.bin"], plan.Actions.Select(x => x.Kept.Path.ToString()));
        Assert.Equal(["/p/a.bin", "/p/c.bin"], plan.Actions.Select(x => x.Path.ToString()));
    }

    [LinuxFact]
    public async Task A_copy_that_joins_none_is_shown_against_the_kept_file_the_rules_prefer_and_the_plan_goes_kept_file_by_kept_file()
    {
        using var tree = new LinkTree();
        var a = Write(tree, "a.bin", "600", Time);
        var b = Write(tree, "b.bin", "644", Time.AddDays(3)); // the newest of all
        var c = Write(tree, "c.bin", "644", Time);
        var d = Write(tree, "d.bin", "600", Time.AddDays(1)); // the newest 600
        var e = Write(tree, "e.bin", "640", Time);

        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink, KeepRule.Newest, KeepRule.PathOrder);

        Assert.Equal([(b, c, false), (b, e, true), (d, a, false)], Summary(plan));
        Assert.Equal(2 * Content.Length, plan.ReclaimableBytes);
    }

    [LinuxFact]
    public async Task Copies_that_can_join_none_and_tie_under_the_rules_leave_the_whole_group_undecided()
    {
        using var tree = new LinkTree();
        Write(tree, "a.bin", "600", Time);
        Write(tree, "b.bin", "644", Time);
        var group = Assert.Single(await tree.ScanAsync());

        var plan = LinkTree.Plan([group], Linkers.HardLink, KeepRule.Newest);

        Assert.Empty(plan.Actions);
        Assert.Same(group, Assert.Single(plan.UndecidedGroups));
    }

    [LinuxFact]
    public async Task Delete_and_clone_keep_one_file_per_group_whatever_the_permissions()
    {
        using var tree = new LinkTree();
        var a = Write(tree, "a.bin", "600");
        Write(tree, "b.bin", "644");
        Write(tree, "c.bin", "644");
        var groups = await tree.ScanAsync();

        var delete = LinkTree.Plan(groups, Linkers.Delete);
        var clone = LinkTree.Plan(groups, Linkers.Clone);

        Assert.All(delete.Actions, x => Assert.Equal((a, null), (x.Kept.Path.ToString(), x.Refusal)));
        Assert.Equal(2, delete.Actions.Count);
        Assert.All(clone.Actions, x => Assert.Equal(a, x.Kept.Path.ToString())); // refused or not, as the temp folder's file system says
        Assert.Equal(2, clone.Actions.Count);
    }

    [LinuxFact]
    public void Symbolic_links_across_local_devices_and_media_matches_are_not_split_by_device()
    {
        var files = new[] { Made("/p/a.bin", 101, 1), Made("/q/b.bin", 102, 2), Made("/q/c.bin", 102, 3) };
        var group = new DuplicateGroup(10, files, verifiedByBytes: true).Rooted();
        var symbolic = new DuplicateActionPlanBuilder().UseLinker(Linkers.SymbolicLink()).Build();
        symbolic.UseTopology(new FixedTopology());
        var media = new DuplicateGroup(10, files, verifiedByBytes: true, ContentMatch.MediaPayload).Rooted();

        var links = symbolic.Plan([group]);
        var hard = new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).Build().Plan([media]);

        Assert.Equal([("/p/a.bin", "/q/b.bin"), ("/p/a.bin", "/q/c.bin")], links.Actions.Select(x => (x.Kept.Path.ToString(), x.Path.ToString())));
        Assert.All(links.Actions, x => Assert.Null(x.Refusal));
        Assert.Equal([("/p/a.bin", "/q/b.bin"), ("/p/a.bin", "/q/c.bin")], hard.Actions.Select(x => (x.Kept.Path.ToString(), x.Path.ToString())));
        Assert.All(hard.Actions, x => Assert.StartsWith("media-payload match", x.Refusal, StringComparison.Ordinal));
    }

    private static DuplicateFile Made(string path, ulong device, ulong inode) =>
        new(AbsolutePath.Parse(path), [], new FileIdentity(device, inode), 10, 1, Time);

    private static DuplicateFile Described(string path, ulong inode, int mode) =>
        Made(path, 1, inode) with { OwnerId = 0, GroupId = 0, Mode = mode };

    /// <summary>Every device an ext4: local, so a symbolic link may cross them.</summary>
    private sealed class FixedTopology : IDriveTopology
    {
        public StorageDevice GetDevice(ulong deviceId) => new(deviceId, "test", DriveKind.Unknown, "ext4");
    }
}
