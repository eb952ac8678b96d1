using System.Reflection;
using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Folders;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// <see cref="DuplicateActionPlanner.PlanFolders"/> on folder listings written out here (what a scan would have seen,
/// including what a scan of an exact group never shows: nested folders, unpaired files, other devices) and on real
/// trees: which folders are refused and why, how files pair, what each file action carries, and the dry-run text.
/// Nothing on disk is touched except in the real trees.
/// </summary>
public sealed class FolderPlannerTests
{
    private const long Write = 1_600_000_000_000_000_000;
    private static readonly byte[] One = TempTree.RandomBytes(5000, 51);
    private static readonly byte[] Two = TempTree.RandomBytes(6000, 52);

    [LinuxFact]
    public void A_group_of_fewer_than_two_folders_is_passed_over()
    {
        var plan = Plan(Linkers.Delete, Group(), Group(Snapshot("/g/a", false, FileEntry("x.bin", 1, 1))));

        Assert.Empty(plan.Actions);
        Assert.Empty(plan.UndecidedGroups);
    }

    [LinuxFact]
    public void A_folder_inside_the_kept_one_is_refused_even_when_it_holds_the_kept_folders_file()
    {
        // b lies inside a (kept: first in path order), and its x.bin is a's x.bin (one inode): neither a hard link
        // (nothing to link) nor a delete (already a link of a kept file) may forget the nesting.
        var group = Group(Snapshot("/n/a", false, FileEntry("b", 0, 0, kind: FolderEntryKind.Folder), FileEntry("b/x.bin", 1, 1), FileEntry("x.bin", 1, 1)), Snapshot("/n/a/b", false, FileEntry("x.bin", 1, 1)));

        foreach (var linker in new[] { Linkers.HardLink, Linkers.Delete })
        {
            var action = Assert.Single(Plan(linker, group).Actions);

            Assert.Equal("/n/a", action.Kept.ToString());
            Assert.Equal("one folder lies inside the other", action.Refusal);
            Assert.Equal(0, action.ReclaimableBytes);
        }
    }

    [LinuxFact]
    public void A_kept_folder_inside_the_other_is_refused_too()
    {
        var deepest = KeepRule.Custom("deepest", (x, y) => y.Path.ToString().Length.CompareTo(x.Path.ToString().Length));
        var group = Group(Snapshot("/n/a", false, FileEntry("b", 0, 0, kind: FolderEntryKind.Folder), FileEntry("b/x.bin", 1, 1)), Snapshot("/n/a/b", false, FileEntry("x.bin", 1, 2)));

        var action = Assert.Single(Plan(Linkers.HardLink, [group], deepest).Actions);

        Assert.Equal("/n/a/b", action.Kept.ToString());
        Assert.Equal("one folder lies inside the other", action.Refusal);
    }

    [LinuxFact]
    public void Files_found_by_names_pair_by_name_and_the_first_without_a_counterpart_is_named()
    {
        // Same content class everywhere: pairing by content would find a.bin for both.
        var group = Group(Snapshot("/p/a", false, FileEntry("a.bin", 1, 1, contentClass: 1)), Snapshot("/p/b", false, FileEntry("b.bin", 1, 2, contentClass: 1), FileEntry("c.bin", 1, 3, contentClass: 1)));

        var action = Assert.Single(Plan(Linkers.Delete, group).Actions);

        Assert.Equal("b.bin has no counterpart in the kept folder", action.Refusal);
        Assert.Equal(0, action.ReclaimableBytes);
    }

    [LinuxFact]
    public void Ignoring_names_a_file_whose_content_the_kept_folder_lacks_has_no_counterpart()
    {
        var group = Group(Snapshot("/q/a", true, FileEntry("a.bin", 1, 1, contentClass: 1)), Snapshot("/q/b", true, FileEntry("a.bin", 1, 2, contentClass: 2)));

        Assert.Equal("a.bin has no counterpart in the kept folder", Assert.Single(Plan(Linkers.Delete, group).Actions).Refusal);
    }

