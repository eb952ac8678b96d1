using Dedup.Core.Linking;

namespace Dedup.Core.NetFxTests;

/// <summary>Acting on groups from the netstandard2.0 build under Mono: hard links through libc, re-verified first.</summary>
public sealed class LinkTests
{
    [Fact]
    public async Task HardLinkReplacesDuplicatesAfterReverifying()
    {
        using var tree = new TempTree();
        var keep = tree.File("a/keep.txt", "duplicate content");
        var copy1 = tree.File("b/copy1.txt", "duplicate content");
        var copy2 = tree.File("c/copy2.txt", "duplicate content");
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).Build();

        var planner = new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).Keep(KeepRule.PathOrder).Build();
        var plan = await planner.PlanAsync(finder.FindAsync());
        Assert.Equal(2, plan.Actions.Count);
        var report = await plan.ApplyAsync();

        Assert.All(report.Outcomes, o => Assert.Equal(DuplicateActionStatus.Done, o.Status));
        var kept = TempTree.Identity(keep);
        Assert.Equal(3, kept.Links);
        Assert.Equal(kept.Inode, TempTree.Identity(copy1).Inode);
        Assert.Equal(kept.Inode, TempTree.Identity(copy2).Inode);
        Assert.Equal("duplicate content", File.ReadAllText(copy2));
        Assert.Empty(await ScanTests.GroupsAsync(new DuplicateFinderBuilder().AddRoot(tree.Root), tree.Root));
    }

    [Fact]
    public async Task FileChangedAfterTheScanIsLeftAlone()
    {
        using var tree = new TempTree();
        var keep = tree.File("a/keep.txt", "duplicate content");
        var copy = tree.File("b/copy.txt", "duplicate content");
        var planner = new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).Keep(KeepRule.PathOrder).Build();
        var plan = await planner.PlanAsync(new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync());

        File.WriteAllText(copy, "DUPLICATE CONTENT"); // same size, other bytes: only the re-verification sees it
        File.SetLastWriteTimeUtc(copy, File.GetLastWriteTimeUtc(keep));
        var report = await plan.ApplyAsync();

        Assert.DoesNotContain(report.Outcomes, o => o.Status == DuplicateActionStatus.Done);
        Assert.Equal("DUPLICATE CONTENT", File.ReadAllText(copy));
        Assert.NotEqual(TempTree.Identity(keep).Inode, TempTree.Identity(copy).Inode);
    }
}
