using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Between the scan and the action, a user who can write inside the scanned tree swaps a folder on a file's path for
/// a symbolic link, or swaps the root itself. The victim folder outside the roots holds a hard link to the scanned
/// file, so the file found there even has the scanned identity: only reaching every file from its root without
/// following links keeps the action inside the roots. Every linker must leave the victim untouched.
/// </summary>
public sealed class ActionScopeTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(30_000, 31);

    [LinuxTheory]
    [MemberData(nameof(FaultInjectionTests.Kinds), MemberType = typeof(FaultInjectionTests))]
    public async Task A_duplicate_folder_swapped_for_a_link_out_of_the_roots_is_skipped(string kind)
    {
        using var tree = new LinkTree();
        var plan = await PlanKeepAndSubAsync(tree, kind);
        Assert.Single(plan.Actions);

        // The victim holds another name of the very file that was scanned (same device and inode).
        Directory.CreateDirectory(tree.PathOf("victim"));
        TempTree.Run("ln", tree.PathOf("root/sub/d.bin"), tree.PathOf("victim/d.bin"));
        Directory.Move(tree.PathOf("root/sub"), tree.PathOf("root/sub.real"));
        Symlink(tree.PathOf("victim"), tree.PathOf("root/sub"));
        var victim = tree.Snapshot(tree.PathOf("victim"));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("is a symbolic link", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(victim, tree.Snapshot(tree.PathOf("victim")), new SnapshotComparer());
        Assert.Equal(Content, File.ReadAllBytes(tree.PathOf("root/sub.real/d.bin")));
        Assert.Empty(Directory.GetFileSystemEntries(tree.PathOf("victim"), ".dedup-tmp-*"));
    }

    [LinuxTheory]
    [MemberData(nameof(FaultInjectionTests.Kinds), MemberType = typeof(FaultInjectionTests))]
    public async Task A_kept_folder_swapped_for_a_link_out_of_the_roots_is_skipped(string kind)
    {
        using var tree = new LinkTree();
        var plan = await PlanKeepAndSubAsync(tree, kind);

        Directory.CreateDirectory(tree.PathOf("victim"));
        TempTree.Run("ln", tree.PathOf("root/keep/k.bin"), tree.PathOf("victim/k.bin"));
        Directory.Move(tree.PathOf("root/keep"), tree.PathOf("root/keep.real"));
        Symlink(tree.PathOf("victim"), tree.PathOf("root/keep"));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("kept file's folder", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(Content, File.ReadAllBytes(tree.PathOf("root/sub/d.bin")));
        Assert.Null(new FileInfo(tree.PathOf("root/sub/d.bin")).LinkTarget);
        Assert.Equal(1u, TestNative.LinkCount(tree.PathOf("root/sub/d.bin")));
    }

    [LinuxTheory]
    [MemberData(nameof(FaultInjectionTests.Kinds), MemberType = typeof(FaultInjectionTests))]
    public async Task A_root_replaced_by_another_folder_with_the_same_names_is_refused(string kind)
    {
        using var tree = new LinkTree();
        var plan = await PlanKeepAndSubAsync(tree, kind);

        // The same names, leading to the same files (hard links), in a folder that is not the scanned root.
        Directory.Move(tree.PathOf("root"), tree.PathOf("root.real"));
        Directory.CreateDirectory(tree.PathOf("root/keep"));
        Directory.CreateDirectory(tree.PathOf("root/sub"));
        TempTree.Run("ln", tree.PathOf("root.real/keep/k.bin"), tree.PathOf("root/keep/k.bin"));
        TempTree.Run("ln", tree.PathOf("root.real/sub/d.bin"), tree.PathOf("root/sub/d.bin"));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("is no longer the folder that was scanned", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(2u, TestNative.LinkCount(tree.PathOf("root/sub/d.bin")));
        Assert.Equal(Content, File.ReadAllBytes(tree.PathOf("root/sub/d.bin")));
    }

    [LinuxFact]
    public async Task A_root_given_as_a_symbolic_link_is_still_acted_on()
    {
        // The user may name a root through a link (as the scan follows it); only links below the root stop actions.
        using var tree = new LinkTree();
        tree.Write("real/keep/k.bin", Content);
        tree.Write("real/sub/d.bin", Content);
        var root = Symlink(tree.PathOf("real"), tree.PathOf("alias"));
        var plan = FaultInjectionTests.Plan(tree, await tree.ScanAsync(root), "hard", KeepRule.PreferUnder(Path.Combine(root, "keep")));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.Equal(TestNative.Inode(tree.PathOf("real/keep/k.bin")), TestNative.Inode(tree.PathOf("real/sub/d.bin")));
    }

    [LinuxFact]
    public async Task A_file_the_scan_reached_through_a_followed_link_is_not_acted_on()
    {
        using var tree = new LinkTree();
        tree.Write("root/keep/k.bin", Content);
        tree.Write("elsewhere/d.bin", Content);
        Symlink(tree.PathOf("elsewhere"), tree.PathOf("root/linked"));
        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(tree.PathOf("root")).FollowSymbolicLinks());
        var plan = LinkTree.Plan(groups, Linkers.Delete, KeepRule.PreferUnder(tree.PathOf("root/keep")));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("is a symbolic link", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(Content, File.ReadAllBytes(tree.PathOf("elsewhere/d.bin")));
    }

    /// <summary>root/keep/k.bin (kept) and root/sub/d.bin (its duplicate), scanned from root/ and planned.</summary>
    private static async Task<DuplicateActionPlan> PlanKeepAndSubAsync(LinkTree tree, string kind)
    {
        tree.Write("root/keep/k.bin", Content);
        tree.Write("root/sub/d.bin", Content);
        return FaultInjectionTests.Plan(tree, await tree.ScanAsync(tree.PathOf("root")), kind, KeepRule.PreferUnder(tree.PathOf("root/keep")));
    }

    private static string Symlink(string target, string link)
    {
        File.CreateSymbolicLink(link, target);
        return link;
    }

    private sealed class SnapshotComparer : IEqualityComparer<Dictionary<string, byte[]>>
    {
        public bool Equals(Dictionary<string, byte[]>? x, Dictionary<string, byte[]>? y) =>
            x is not null && y is not null && x.Count == y.Count && x.All(p => y.TryGetValue(p.Key, out var b) && p.Value.AsSpan().SequenceEqual(b));

        public int GetHashCode(Dictionary<string, byte[]> obj) => obj.Count;
    }
}
