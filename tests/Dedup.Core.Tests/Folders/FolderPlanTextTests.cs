using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;

namespace Dedup.Core.Tests.Folders;

/// <summary>Folder plans as people read them (the dry run, line for line) and the per-file actions and bytes they carry.</summary>
public sealed class FolderPlanTextTests
{
    private static readonly byte[] One = TempTree.RandomBytes(5000, 11);
    private static readonly byte[] Two = TempTree.RandomBytes(6000, 12);
    private static readonly byte[] Three = TempTree.RandomBytes(7000, 13);

    private static async Task<DuplicateScan> ScanAsync(TempTree tree, bool ignoreNames = false) =>
        (await FolderScanRun.RunAsync(tree, ignoreNames, b => b.IncludeHidden(true))).Scan;

    private static DuplicateFolderActionPlan Plan(DuplicateScan scan, Linker linker, params KeepRule[] rules)
    {
        var builder = new DuplicateActionPlanBuilder().UseLinker(linker);
        foreach (var rule in rules)
        {
            builder.Keep(rule);
        }

        return builder.Build().PlanFolders(scan.FolderGroups);
    }

    [LinuxFact]
    public async Task The_dry_run_lists_leftovers_below_the_folders_each_kept_folder_each_copy_and_refusals()
    {
        using var tree = new TempTree();
        foreach (var root in new[] { "a_kept", "b_copy" })
        {
            tree.Write($"{root}/x.bin", One);
            tree.Write($"{root}/sub/y.bin", Two);
        }

        var leftover = tree.Write("b_copy/sub/.dedup-tmp-0123456789abcdef0123456789abcdef", [9]);
        var keptLeftover = tree.Write("a_kept/.dedup-tmp-abcdef0123456789abcdef0123456789", [8]); // the kept folder's own names are searched too
        tree.Write(".Trash-0/files/p/z.bin", Three); // copies that are both in a trash: one is kept, the other refused
        tree.Write(".Trash-0/files/q/z.bin", Three);

        var plan = Plan(await ScanAsync(tree), Linkers.Delete);

        Assert.Equal([keptLeftover, leftover], plan.LeftoverTemporaryFiles.Order(StringComparer.Ordinal));
        Assert.Equal(
            new[]
            {
                $"remove leftover temporary file {keptLeftover}",
                $"remove leftover temporary file {leftover}",
                $"keep folder {tree.PathOf("a_kept")}/ (2 files, 11000 bytes)",
                $"  delete folder {tree.PathOf("b_copy")}/ (2 files, frees 11000 bytes)",
                $"keep folder {tree.PathOf(".Trash-0/files/p")}/ (1 files, 7000 bytes)",
                $"  skip folder {tree.PathOf(".Trash-0/files/q")}/: the kept folder {tree.PathOf(".Trash-0/files/p")} is in a trash folder; nothing is kept outside it",
                $"2 folder actions, {ByteCount.Format(11000)} (11000 bytes) to reclaim",
            }.Order(StringComparer.Ordinal),
            PlanTextTests.Lines(plan.WriteTo).Order(StringComparer.Ordinal));
        Assert.Equal(11000, plan.ReclaimableBytes);
        Assert.Equal(0, Assert.Single(plan.Actions, a => a.Refusal is not null).ReclaimableBytes);
        Assert.StartsWith("remove leftover temporary file ", PlanTextTests.Lines(plan.WriteTo)[0], StringComparison.Ordinal);

        var tied = Plan(await ScanAsync(tree), Linkers.Delete, KeepRule.Custom("no preference", (_, _) => 0));
        Assert.Empty(tied.Actions);
        Assert.Equal(2, tied.UndecidedGroups.Count);
        Assert.Contains($"leave folders {tree.PathOf("a_kept")}/, {tree.PathOf("b_copy")}/: no keep rule decides which one stays", PlanTextTests.Lines(tied.WriteTo));
        Assert.Equal($"0 folder actions, {ByteCount.Format(0)} (0 bytes) to reclaim", PlanTextTests.Lines(tied.WriteTo)[^1]);
    }

