using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Issue #37 point 8: a file system that cannot do the action at all is one <see cref="FileSystemRefusal"/> for the
/// plan (its actions still refused one by one); the trash refusal of a part says the copies outside the part exist;
/// <see cref="KeepRule.PreferUnder"/> knows a folder by identity as protection does. In the small file system's
/// collection: another test fills it up.
/// </summary>
[Collection(SmallFsCollection.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class ActingReviewTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, 371);

    [FactRequiringFolder("DEDUP_TEST_SMALLFS", "a mounted ext4, which cannot clone")]
    public async Task A_clone_plan_on_ext4_has_one_file_system_refusal_holding_each_refused_action()
    {
        using var tree = new LinkTree(LinkTree.SmallMount);
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        tree.Write("c.bin", Content);
        var groups = await tree.ScanAsync();

        var plan = LinkTree.Plan(groups, Linkers.Clone);

        var refusal = Assert.Single(plan.FileSystemRefusals);
        Assert.Equal(plan.Actions, refusal.Actions);
        Assert.Equal(2, refusal.Actions.Count);
        Assert.All(refusal.Actions, a => Assert.Equal(refusal.Reason, a.Refusal));
        Assert.StartsWith("the file system cannot clone this file (FICLONE: ", refusal.Reason, StringComparison.Ordinal);
        Assert.Equal(plan.Actions[0].Path, refusal.FirstPath);
        Assert.Empty(LinkTree.Plan(groups, Linkers.HardLink).FileSystemRefusals); // hard links: nothing to probe
    }

    [LinuxFact]
    public async Task A_part_of_trash_copies_says_the_copies_outside_the_trash_cannot_be_joined_to_it()
    {
        using var tree = new LinkTree();
        var trashed = Write(tree, ".local/share/Trash/files/a.bin", "600");
        var trashed2 = Write(tree, ".local/share/Trash/files/a.2.bin", "600");
        Write(tree, "Documents/a.bin", "644");
        Write(tree, "Documents/b.bin", "644");

        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink);

        var refused = Assert.Single(plan.Actions, a => a.Kept.Path.ToString() == trashed || a.Kept.Path.ToString() == trashed2);
        Assert.Equal(
            $"every copy this one could be joined to is in a trash folder or is a temporary file ({refused.Kept.Path}); the copies outside it are on another file system or have another owner, group or permissions, so nothing is done",
            refused.Refusal);
        Assert.Null(Assert.Single(plan.Actions, a => a.Kept.Path.ToString().Contains("/Documents/", StringComparison.Ordinal)).Refusal);
    }

    [LinuxFact]
    public async Task PreferUnder_a_folder_named_through_a_symbolic_link_keeps_the_copy_in_the_real_folder()
    {
        using var tree = new LinkTree();
        tree.Write("a/x.bin", Content);
        var real = tree.Write("b/x.bin", Content);
        var link = tree.PathOf("to-b");
        File.CreateSymbolicLink(link, tree.PathOf("b"));

        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("a"), tree.PathOf("b")), Linkers.Delete, KeepRule.PreferUnder(link));

        Assert.Empty(plan.UndecidedGroups);
        Assert.Equal(real, Assert.Single(plan.Actions).Kept.Path.ToString());
    }

    private static string Write(LinkTree tree, string name, string mode)
    {
        var path = tree.Write(name, Content);
        TempTree.Run("chmod", mode, path);
        return path;
    }
}