    [LinuxFact]
    public void A_file_on_another_device_refuses_the_folder_with_the_pairs_reason_and_frees_nothing()
    {
        const ulong Here = 0xFFFF_FFF0_0000_0011, There = 0xFFFF_FFF0_0000_0012; // no such devices: types unknown
        var group = Group(Snapshot("/d/a", false, FileEntry("x.bin", Here, 1)), Snapshot("/d/b", false, FileEntry("x.bin", There, 2)));

        var delete = Assert.Single(Plan(Linkers.Delete, group).Actions);
        var link = Assert.Single(Plan(Linkers.HardLink, group).Actions);

        Assert.Equal("x.bin: kept and duplicate are on different file systems (unknown, unknown), one of which may show the same file under another identity; refused so the only copy is never removed", delete.Refusal);
        Assert.Equal(0, delete.ReclaimableBytes);
        Assert.Equal("x.bin: kept file and duplicate are on different file systems; a hard link cannot cross devices (no other kind of link is made instead)", link.Refusal);
        Assert.Equal(0, link.ReclaimableBytes);
    }

    [LinuxFact]
    public void The_pairs_group_refusal_comes_before_the_linkers()
    {
        // The kept file has a temporary file's name (never the one kept), and the pair also crosses devices.
        const string Temporary = ".dedup-tmp-0123456789abcdef0123456789abcdef";
        var group = Group(Snapshot("/t/a", false, FileEntry(Temporary, 0xFFFF_FFF0_0000_0021, 1)), Snapshot("/t/b", false, FileEntry(Temporary, 0xFFFF_FFF0_0000_0022, 2)));

        var action = Assert.Single(Plan(Linkers.HardLink, group).Actions);

        Assert.Equal($"{Temporary}: every copy is in a trash folder or is a temporary file (/t/a/{Temporary}); nothing is kept outside it", action.Refusal);
    }

    [LinuxFact]
    public void Each_file_action_carries_the_listings_change_time_or_none_when_the_listing_has_none()
    {
        const long Changed = 1_700_000_000_123_456_700;
        var group = Group(
            Snapshot("/c/a", false, FileEntry("x.bin", 1, 1, changeNs: Changed - 100), FileEntry("y.bin", 1, 2, changeNs: 0)),
            Snapshot("/c/b", false, FileEntry("x.bin", 1, 3, changeNs: Changed), FileEntry("y.bin", 1, 4, changeNs: 0)));

        var action = Assert.Single(Plan(Linkers.HardLink, group).Actions);

        Assert.Null(action.Refusal);
        Assert.Equal(["/c/b/x.bin", "/c/b/y.bin"], action.FileActions.Select(a => a.Path.ToString()));
        Assert.Equal(FileTable.ToDateTime(Changed), action.FileActions[0].Duplicate.LastChangeTimeUtc);
        Assert.Equal(FileTable.ToDateTime(Changed - 100), action.FileActions[0].Kept.LastChangeTimeUtc);
        Assert.Equal(DateTime.MinValue, action.FileActions[1].Duplicate.LastChangeTimeUtc);
        Assert.Equal(DateTime.MinValue, action.FileActions[1].Kept.LastChangeTimeUtc);
    }

    [LinuxFact]
    public void Folders_holding_only_empty_folders_are_planned_with_no_file_actions()
    {
        var group = Group(Snapshot("/e/a", false, FileEntry("sub", 0, 0, kind: FolderEntryKind.Folder)), Snapshot("/e/b", false, FileEntry("sub", 0, 0, kind: FolderEntryKind.Folder)));

        var action = Assert.Single(Plan(Linkers.Delete, [group], KeepRule.Oldest, KeepRule.PathOrder).Actions);

        Assert.Null(action.Refusal);
        Assert.Equal("/e/b", action.Folder.ToString());
        Assert.Empty(action.FileActions);
    }

