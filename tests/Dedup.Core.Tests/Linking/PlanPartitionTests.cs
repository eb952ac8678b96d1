using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using static Dedup.Core.Tests.Linking.PartitionFiles;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Issue #36: the planner splits a group by what the action can do (one device for hard links, clones and dedupe; one
/// owner, group and permissions for links) and keeps one file per part, so copies that could be joined are joined even
/// when the file the rules prefer cannot take them; a copy that can join none is left with the reason. Real files:
/// modes set with chmod, owners with chown (as root), a group across the btrfs and the small ext4 for clones. In the
/// small file system's collection: another test fills it up.
/// </summary>
[Collection(SmallFsCollection.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class PlanPartitionTests
{
    private const string Btrfs = "DEDUP_TEST_BTRFS";
    private const string Small = "DEDUP_TEST_SMALLFS";

    [LinuxFact]
    public async Task Modes_600_644_644_hard_link_the_two_644s_and_leave_the_600_with_the_reason()
    {
        using var tree = new LinkTree();
        var a = Write(tree, "a.bin", "600"); // first in path order: the file the rules prefer
        var b = Write(tree, "b.bin", "644");
        var c = Write(tree, "c.bin", "644");

        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink);

        Assert.Equal(
            $"""
            keep {b} (20000 bytes)
              skip {a}: owner, group or permissions differ (kept {Ids(b)} 644, duplicate {Ids(a)} 600); a link would give the duplicate's names the kept file's and share its future writes
              hard-link {c} (frees 20000 bytes)
            note: hard links give each duplicate name the kept file's modification time, permissions and extended attributes
            2 actions, 19.5 KiB (20000 bytes) to reclaim

            """,
            TextOf(plan));
        var report = await plan.ApplyAsync();
        Assert.Equal((1, 1), (report.Done, report.Skipped));
        Assert.Equal(TestNative.Inode(b), TestNative.Inode(c));
        Assert.NotEqual(TestNative.Inode(b), TestNative.Inode(a));
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(a));
    }

    [LinuxFact]
    public async Task A_protected_copy_is_the_kept_file_of_its_part_and_is_never_acted_on_from_another()
    {
        // Parts and protection together (#36 point 2 with #37 point 3): z/p.bin is protected and 644, so it is kept in
        // the 644 part although path order prefers a/x.bin; the 600 part's own pair is linked to its own kept file, and
        // the protected 600 copy in z/ is kept there and never touched.
        using var tree = new LinkTree();
        var a600 = Write(tree, "a/x.bin", "600");
        var b600 = Write(tree, "b/x.bin", "600");
        var a644 = Write(tree, "a/y.bin", "644");
        var p644 = Write(tree, "z/p.bin", "644");
        var p600 = Write(tree, "z/q.bin", "600");

        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).Protect(tree.PathOf("z")).Build().Plan(await tree.ScanAsync());

        Assert.Equal(
            [(a600, p600), (a644, p644), (b600, p600)],
            plan.Actions.Select(x => (x.Path.ToString(), x.Kept.Path.ToString())).Order());
        Assert.All(plan.Actions, x => Assert.Null(x.Refusal));
        var inodes = new[] { p644, p600 }.Select(TestNative.Inode).ToArray();
        var report = await plan.ApplyAsync();
        Assert.Equal(3, report.Done);
        Assert.Equal(TestNative.Inode(p600), TestNative.Inode(a600));
        Assert.Equal(TestNative.Inode(p600), TestNative.Inode(b600));
        Assert.Equal(TestNative.Inode(p644), TestNative.Inode(a644));
        Assert.Equal(inodes, new[] { p644, p600 }.Select(TestNative.Inode).ToArray());
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(p600));
    }

    [LinuxFact(RequiresRoot = true)]
    public async Task Owners_and_groups_split_a_hard_link_group_as_permissions_do()
    {
        using var tree = new LinkTree();
        var a = Write(tree, "a.bin", "644", "0:0");
        var b = Write(tree, "b.bin", "644", "1000:1000");
        var c = Write(tree, "c.bin", "644", "1000:1000");
        var d = Write(tree, "d.bin", "644", "1000:1001");

        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink);

        Assert.Equal(
            [(b, a, "0:0 644"), (b, c, null), (b, d, "1000:1001 644")],
            plan.Actions.Select(x => (x.Kept.Path.ToString(), x.Path.ToString(), x.Refusal is null ? null : x.Refusal[(x.Refusal.IndexOf("duplicate ", StringComparison.Ordinal) + 10)..x.Refusal.IndexOf(')', StringComparison.Ordinal)])));
        Assert.Equal(Content.Length, plan.ReclaimableBytes);
        Assert.Equal(1, (await plan.ApplyAsync()).Done);
        Assert.Equal(TestNative.Inode(b), TestNative.Inode(c));
        Assert.Equal(0, TestNative.FileStatusOf(c, out var linked));
        Assert.Equal((1000u, 1000u), (linked.Uid, linked.Gid));
    }

    [FactRequiringFolder(Btrfs, "a mounted btrfs, for clones", Small, "a mounted ext4, which cannot clone")]
    public async Task A_group_across_ext4_and_btrfs_clones_the_btrfs_pair_and_leaves_the_ext4_copy_with_the_reason()
    {
        using var btrfs = new LinkTree(LinkTree.BtrfsMount);
        using var small = new LinkTree(LinkTree.SmallMount);
        var a = btrfs.Write("a.bin", Content);
        var b = btrfs.Write("b.bin", Content);
        var c = small.Write("c.bin", Content);
        var groups = await btrfs.ScanAsync(btrfs.Root, small.Root);

        // The rules prefer the ext4 copy, which can be no clone's source for a btrfs file.
        var plan = LinkTree.Plan(groups, Linkers.Clone, KeepRule.PreferUnder(small.Root), KeepRule.PathOrder);

        Assert.Equal(
            $"""
            keep {a} (20000 bytes)
              clone {b} (frees 20000 bytes)
              skip {c}: kept file and duplicate are on different file systems; a clone cannot cross devices (no copy or link is made instead)
            2 actions, 19.5 KiB (20000 bytes) to reclaim

            """,
            TextOf(plan));
        var report = await plan.ApplyAsync();
        Assert.Equal((1, 1), (report.Done, report.Skipped));
        Assert.Equal(DuplicateActionStatus.Done, report.Outcomes.Single(o => o.Action.Path.ToString() == b).Status);
        Assert.DoesNotContain(LinkTree.Plan(await btrfs.ScanAsync(btrfs.Root, small.Root), Linkers.Clone, KeepRule.PreferUnder(small.Root), KeepRule.PathOrder).Actions, x => x.Refusal is null); // b is now a's clone
        Assert.Equal(Content, await File.ReadAllBytesAsync(c));
    }

    [LinuxFact]
    public async Task A_part_the_rules_leave_tied_is_listed_undecided_while_the_other_part_is_linked()
    {
        using var tree = new LinkTree();
        var time = new DateTime(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        var a = Write(tree, "a.bin", "600", time);
        var b = Write(tree, "b.bin", "600", time.AddDays(2)); // the newest: kept
        var c = Write(tree, "c.bin", "644", time.AddDays(1));
        var d = Write(tree, "d.bin", "644", time.AddDays(1)); // tied with c

        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink, KeepRule.Newest);

        var action = Assert.Single(plan.Actions);
        Assert.Equal((b, a, null), (action.Kept.Path.ToString(), action.Path.ToString(), action.Refusal));
        var undecided = Assert.Single(plan.UndecidedGroups);
        Assert.Equal([c, d], undecided.Files.Select(f => f.Path.ToString()));
        Assert.Equal(Content.Length, undecided.Size);
    }

    [LinuxFact]
    public async Task A_group_rebuilt_from_a_report_gets_the_same_parts_and_records_owner_and_mode()
    {
        using var tree = new LinkTree();
        var a = Write(tree, "a.bin", "600");
        var b = Write(tree, "b.bin", "644");
        var c = Write(tree, "c.bin", "644");
        var scanned = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink);
        var roots = new[] { ScanRoot.Capture(AbsolutePath.Parse(tree.Root)) };

        var group = ReportedDuplicates.FromReport(roots, Content.Length, [Reported(a), Reported(b), Reported(c)], out var problems);

        Assert.Empty(problems);
        Assert.NotNull(group);
        Assert.Equal([0x180, 0x1A4, 0x1A4], group.Files.Select(f => f.Mode));
        Assert.All(group.Files, f => Assert.Equal(OwnerOf(f.Path.ToString()), (f.OwnerId, f.GroupId)));
        var plan = LinkTree.Plan([group], Linkers.HardLink);
        Assert.Equal(TextOf(scanned), TextOf(plan));
    }

    [LinuxFact]
    public async Task A_scan_records_each_files_owner_group_and_permission_bits()
    {
        using var tree = new LinkTree();
        Write(tree, "a.bin", "4750");
        Write(tree, "b.bin", "640");

        var files = Assert.Single(await tree.ScanAsync()).Files;

        Assert.Equal([0x9E8, 0x1A0], files.Select(f => f.Mode)); // 04750 (set-user-id kept), 0640: no file-type bits
        Assert.All(files, f => Assert.Equal(OwnerOf(f.Path.ToString()), (f.OwnerId, f.GroupId)));
        Assert.Equal(files[0], files[0] with { OwnerId = null, GroupId = null, Mode = null }); // reports do not carry them: equal when read back
    }

    [LinuxFact]
    public void A_group_without_roots_is_refused_in_the_plan_and_so_is_a_file_outside_them()
    {
        using var tree = new LinkTree();
        var a = tree.Write("in/a.bin", Content);
        var b = tree.Write("in/b.bin", Content);
        var outside = tree.Write("out/c.bin", Content);
        var group = new DuplicateGroup(Content.Length, [Described(a), Described(b), Described(outside)], verifiedByBytes: true); // made by hand: no Roots

        var plan = LinkTree.Plan([group], Linkers.Delete);
        var rooted = LinkTree.Plan([group with { Roots = [ScanRoot.Capture(AbsolutePath.Parse(tree.PathOf("in")))] }], Linkers.Delete);

        Assert.All(plan.Actions, x => Assert.Equal("no scanned root is known for the group (it was not made by a scan or a report; set DuplicateGroup.Roots): files are reached only from a scanned root, so nothing is done", x.Refusal));
        Assert.Equal(2, plan.Actions.Count);
        Assert.Equal(0, plan.ReclaimableBytes);
        Assert.Equal([null, $"duplicate's folder {tree.PathOf("out")}: is not under any scanned root; left untouched"], rooted.Actions.Select(x => x.Refusal));
        Assert.Equal(Content.Length, rooted.ReclaimableBytes);
        var keptOutside = LinkTree.Plan([group with { Roots = [ScanRoot.Capture(AbsolutePath.Parse(tree.PathOf("in")))] }], Linkers.Delete, KeepRule.PreferUnder(tree.PathOf("out")));
        Assert.All(keptOutside.Actions, x => Assert.Equal($"kept file's folder {tree.PathOf("out")}: is not under any scanned root; nothing done", x.Refusal));
    }

    private static string Ids(string path) => $"{OwnerOf(path).Owner}:{OwnerOf(path).Group}";

    private static DuplicateFile Described(string path)
    {
        Assert.Equal(0, TestNative.FileStatusOf(path, out var status));
        return new DuplicateFile(AbsolutePath.Parse(path), [], new FileIdentity(status.Device, status.Ino), Content.Length, 1, status.LastWriteTimeUtc);
    }

    private static ReportedFile Reported(string path)
    {
        Assert.Equal(0, TestNative.FileStatusOf(path, out var status));
        return new ReportedFile(AbsolutePath.Parse(path), new FileIdentity(status.Device, status.Ino), (long)status.Size, status.LastWriteTimeUtc, status.ChangeTimeUtc);
    }
}