    [LinuxFact]
    public async Task Each_name_of_a_copied_file_gets_an_action_and_only_a_file_with_no_name_elsewhere_frees_its_bytes()
    {
        using var tree = new TempTree();
        foreach (var root in new[] { "a_kept", "b_copy" })
        {
            tree.Write($"{root}/x.bin", One);
            tree.Write($"{root}/x2.bin", One);
            tree.Write($"{root}/sub/y.bin", Two);
        }

        File.Delete(tree.PathOf("b_copy/x2.bin"));
        TempTree.Run("ln", tree.PathOf("b_copy/x.bin"), tree.PathOf("b_copy/x2.bin")); // one file, two names in the copy
        TempTree.Run("ln", tree.PathOf("b_copy/sub/y.bin"), tree.PathOf("y-elsewhere.bin")); // also named outside both folders
        var scan = await ScanAsync(tree);

        var link = Assert.Single(Plan(scan, Linkers.HardLink).Actions);
        Assert.Null(link.Refusal);
        Assert.Equal(
            new[]
            {
                ("b_copy/sub/y.bin", "a_kept/sub/y.bin", 0L),
                ("b_copy/x.bin", "a_kept/x.bin", 0L),
                ("b_copy/x2.bin", "a_kept/x.bin", 5000L),
            },
            link.FileActions.Select(a => (Relative(tree, a.Path), Relative(tree, a.Kept.Path), a.ReclaimableBytes)).Order());
        Assert.All(link.FileActions, a => Assert.Equal(DuplicateActionKind.HardLink, a.Kind));
        Assert.Equal(5000, link.ReclaimableBytes);

        // Dedupe acts on the data once per file, whatever its names, and frees it whatever names it has elsewhere.
        var dedupe = Assert.Single(Plan(scan, Linkers.Dedupe).Actions);
        Assert.Equal(
            new[] { ("b_copy/sub/y.bin", 6000L), ("b_copy/x.bin", 5000L) },
            dedupe.FileActions.Select(a => (Relative(tree, a.Path), a.ReclaimableBytes)).Order());
        Assert.Equal(11000, dedupe.ReclaimableBytes);
    }

    [Fact]
    public void A_group_made_by_hand_is_refused_for_every_folder_but_the_first()
    {
        var group = new DuplicateFolderGroup([AbsolutePath.Parse("/m/a"), AbsolutePath.Parse("/m/b"), AbsolutePath.Parse("/m/c")], 2, 20, verifiedByBytes: true);
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().PlanFolders([group]);

        Assert.Equal(["/m/b", "/m/c"], plan.Actions.Select(a => a.Folder.ToString()));
        Assert.All(plan.Actions, a =>
        {
            Assert.Equal("/m/a", a.Kept.ToString());
            Assert.Equal("no scan listing of the folders to check against (the group was not made by a scan); act on the file groups instead", a.Refusal);
            Assert.Equal(0, a.ReclaimableBytes);
            Assert.Empty(a.FileActions);
            Assert.Same(group, a.Group);
            Assert.Equal(DuplicateActionKind.Delete, a.Kind);
        });
        Assert.Equal(0, plan.ReclaimableBytes);
        Assert.Throws<ArgumentNullException>(() => plan.WriteTo(null!));
        Assert.Empty(new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().PlanFolders([group with { Folders = [AbsolutePath.Parse("/m/a")] }]).Actions);
    }

    [LinuxFact]
    public async Task A_custom_linker_is_refused_on_whole_folders()
    {
        using var tree = new TempTree();
        tree.Write("a_kept/x.bin", One);
        tree.Write("b_copy/x.bin", One);

        var action = Assert.Single(Plan(await ScanAsync(tree), new NoOpLinker()).Actions);
        Assert.Equal("a custom linker acts on file groups only", action.Refusal);
        Assert.Equal(tree.PathOf("b_copy"), action.Folder.ToString());
    }

