using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Actions with a root that is a file (#37 point 6): they may touch that one name, found again by identity, and
/// nothing beside it in its folder; the kept file may be a file root too.
/// </summary>
public sealed class FileRootActionTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(30_000, 41);

    [LinuxTheory]
    [MemberData(nameof(FaultInjectionTests.Kinds), MemberType = typeof(FaultInjectionTests))]
    public async Task A_file_root_duplicate_is_acted_on_and_nothing_beside_it(string kind)
    {
        using var tree = new LinkTree();
        tree.Write("keep/k.bin", Content);
        var root = tree.Write("loose/a.bin", Content);
        tree.Write("loose/beside.bin", Content);
        var groups = await tree.ScanAsync(tree.PathOf("keep"), root);
        var beside = tree.Snapshot(tree.PathOf("loose"))[tree.PathOf("loose/beside.bin")];

        var outcome = Assert.Single((await FaultInjectionTests.Plan(tree, groups, kind, KeepRule.PreferUnder(tree.PathOf("keep"))).ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.Equal(root, outcome.Action.Path.ToString());
        Assert.Equal(beside, File.ReadAllBytes(tree.PathOf("loose/beside.bin")));
        Assert.Equal(1u, TestNative.LinkCount(tree.PathOf("loose/beside.bin")));
        string[] left = kind is "hard" or "symbolic" ? ["a.bin", "beside.bin"] : ["beside.bin"];
        Assert.Equal(left, Directory.GetFileSystemEntries(tree.PathOf("loose")).Select(Path.GetFileName).Order(StringComparer.Ordinal));
    }

    [LinuxFact]
    public async Task A_file_root_can_be_the_kept_file_of_a_hard_link()
    {
        using var tree = new LinkTree();
        var root = tree.Write("loose/a.bin", Content);
        tree.Write("dir/x.bin", Content);
        var groups = await tree.ScanAsync(root, tree.PathOf("dir"));

        var plan = LinkTree.Plan(groups, Linkers.HardLink, KeepRule.Custom("the file root", (a, b) => (b.Path.ToString() == root).CompareTo(a.Path.ToString() == root)));
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.Equal(TestNative.Inode(root), TestNative.Inode(tree.PathOf("dir/x.bin")));
    }

    [LinuxFact]
    public async Task A_file_root_replaced_by_another_file_since_the_scan_is_skipped()
    {
        using var tree = new LinkTree();
        tree.Write("keep/k.bin", Content);
        var root = tree.Write("loose/a.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("keep"), root), Linkers.Delete, KeepRule.PreferUnder(tree.PathOf("keep")));
        File.Move(root, tree.PathOf("loose/old.bin"));
        tree.Write("loose/a.bin", Content); // the same bytes, another file

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("is no longer the file that was scanned", outcome.Reason, StringComparison.Ordinal);
        Assert.True(File.Exists(root));
    }

    [LinuxFact]
    public async Task A_file_roots_folder_swapped_for_a_link_to_another_name_of_the_file_is_refused()
    {
        // The victim folder holds another name of the very file that was scanned: only the folder's identity tells.
        using var tree = new LinkTree();
        tree.Write("keep/k.bin", Content);
        var root = tree.Write("loose/a.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("keep"), root), Linkers.Delete, KeepRule.PreferUnder(tree.PathOf("keep")));
        Directory.CreateDirectory(tree.PathOf("victim"));
        TempTree.Run("ln", root, tree.PathOf("victim/a.bin"));
        Directory.Move(tree.PathOf("loose"), tree.PathOf("loose.real"));
        File.CreateSymbolicLink(tree.PathOf("loose"), tree.PathOf("victim"));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("its folder is no longer the folder that was scanned", outcome.Reason, StringComparison.Ordinal);
        Assert.True(File.Exists(tree.PathOf("victim/a.bin")));
    }

    [LinuxFact]
    public async Task A_name_beside_a_file_root_in_a_group_made_by_hand_is_refused_at_plan_time()
    {
        using var tree = new LinkTree();
        tree.Write("keep/k.bin", Content);
        var root = tree.Write("loose/a.bin", Content);
        var beside = tree.Write("loose/beside.bin", Content);
        var group = Assert.Single(await tree.ScanAsync(tree.PathOf("keep"), root));
        var besideFile = Assert.Single(Assert.Single(await tree.ScanAsync(tree.PathOf("keep"), beside)).Files, f => f.Path.ToString() == beside);
        var forged = new DuplicateGroup(group.Size, [.. group.Files.Where(f => f.Path.ToString() != root), besideFile], group.VerifiedByBytes) { Roots = group.Roots };

        var action = Assert.Single(LinkTree.Plan([forged], Linkers.Delete, KeepRule.PreferUnder(tree.PathOf("keep"))).Actions);

        Assert.Contains("is not under any scanned root", action.Refusal, StringComparison.Ordinal);
        var outcome = Assert.Single((await LinkTree.Plan([forged], Linkers.Delete, KeepRule.PreferUnder(tree.PathOf("keep"))).ApplyAsync()).Outcomes);
        Assert.NotEqual(DuplicateActionStatus.Done, outcome.Status);
        Assert.True(File.Exists(beside));
    }
}
