using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Each way <see cref="LeftoverCleaner"/> decides about one leftover (issue #34, point 12): removed only when no byte
/// can be lost (empty, another name of a kept file, a clone of one whose name still leads to it, a link to a name of
/// the plan), otherwise left alone with the reason; a name already gone is neither.
/// </summary>
public sealed class LeftoverCleanerTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, 81);

    private static string Temporary(char digit) => ".dedup-tmp-" + new string(digit, 32);

    /// <summary>k.bin is kept, d.bin (with a second name d2.bin) is the duplicate, both in f/; the root is the tree.</summary>
    private static async Task<(LinkTree Tree, DuplicateActionPlan Plan)> PlanAsync()
    {
        var tree = new LinkTree();
        tree.Write("f/k.bin", Content);
        tree.Write("f/d.bin", Content);
        TempTree.Run("ln", tree.PathOf("f/d.bin"), tree.PathOf("f/d2.bin"));
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink, KeepRule.Custom("k.bin", (a, b) => Rank(a).CompareTo(Rank(b))));
        return (tree, plan);
    }

    private static string Symlink(LinkTree tree, string target, string relative)
    {
        var path = tree.PathOf(relative);
        File.CreateSymbolicLink(path, target);
        return path;
    }

    private static int Rank(DuplicateFile file) => file.Path.Name == "k.bin" ? 0 : 1;

    private static (int Removed, IReadOnlyList<string> LeftAlone) Remove(DuplicateActionPlan plan, params string[] leftovers)
    {
        using var roots = new RootHandles();
        return LeftoverCleaner.Remove(leftovers, plan.Actions, _ => plan.Actions[0].Group.Roots, roots);
    }

    [LinuxFact]
    public async Task Names_that_are_not_temporary_gone_or_not_regular_files_are_never_removed()
    {
        var (tree, plan) = await PlanAsync();
        using var _ = tree;
        var user = tree.Write("f/notes.txt", []);
        var gone = tree.PathOf("f/" + Temporary('1'));
        var fifo = tree.PathOf("f/" + Temporary('2'));
        TempTree.Run("mkfifo", fifo);
        var folder = tree.PathOf("f/" + Temporary('3'));
        Directory.CreateDirectory(folder);

        var (removed, leftAlone) = Remove(plan, user, gone, fifo, folder);

        Assert.Equal(0, removed);
        Assert.Equal(
            [$"{user}: not a temporary name; left alone", $"{fifo}: not a regular file; left alone", $"{folder}: not a regular file; left alone"],
            leftAlone);
        Assert.True(File.Exists(user));
        Assert.True(Directory.Exists(folder));
    }

    [LinuxFact]
    public async Task A_leftover_whose_folder_cannot_be_reached_from_a_root_is_left_alone()
    {
        var (tree, plan) = await PlanAsync();
        using var _ = tree;
        var leftover = tree.Write("f/" + Temporary('1'), []);
        using var roots = new RootHandles();

        var (removed, leftAlone) = LeftoverCleaner.Remove([leftover], plan.Actions, _ => [], roots);

        Assert.Equal(0, removed);
        Assert.Equal($"{leftover}: folder no scanned root is known for it; left alone", Assert.Single(leftAlone));
        Assert.True(File.Exists(leftover));
    }

    [LinuxFact]
    public async Task An_empty_leftover_another_name_of_the_kept_file_and_links_to_the_plans_names_are_removed()
    {
        var (tree, plan) = await PlanAsync();
        using var _ = tree;
        var empty = tree.Write("f/" + Temporary('1'), []);
        var keptName = tree.PathOf("f/" + Temporary('2'));
        TempTree.Run("ln", tree.PathOf("f/k.bin"), keptName);
        var relative = Symlink(tree, "d2.bin", "f/" + Temporary('3'));          // the duplicate's other name, relative
        var absolute = Symlink(tree, tree.PathOf("f/k.bin"), "f/" + Temporary('4')); // the kept file, absolute

        var (removed, leftAlone) = Remove(plan, empty, keptName, relative, absolute);

        Assert.Empty(leftAlone);
        Assert.Equal(4, removed);
        Assert.Empty(Directory.EnumerateFileSystemEntries(tree.PathOf("f"), ".dedup-tmp-*"));
        Assert.Equal(Content, File.ReadAllBytes(tree.PathOf("f/k.bin")));
        Assert.Equal(Content, File.ReadAllBytes(tree.PathOf("f/d2.bin")));
    }

    [LinuxFact]
    public async Task A_copy_of_the_kept_bytes_is_left_alone_once_the_kept_name_leads_elsewhere_or_nowhere()
    {
        var (tree, plan) = await PlanAsync();
        using var _ = tree;
        var copy = tree.Write("f/" + Temporary('1'), Content);
        var kept = tree.PathOf("f/k.bin");
        File.Move(kept, tree.PathOf("f/k.moved"));
        File.WriteAllBytes(kept, Content); // same bytes, another file: the kept file of the scan is gone

        var (removed, leftAlone) = Remove(plan, copy);

        Assert.Equal(0, removed);
        Assert.Equal($"{copy}: not provably a replacement made by this tool (no file this plan keeps has its bytes); left alone", Assert.Single(leftAlone));
        File.Delete(kept);
        Assert.Single(Remove(plan, copy).LeftAlone);
        var copyElsewhere = tree.Write("h/" + Temporary('2'), Content);
        Directory.Move(tree.PathOf("f"), tree.PathOf("g"));
        Assert.Single(Remove(plan, copyElsewhere).LeftAlone); // the kept file's folder is gone
        Assert.Equal(Content, File.ReadAllBytes(copyElsewhere));
        Assert.Equal(Content, File.ReadAllBytes(tree.PathOf("g/" + Temporary('1'))));
    }

    [LinuxFact]
    public async Task A_copy_of_the_kept_bytes_is_removed_and_a_link_to_a_stranger_is_not()
    {
        var (tree, plan) = await PlanAsync();
        using var _ = tree;
        var copy = tree.Write("f/" + Temporary('1'), Content);
        var dangling = Symlink(tree, "nowhere.bin", "f/" + Temporary('2'));

        var (removed, leftAlone) = Remove(plan, copy, dangling);

        Assert.Equal(1, removed);
        Assert.False(File.Exists(copy));
        Assert.Equal($"{dangling}: a symbolic link to nowhere.bin, not to a file of this plan; left alone", Assert.Single(leftAlone));
    }

    [LinuxFact]
    public async Task A_leftover_that_cannot_be_unlinked_says_why()
    {
        var (tree, plan) = await PlanAsync();
        using var _ = tree;
        var empty = tree.Write("f/" + Temporary('1'), []);
        tree.MakeImmutable(tree.PathOf("f"));

        var (removed, leftAlone) = Remove(plan, empty);

        tree.MakeMutable(tree.PathOf("f"));
        Assert.Equal(0, removed);
        Assert.Equal($"{empty}: cannot be removed (Operation not permitted)", Assert.Single(leftAlone));
        Assert.True(File.Exists(empty));
    }

    [LinuxFact]
    public async Task A_plan_removes_leftovers_beside_its_actions_and_leaves_those_of_other_folders()
    {
        var (tree, plan) = await PlanAsync();
        using var _ = tree;
        var beside = tree.Write("f/" + Temporary('1'), []);
        var elsewhere = tree.Write("g/" + Temporary('2'), []);
        var withLeftovers = new DuplicateActionPlan(plan.Linker, plan.Actions, [beside, elsewhere]);
        using var roots = new RootHandles();

        var (removed, leftAlone) = LeftoverCleaner.Remove(withLeftovers, roots);

        Assert.Equal(1, removed);
        Assert.False(File.Exists(beside));
        Assert.Equal($"{elsewhere}: folder no scanned root is known for it; left alone", Assert.Single(leftAlone));
    }

    [LinuxFact]
    public async Task No_leftovers_is_nothing_removed_and_nothing_left_alone()
    {
        var (tree, plan) = await PlanAsync();
        using var _ = tree;

        var (removed, leftAlone) = Remove(plan);

        Assert.Equal(0, removed);
        Assert.Empty(leftAlone);
        Assert.True(File.Exists(tree.PathOf("f/d.bin")));
    }
}