    [LinuxFact]
    public void A_folder_freeing_nothing_says_no_bytes_and_writing_needs_a_writer()
    {
        // b's x.bin has another name outside the folder: linking it frees nothing.
        var group = Group(Snapshot("/z/a", false, FileEntry("x.bin", 1, 1)), Snapshot("/z/b", false, FileEntry("x.bin", 1, 2, linkCount: 2)));
        var plan = Plan(Linkers.HardLink, group);
        var text = new StringWriter();

        plan.WriteTo(text);

        Assert.Null(Assert.Single(plan.Actions).Refusal);
        Assert.Contains("  hard-link folder /z/b/ (1 files)" + Environment.NewLine, text.ToString(), StringComparison.Ordinal);
        Assert.Equal("writer", Assert.Throws<ArgumentNullException>(() => plan.WriteTo(null!)).ParamName);
    }

    [LinuxFact]
    public async Task A_hard_link_plan_passes_over_a_file_already_linked_to_the_kept_one_and_links_the_rest()
    {
        using var tree = new TempTree();
        tree.Write("a_kept/one.bin", One);
        tree.Write("a_kept/two.bin", Two);
        tree.Write("b_copy/one.bin", One);
        tree.HardLink("a_kept/two.bin", "b_copy/two.bin");
        var (_, _, scan) = await FolderScanRun.RunAsync(tree);

        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).Build().PlanFolders(scan.FolderGroups);

        var action = Assert.Single(plan.Actions);
        Assert.Null(action.Refusal);
        Assert.Equal([tree.PathOf("b_copy/one.bin")], action.FileActions.Select(a => a.Path.ToString()));
        Assert.Equal(One.Length, action.ReclaimableBytes);
    }

    [LinuxFact]
    public async Task A_leftover_temporary_file_in_the_kept_folder_is_found()
    {
        using var tree = new TempTree();
        tree.Write("a_kept/one.bin", One);
        tree.Write("b_copy/one.bin", One);
        var (_, _, scan) = await FolderScanRun.RunAsync(tree);
        var leftover = tree.Write("a_kept/.dedup-tmp-0123456789abcdef0123456789abcdef", One); // after the scan, as a crash would leave it

        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().PlanFolders(scan.FolderGroups);

        Assert.Equal(tree.PathOf("a_kept"), Assert.Single(plan.Actions).Kept.ToString());
        Assert.Equal([leftover], plan.LeftoverTemporaryFiles);
    }

    private static DuplicateFolderActionPlan Plan(Linker linker, params DuplicateFolderGroup[] groups) => Plan(linker, groups, KeepRule.PathOrder);

    private static DuplicateFolderActionPlan Plan(Linker linker, DuplicateFolderGroup[] groups, params KeepRule[] rules)
    {
        var builder = new DuplicateActionPlanBuilder().UseLinker(linker);
        foreach (var rule in rules)
        {
            builder.Keep(rule);
        }

        return builder.Build().PlanFolders(groups);
    }

    private static DuplicateFolderGroup Group(params FolderSnapshot[] snapshots) =>
        new(snapshots.Select(s => s.Folder).ToArray(), snapshots.FirstOrDefault()?.Entries.Count ?? 0, 10, verifiedByBytes: true) { Snapshots = snapshots };

    /// <summary>A listing as a scan takes it (its constructor is the scan's own), entries already in path order.</summary>
    private static FolderSnapshot Snapshot(string folder, bool pairByContent, params FolderSnapshotEntry[] entries) =>
        (FolderSnapshot)typeof(FolderSnapshot).GetConstructors(BindingFlags.NonPublic | BindingFlags.Instance).Single()
            .Invoke([AbsolutePath.Parse(folder), entries, pairByContent]);

    private static FolderSnapshotEntry FileEntry(string relative, ulong device, ulong inode, int contentClass = 0, int linkCount = 1, long changeNs = Write, FolderEntryKind kind = FolderEntryKind.File) =>
        kind != FolderEntryKind.File
            ? new(relative, kind, null)
            : new(relative, kind, null) { Identity = new FileIdentity(device, inode), Length = 10, LinkCount = linkCount, LastWriteTimeNs = Write, ChangeTimeNs = changeNs, ContentClass = contentClass };
}
