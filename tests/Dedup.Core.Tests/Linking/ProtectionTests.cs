using Dedup.Core.Linking;
using Dedup.Core.Tests.Folders;
using Dedup.Core.Tests.Infrastructure;
using static Dedup.Core.Tests.Infrastructure.ReferenceRecipe;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Protected and reference folders (issue #37 point 3) on real trees: a protected copy is never acted on and, in a group
/// that has one, is the copy kept; with a reference folder, groups with no copy under it are left alone (rmlint's
/// <c>B // A -k -m</c>). The trees are <see cref="ReferenceRecipe"/>'s.
/// </summary>
public sealed class ProtectionTests
{
    private static async Task<DuplicateActionPlan> PlanAsync(TempTree tree, Action<DuplicateActionPlanBuilder> configure)
    {
        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(tree.Root));
        var builder = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete);
        configure(builder);
        return builder.Build().Plan(groups);
    }

    [LinuxFact]
    public async Task A_reference_folder_deletes_from_B_only_what_exists_in_A()
    {
        using var tree = Files();

        var plan = await PlanAsync(tree, b => b.Reference(tree.PathOf("A")));

        var action = Assert.Single(plan.Actions);
        Assert.Equal(tree.PathOf("B/copy"), action.Path.ToString());
        Assert.Equal(tree.PathOf("A/one"), action.Kept.Path.ToString());
        var unreferenced = Assert.Single(plan.UnreferencedGroups);
        Assert.Equal([tree.PathOf("B/x1"), tree.PathOf("B/x2")], unreferenced.Files.Select(f => f.Path.ToString()).Order(StringComparer.Ordinal));
        Assert.Empty(plan.UndecidedGroups);
        var text = new StringWriter();
        plan.WriteTo(text);
        Assert.Contains("leave 1 groups (2 copies): none under a reference folder", text.ToString(), StringComparison.Ordinal);

        var report = await plan.ApplyAsync();

        Assert.Equal(1, report.Done);
        Assert.Equal(["A/one", "A/two", "B/x1", "B/x2"], Remaining(tree));
        Assert.Equal(Same, File.ReadAllBytes(tree.PathOf("A/two")));
    }

    [LinuxFact]
    public async Task A_protected_copy_is_kept_whatever_the_rules_say_and_duplicates_elsewhere_are_still_acted_on()
    {
        using var tree = Files();

        // The rules alone keep B/copy (and would delete both copies in A).
        var unprotected = await PlanAsync(tree, b => b.Keep(KeepRule.PreferUnder(tree.PathOf("B"))).Keep(KeepRule.PathOrder));
        Assert.Contains(unprotected.Actions, a => a.Path.ToString() == tree.PathOf("A/one"));

        var plan = await PlanAsync(tree, b => b.Keep(KeepRule.PreferUnder(tree.PathOf("B"))).Keep(KeepRule.PathOrder).Protect(tree.PathOf("A")));

        Assert.Equal([tree.PathOf("B/copy"), tree.PathOf("B/x2")], plan.Actions.Select(a => a.Path.ToString()).Order(StringComparer.Ordinal));
        Assert.Equal(tree.PathOf("A/one"), plan.Actions.Single(a => a.Path.ToString() == tree.PathOf("B/copy")).Kept.Path.ToString());
        Assert.Empty(plan.UnreferencedGroups);
    }

    [LinuxFact]
    public async Task The_rules_choose_the_kept_copy_among_the_protected_and_a_tie_among_them_is_left_alone()
    {
        using var tree = Files();
        var early = new DateTime(2020, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        File.SetLastWriteTimeUtc(tree.PathOf("A/two"), early);
        File.SetLastWriteTimeUtc(tree.PathOf("A/one"), early.AddDays(1));
        File.SetLastWriteTimeUtc(tree.PathOf("B/copy"), early.AddDays(-1)); // oldest of all, but not protected

        var plan = await PlanAsync(tree, b => b.Keep(KeepRule.Oldest).Protect(tree.PathOf("A")));

        var action = Assert.Single(plan.Actions, a => a.Path.ToString() == tree.PathOf("B/copy"));
        Assert.Equal(tree.PathOf("A/two"), action.Kept.Path.ToString());

        File.SetLastWriteTimeUtc(tree.PathOf("A/one"), early);
        var tied = await PlanAsync(tree, b => b.Keep(KeepRule.Oldest).Protect(tree.PathOf("A")));

        Assert.DoesNotContain(tied.Actions, a => a.Path.ToString() == tree.PathOf("B/copy"));
        Assert.Contains(tied.UndecidedGroups, g => g.Files.Any(f => f.Path.ToString() == tree.PathOf("B/copy")));
    }

    [LinuxFact]
    public async Task A_folder_named_through_a_symbolic_link_is_protected_by_identity()
    {
        using var tree = Files();
        var link = tree.Symlink(tree.PathOf("A"), "to-A");

        var plan = await PlanAsync(tree, b => b.Keep(KeepRule.PreferUnder(tree.PathOf("B"))).Keep(KeepRule.PathOrder).Reference(link));

        var action = Assert.Single(plan.Actions);
        Assert.Equal(tree.PathOf("B/copy"), action.Path.ToString());
        Assert.Equal(tree.PathOf("A/one"), action.Kept.Path.ToString());
    }

    [LinuxFact]
    public async Task A_hard_link_name_under_a_protected_folder_protects_the_file()
    {
        using var tree = new TempTree();
        tree.Write("B/a", Same);
        tree.HardLink("B/a", "A/a");
        tree.Write("B/b", Same);

        var plan = await PlanAsync(tree, b => b.Keep(KeepRule.Custom("B/b", (x, y) => (y.Path.Name == "b").CompareTo(x.Path.Name == "b"))).Protect(tree.PathOf("A")));

        var action = Assert.Single(plan.Actions);
        Assert.Equal(tree.PathOf("B/b"), action.Path.ToString());
    }

    [LinuxFact]
    public async Task A_file_with_every_name_under_a_protected_folder_is_protected()
    {
        using var tree = new TempTree();
        tree.Write("A/a", Same);
        tree.HardLink("A/a", "A/b");
        tree.Write("B/c", Same);

        var plan = await PlanAsync(tree, b => b.Keep(KeepRule.PreferUnder(tree.PathOf("B"))).Protect(tree.PathOf("A")));

        var action = Assert.Single(plan.Actions);
        Assert.Equal(tree.PathOf("B/c"), action.Path.ToString());
    }

    [LinuxFact]
    public async Task A_reference_folder_renamed_after_the_scan_still_counts_by_its_path()
    {
        // The identities are read when planning: the folder is gone by then, so its path alone decides.
        using var tree = Files();
        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(tree.PathOf("A")).AddRoot(tree.PathOf("B")));
        var planner = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Reference(tree.PathOf("A")).Build();
        Directory.Move(tree.PathOf("A"), tree.PathOf("A-moved"));

        var plan = planner.Plan(groups);

        var action = Assert.Single(plan.Actions);
        Assert.Equal(tree.PathOf("B/copy"), action.Path.ToString());
        Assert.Equal(tree.PathOf("A/one"), action.Kept.Path.ToString());
        Assert.Single(plan.UnreferencedGroups);
    }

    [LinuxFact]
    public async Task A_folder_named_twice_counts_once()
    {
        // By path alone (renamed after the scan, as above): naming A twice as a reference folder changes nothing.
        using var tree = Files();
        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(tree.PathOf("A")).AddRoot(tree.PathOf("B")));
        var planner = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Reference(tree.PathOf("A"), tree.PathOf("A")).Build();
        Directory.Move(tree.PathOf("A"), tree.PathOf("A-moved"));

        var plan = planner.Plan(groups);

        Assert.Equal(tree.PathOf("B/copy"), Assert.Single(plan.Actions).Path.ToString());
        Assert.Single(plan.UnreferencedGroups);
    }

    [LinuxFact]
    public async Task Folders_that_are_missing_or_files_fail_Build()
    {
        using var tree = Files();

        var missing = Assert.Throws<ArgumentException>(() => new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Protect(tree.PathOf("nothing")).Build());
        var file = Assert.Throws<ArgumentException>(() => new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Reference(tree.PathOf("B/x1")).Build());

        Assert.Equal($"The protected folder '{tree.PathOf("nothing")}' does not exist.", missing.Message);
        Assert.Equal($"The reference folder '{tree.PathOf("B/x1")}' is a file, not a folder.", file.Message);
        var both = Assert.Throws<ArgumentException>(() => new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Reference(tree.PathOf("B/x1")).Protect(tree.PathOf("nothing")).Build());
        Assert.Equal(missing.Message, both.Message); // the protected folders are checked first
        Assert.Throws<ArgumentNullException>(() => new DuplicateActionPlanBuilder().Protect(null!));
        Assert.Throws<ArgumentNullException>(() => new DuplicateActionPlanBuilder().Reference(null!));
        await Task.CompletedTask;
    }

    [LinuxFact]
    public async Task Whole_folders_follow_the_same_rules()
    {
        using var tree = new TempTree();
        foreach (var folder in new[] { "A/d", "B/d" })
        {
            tree.Write($"{folder}/p.bin", Same);
            tree.Write($"{folder}/q.bin", Other);
        }

        foreach (var folder in new[] { "B/e", "B/f" })
        {
            tree.Write($"{folder}/r.bin", TempTree.RandomBytes(3000, 383));
            tree.Write($"{folder}/s.bin", TempTree.RandomBytes(3500, 384));
        }

        var (_, _, scan) = await FolderScanRun.RunAsync(tree);
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Keep(KeepRule.PreferUnder(tree.PathOf("B"))).Keep(KeepRule.PathOrder)
            .Reference(tree.PathOf("A")).Build().PlanFolders(scan.FolderGroups);

        var action = Assert.Single(plan.Actions);
        Assert.Equal(tree.PathOf("A/d"), action.Kept.ToString());
        Assert.Equal(tree.PathOf("B/d"), action.Folder.ToString());
    }

    /// <summary>
    /// Folder mode with a reference folder: the pair B/d1, B/d2 has no folder under A, so it is left alone as folders
    /// and given back to the file groups: f's copies join A/one's group and are deleted; u's make a group of their own,
    /// left alone (no copy under A). Named or ignoring names alike; without reference folders nothing is given back.
    /// </summary>
    [LinuxTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_folder_pair_with_no_folder_under_a_reference_folder_gives_its_files_back(bool ignoreNames)
    {
        using var tree = FolderPairs();
        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).UseFolderMode(ignoreNames: ignoreNames).Build().FindAsync();
        var groups = new List<DuplicateGroup>();
        await foreach (var group in scan)
        {
            groups.Add(group);
        }

        var builder = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete);
        Assert.Equal(
            builder.Build().Plan(groups).Actions.Select(a => a.Path),
            builder.Build().Plan(groups, scan.FolderGroups).Actions.Select(a => a.Path));
        var planner = builder.Reference(tree.PathOf("A")).Build();
        Assert.Empty(planner.PlanFolders(scan.FolderGroups).Actions);

        var plan = planner.Plan(groups, scan.FolderGroups);

        Assert.Equal([tree.PathOf("B/d1/f"), tree.PathOf("B/d2/f")], plan.Actions.Select(a => a.Path.ToString()));
        Assert.All(plan.Actions, a => Assert.Equal(tree.PathOf("A/one"), a.Kept.Path.ToString()));
        Assert.All(plan.Actions, a => Assert.Null(a.Refusal));
        var alone = Assert.Single(plan.UnreferencedGroups);
        Assert.Equal([tree.PathOf("B/d1/u"), tree.PathOf("B/d2/u")], alone.Files.Select(f => f.Path.ToString()));
        Assert.Equal(Other.Length, alone.Size);
        Assert.True(alone.VerifiedByBytes);
    }

    [LinuxFact]
    public async Task A_folder_holding_a_protected_folder_is_never_acted_on_whole()
    {
        using var tree = new TempTree();
        foreach (var folder in new[] { "X", "Y" })
        {
            tree.Write($"{folder}/inner/p.bin", Same);
            tree.Write($"{folder}/q.bin", Other);
        }

        var (_, _, scan) = await FolderScanRun.RunAsync(tree);
        var planner = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Keep(KeepRule.PreferUnder(tree.PathOf("Y"))).Keep(KeepRule.PathOrder);
        Assert.Equal(tree.PathOf("X"), Assert.Single(planner.Build().PlanFolders(scan.FolderGroups).Actions).Folder.ToString());

        var action = Assert.Single(planner.Protect(tree.PathOf("X/inner")).Build().PlanFolders(scan.FolderGroups).Actions);

        Assert.Equal(tree.PathOf("X"), action.Kept.ToString());
        Assert.Equal(tree.PathOf("Y"), action.Folder.ToString());
    }

    [LinuxFact]
    public async Task A_folder_holding_a_protected_folder_named_through_a_symbolic_link_is_never_acted_on_whole()
    {
        using var tree = new TempTree();
        foreach (var folder in new[] { "X", "Y" })
        {
            tree.Write($"{folder}/inner/p.bin", Same);
            tree.Write($"{folder}/q.bin", Other);
        }

        var link = tree.Symlink(tree.PathOf("X/inner"), "to-inner"); // not under X by its path: only its real path is

        var (_, _, scan) = await FolderScanRun.RunAsync(tree);
        var action = Assert.Single(new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Keep(KeepRule.PreferUnder(tree.PathOf("Y"))).Keep(KeepRule.PathOrder)
            .Protect(link).Build().PlanFolders(scan.FolderGroups).Actions);

        Assert.Equal(tree.PathOf("X"), action.Kept.ToString());
        Assert.Equal(tree.PathOf("Y"), action.Folder.ToString());
    }
}