    [LinuxFact]
    public async Task Keep_rules_see_a_folder_as_its_latest_file_change_and_its_total_size()
    {
        using var tree = new TempTree();
        foreach (var root in new[] { "a", "b" })
        {
            tree.Write($"{root}/x.bin", One);
            tree.Write($"{root}/y.bin", Two);
        }

        // a's files were last changed in 2021, b's in 2022 (though b also holds the oldest file).
        File.SetLastWriteTimeUtc(tree.PathOf("a/x.bin"), new DateTime(2020, 1, 1, 0, 0, 0, DateTimeKind.Utc));
        File.SetLastWriteTimeUtc(tree.PathOf("a/y.bin"), new DateTime(2021, 1, 1, 0, 0, 0, DateTimeKind.Utc));
        File.SetLastWriteTimeUtc(tree.PathOf("b/x.bin"), new DateTime(2019, 1, 1, 0, 0, 0, DateTimeKind.Utc));
        File.SetLastWriteTimeUtc(tree.PathOf("b/y.bin"), new DateTime(2022, 1, 1, 0, 0, 0, DateTimeKind.Utc));
        var scan = await ScanAsync(tree);

        Assert.Equal(tree.PathOf("a"), Assert.Single(Plan(scan, Linkers.Delete, KeepRule.Oldest).Actions).Kept.ToString());
        Assert.Equal(tree.PathOf("b"), Assert.Single(Plan(scan, Linkers.Delete, KeepRule.Newest).Actions).Kept.ToString());

        var seen = new List<(string, long)>();
        Plan(scan, Linkers.Delete, KeepRule.Custom("record", (x, y) =>
        {
            seen.Add((x.Path.ToString(), x.Length));
            return KeepRule.PathOrder.Compare(x, y);
        }));
        Assert.Contains((tree.PathOf("b"), 11000L), seen);
    }

    [LinuxFact]
    public async Task Ignoring_names_each_file_of_the_kept_folder_with_that_content_is_paired_once()
    {
        using var tree = new TempTree();
        tree.Write("a/p.bin", One);
        tree.Write("a/q.bin", One);
        tree.Write("b/r.bin", One);
        tree.Write("b/s/t.bin", One);

        var action = Assert.Single(Plan(await ScanAsync(tree, ignoreNames: true), Linkers.HardLink).Actions);

        Assert.Null(action.Refusal);
        Assert.Equal(["a/p.bin", "a/q.bin"], action.FileActions.Select(a => Relative(tree, a.Kept.Path)).Order(StringComparer.Ordinal));
        Assert.Equal(["b/r.bin", "b/s/t.bin"], action.FileActions.Select(a => Relative(tree, a.Path)).Order(StringComparer.Ordinal));
    }

    [LinuxFact]
    public async Task Linking_leaves_a_copy_already_linked_to_the_kept_file_alone_without_refusing_the_folder()
    {
        using var tree = new TempTree();
        tree.Write("a_kept/one.bin", One);
        tree.Write("a_kept/two.bin", Two);
        tree.Write("b_copy/one.bin", One);
        tree.HardLink("a_kept/two.bin", "b_copy/two.bin");

        var action = Assert.Single(Plan(await ScanAsync(tree), Linkers.HardLink).Actions);

        Assert.Null(action.Refusal);
        Assert.Equal(["b_copy/one.bin"], action.FileActions.Select(a => Relative(tree, a.Path)));
        Assert.Equal(5000, action.ReclaimableBytes);
    }

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a second file system")]
    public async Task A_folder_copied_to_another_file_system_is_refused_for_links_naming_the_first_file_that_cannot_be_linked()
    {
        using var local = new TempTree();
        using var other = new TempTree(LinkTree.BtrfsMount);
        local.Write("a_kept/one.bin", One);
        local.Write("a_kept/two.bin", Two);
        other.Write("b_copy/one.bin", One);
        other.Write("b_copy/two.bin", Two);
        var scan = (await FolderScanRun.RunAsync(local, configure: b => b.AddRoot(other.Root))).Scan;
        var keepLocal = KeepRule.PreferUnder(local.Root);

        var link = Assert.Single(Plan(scan, Linkers.HardLink, keepLocal).Actions);
        Assert.Equal(local.PathOf("a_kept"), link.Kept.ToString());
        Assert.Matches("^(one|two)\\.bin: kept file and duplicate are on different file systems; a hard link cannot cross devices", link.Refusal);
        Assert.Equal(0, link.ReclaimableBytes);

        var delete = Assert.Single(Plan(scan, Linkers.Delete, keepLocal).Actions); // both local file systems: no refusal
        Assert.Null(delete.Refusal);
        Assert.Equal(11000, delete.ReclaimableBytes);
    }

    private static string Relative(TempTree tree, AbsolutePath path) => FolderScanRun.Relative(tree, path.ToString());

    private sealed class NoOpLinker : Linker
    {
        public override string Description => "nothing";

        public override void Apply(LinkerContext context) => context.Skip("nothing");
    }
}
