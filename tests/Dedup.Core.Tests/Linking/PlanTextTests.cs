using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// What people read of a plan and of a run, line for line: the dry run, the totals, the descriptions and the reasons.
/// Groups are made by hand (paths that need not exist, as the keep-rule tests do) unless the test needs real files.
/// </summary>
public sealed class PlanTextTests
{
    private static readonly DateTime Time = new(2022, 5, 1, 0, 0, 0, DateTimeKind.Utc);

    [LinuxFact]
    public void The_dry_run_shows_each_kept_file_each_name_acted_on_the_bytes_freed_on_the_last_name_refusals_and_ties()
    {
        // A file with a second name, and one also linked outside the scan (frees nothing); a group wholly in a trash
        // (refused); a name that is the kept file itself (nothing to do); a tie the rules leave undecided.
        var kept = File("/d/a.bin", 1);
        var twoNames = new DuplicateFile(AbsolutePath.Parse("/d/b.bin"), [AbsolutePath.Parse("/d/c.bin")], new FileIdentity(1, 2), 10, 2, Time);
        var linkedElsewhere = new DuplicateFile(AbsolutePath.Parse("/d/e.bin"), [], new FileIdentity(1, 3), 10, 3, Time);
        var inTrash = new DuplicateGroup(20, [File("/mnt/disk/.Trash-1000/files/y.bin", 5, 20), File("/mnt/disk/.Trash-1000/files/x.bin", 4, 20)], verifiedByBytes: true);
        var withAlias = new DuplicateGroup(40, [File("/g/one.bin", 8, 40), File("/g/two.bin", 8, 40), File("/g/three.bin", 9, 40)], verifiedByBytes: true);
        var tied = new DuplicateGroup(30, [File("/u/p.bin", 6, 30), File("/u/q.bin", 7, 30)], verifiedByBytes: true);
        var tieUnderU = KeepRule.Custom("tie under /u", (x, y) =>
            x.Path.ToString().StartsWith("/u/", StringComparison.Ordinal) && y.Path.ToString().StartsWith("/u/", StringComparison.Ordinal) ? 0 : KeepRule.PathOrder.Compare(x, y));

        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Keep(tieUnderU).Build()
            .Plan([new DuplicateGroup(10, [twoNames, linkedElsewhere, kept], verifiedByBytes: true).Rooted(), inTrash, tied, withAlias.Rooted()]);

        Assert.Equal(
            [
                "keep /d/a.bin (10 bytes)",
                "  delete /d/b.bin",
                "  delete /d/c.bin (frees 10 bytes)",
                "  delete /d/e.bin",
                "keep /mnt/disk/.Trash-1000/files/x.bin (20 bytes)",
                "  skip /mnt/disk/.Trash-1000/files/y.bin: every copy is in a trash folder or is a temporary file (/mnt/disk/.Trash-1000/files/x.bin); nothing is kept outside it",
                "keep /g/one.bin (40 bytes)",
                "  delete /g/three.bin (frees 40 bytes)",
                "leave 2 copies (30 bytes): no keep rule decides which one stays",
                "  leave /u/p.bin",
                "  leave /u/q.bin",
                $"5 actions, {ByteCount.Format(50)} (50 bytes) to reclaim",
            ],
            Lines(plan.WriteTo));
        Assert.Equal(50, plan.ReclaimableBytes);
        Assert.Equal([0L, 10, 0, 40], plan.Actions.Where(a => a.Refusal is null).Select(a => a.ReclaimableBytes));
        Assert.Same(tied, Assert.Single(plan.UndecidedGroups));
    }

    [LinuxFact]
    public async Task The_dry_run_lists_leftover_temporary_files_first()
    {
        using var tree = new LinkTree();
        var content = TempTree.RandomBytes(1000, 3);
        tree.Write("a.bin", content);
        tree.Write("b.bin", content);
        var leftover = tree.Write(".dedup-tmp-0123456789abcdef0123456789abcdef", [1, 2, 3]);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Delete);

        Assert.Equal([leftover], plan.LeftoverTemporaryFiles);
        Assert.Equal(
            [
                $"remove leftover temporary file {leftover}",
                $"keep {tree.PathOf("a.bin")} (1000 bytes)",
                $"  delete {tree.PathOf("b.bin")} (frees 1000 bytes)",
                $"1 actions, {ByteCount.Format(1000)} (1000 bytes) to reclaim",
            ],
            Lines(plan.WriteTo));
    }

    [LinuxFact]
    public void A_plan_with_no_action_has_no_note_about_links()
    {
        var tied = new DuplicateGroup(30, [File("/u/p.bin", 6, 30), File("/u/q.bin", 7, 30)], verifiedByBytes: true);
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).Keep(KeepRule.Oldest).Build().Plan([tied]);

        Assert.Empty(plan.Actions);
        Assert.DoesNotContain(Lines(plan.WriteTo), line => line.StartsWith("note:", StringComparison.Ordinal));
    }

    [Fact]
    public void Each_built_in_linker_has_its_own_dry_run_verb()
    {
        Assert.Equal("hard-link", LinkerCapabilities.VerbOf(Linkers.HardLink));
        Assert.Equal("symlink", LinkerCapabilities.VerbOf(Linkers.SymbolicLink()));
        Assert.Equal("clone", LinkerCapabilities.VerbOf(Linkers.Clone));
        Assert.Equal("dedupe", LinkerCapabilities.VerbOf(Linkers.Dedupe));
        Assert.Equal("delete", LinkerCapabilities.VerbOf(Linkers.Delete));
        Assert.Equal("trash", LinkerCapabilities.VerbOf(Linkers.Trash));
    }

    [Fact]
    public void A_report_counts_each_status_and_frees_a_duplicates_bytes_only_when_every_name_is_done()
    {
        var group = new DuplicateGroup(10, [File("/k.bin", 1), File("/x1.bin", 2), File("/y.bin", 3), File("/z1.bin", 4)], verifiedByBytes: true);
        var kept = group.Files[0];
        DuplicateActionOutcome Outcome(int file, string name, long bytes, DuplicateActionStatus status) =>
            new(new DuplicateAction(DuplicateActionKind.Delete, group, kept, group.Files[file], AbsolutePath.Parse(name), bytes, null), status, status == DuplicateActionStatus.Done ? null : "why");

        var report = new DuplicateActionReport(
            [
                Outcome(1, "/x1.bin", 0, DuplicateActionStatus.Done),
                Outcome(1, "/x2.bin", 10, DuplicateActionStatus.Done),
                Outcome(2, "/y.bin", 20, DuplicateActionStatus.Skipped),
                Outcome(3, "/z1.bin", 0, DuplicateActionStatus.Done),
                Outcome(3, "/z2.bin", 30, DuplicateActionStatus.Failed),
            ],
            temporaryFilesRemoved: 4);

        Assert.Equal((3, 1, 1), (report.Done, report.Skipped, report.Failed));
        Assert.Equal(10, report.ReclaimedBytes);
        Assert.Equal(4, report.TemporaryFilesRemoved);
        Assert.Empty(report.TemporaryFilesLeftAlone);
    }

    [Fact]
    public void Actions_outcomes_and_folder_actions_describe_themselves_with_escaped_paths()
    {
        var group = new DuplicateGroup(10, [File("/k.bin", 1), File("/d\nup.bin", 2)], verifiedByBytes: true);
        var action = new DuplicateAction(DuplicateActionKind.HardLink, group, group.Files[0], group.Files[1], group.Files[1].Path, 10, null);

        Assert.Equal(@"HardLink /d\nup.bin -> /k.bin", action.ToString());
        Assert.Equal(@"Done: HardLink /d\nup.bin -> /k.bin", new DuplicateActionOutcome(action, DuplicateActionStatus.Done, null).ToString());
        Assert.Equal(@"Skipped: HardLink /d\nup.bin -> /k.bin (changed
 since)".Replace("\n", @"\n", StringComparison.Ordinal), new DuplicateActionOutcome(action, DuplicateActionStatus.Skipped, "changed\n since").ToString());

        var folders = new DuplicateFolderGroup([AbsolutePath.Parse("/m/a"), AbsolutePath.Parse("/m/b")], 2, 20, verifiedByBytes: true);
        var folderAction = new DuplicateFolderAction(DuplicateActionKind.Delete, folders, AbsolutePath.Parse("/m/a"), AbsolutePath.Parse("/m/b"), 20, null, []);
        Assert.Equal("Delete /m/b -> /m/a", folderAction.ToString());
        Assert.Equal("Done: Delete /m/b -> /m/a", new DuplicateFolderActionOutcome(folderAction, DuplicateActionStatus.Done, null, []).ToString());
        Assert.Equal("Failed: Delete /m/b -> /m/a (half done)", new DuplicateFolderActionOutcome(folderAction, DuplicateActionStatus.Failed, "half done", []).ToString());
    }

    [Fact]
    public void A_folder_report_counts_each_status_and_adds_the_bytes_of_every_folder()
    {
        var folders = new DuplicateFolderGroup([AbsolutePath.Parse("/m/a"), AbsolutePath.Parse("/m/b")], 2, 20, verifiedByBytes: true);
        var action = new DuplicateFolderAction(DuplicateActionKind.Delete, folders, AbsolutePath.Parse("/m/a"), AbsolutePath.Parse("/m/b"), 20, null, []);
        var report = new DuplicateFolderActionReport(
            [
                new(action, DuplicateActionStatus.Done, null, [], 20),
                new(action, DuplicateActionStatus.Failed, "x", [], 5),
                new(action, DuplicateActionStatus.Skipped, "y", []),
                new(action, DuplicateActionStatus.Done, null, [], 1),
            ],
            temporaryFilesRemoved: 2);

        Assert.Equal((2, 1, 1), (report.Done, report.Skipped, report.Failed));
        Assert.Equal(26, report.ReclaimedBytes);
        Assert.Equal(2, report.TemporaryFilesRemoved);
    }

    [Fact]
    public async Task The_builder_needs_a_linker_and_refuses_nulls()
    {
        var error = Assert.Throws<InvalidOperationException>(() => new DuplicateActionPlanBuilder().Build());
        Assert.Equal("Set what to do with duplicates with UseLinker(Linkers.…) before Build().", error.Message);
        Assert.Throws<ArgumentNullException>(() => new DuplicateActionPlanBuilder().Keep(null!));
        Assert.Throws<ArgumentNullException>(() => new DuplicateActionPlanBuilder().UseLinker(null!));
        Assert.Throws<ArgumentNullException>(() => new DuplicateActionPlanBuilder().UseLogger(null!));
        Assert.Throws<ArgumentNullException>(() => new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().Plan(null!));
        Assert.Throws<ArgumentNullException>(() => new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().PlanFolders(null!));
        await Assert.ThrowsAsync<ArgumentNullException>(async () => await new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().PlanAsync(null!));
        Assert.Throws<ArgumentNullException>(() => new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().Plan([]).WriteTo(null!));
    }

    [Fact]
    public void The_planner_keeps_the_linker_and_the_rules_as_given_or_path_order_alone()
    {
        var planner = new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).Build();
        Assert.Same(Linkers.HardLink, planner.Linker);
        Assert.Same(KeepRule.PathOrder, Assert.Single(planner.KeepRules));

        var ruled = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Keep(KeepRule.Newest).Keep(KeepRule.ShortestPath).Build();
        Assert.Equal([KeepRule.Newest, KeepRule.ShortestPath], ruled.KeepRules);
        Assert.Same(Linkers.Delete, ruled.Plan([]).Linker);
    }

    [LinuxFact]
    public void A_keep_rule_folder_that_is_a_file_missing_or_reached_through_a_missing_folder_is_refused_with_its_name()
    {
        using var tree = new TempTree();
        var file = tree.Write("file.bin", [1]);
        var missing = tree.PathOf("missing");

        Assert.Equal($"The keep rule's folder '{file}' is a file, not a folder.", Refusal(KeepRule.PreferUnder(tree.Root, file)));
        Assert.Equal($"The keep rule's folder '{missing}' does not exist.", Refusal(KeepRule.PreferUnder(tree.Root, missing)));
        Assert.Equal($"The keep rule's folder '{missing}/..' does not exist (its '..' climbs out of a folder that does not).", Refusal(KeepRule.PreferUnder(tree.Root, missing + "/..")));
        Assert.Equal($"The keep rule's folder '{missing}/..' does not exist (its '..' climbs out of a folder that does not).", Refusal(KeepRule.PreferUnder(missing + "/..", missing + "2/.."))); // the first named
        Assert.Null(KeepRule.PreferUnder(tree.Root).Validate());
        Assert.Null(KeepRule.Oldest.Validate());

        static string Refusal(KeepRule rule) =>
            Assert.Throws<ArgumentException>(() => new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Keep(KeepRule.Oldest).Keep(rule).Build()).Message;
    }

    [Fact]
    public void Built_in_linkers_say_what_they_do_and_refuse_across_devices_only_what_cannot_cross()
    {
        var kept = File("/k.bin", 1);
        var sameDevice = File("/s.bin", 2);
        var otherDevice = new DuplicateFile(AbsolutePath.Parse("/o.bin"), [], new FileIdentity(2, 3), 10, 1, Time);
        (Linker Linker, DuplicateActionKind Kind, string Description, string? AcrossDevices)[] expected =
        [
            (Linkers.HardLink, DuplicateActionKind.HardLink, "hard link", "kept file and duplicate are on different file systems; a hard link cannot cross devices (no other kind of link is made instead)"),
            (Linkers.Clone, DuplicateActionKind.Clone, "copy-on-write clone", "kept file and duplicate are on different file systems; a clone cannot cross devices (no copy or link is made instead)"),
            (Linkers.Dedupe, DuplicateActionKind.Dedupe, "kernel-verified dedupe", "kept file and duplicate are on different file systems; extents cannot be shared across devices"),
            (Linkers.Delete, DuplicateActionKind.Delete, "permanent delete", null),
            (Linkers.Trash, DuplicateActionKind.Trash, "move to trash", null),
            (Linkers.SymbolicLink(), DuplicateActionKind.SymbolicLink, "relative symbolic link", null),
            (Linkers.SymbolicLink(relative: false), DuplicateActionKind.SymbolicLink, "absolute symbolic link", null),
        ];

        foreach (var (linker, kind, description, acrossDevices) in expected)
        {
            Assert.Equal((kind, description), (linker.Kind, linker.Description));
            Assert.Equal(acrossDevices, linker.RefuseAtPlanTime(kept, otherDevice));
            Assert.Null(linker.RefuseAtPlanTime(kept, sameDevice));
        }
    }

    [LinuxFact]
    public void A_media_payload_group_and_copies_on_file_systems_of_unknown_type_are_refused_with_their_reasons()
    {
        var media = new DuplicateGroup(10, [File("/m/a.mp3", 1), File("/m/b.mp3", 2)], verifiedByBytes: true, ContentMatch.MediaPayload);
        var kept = new DuplicateFile(AbsolutePath.Parse("/z/a.bin"), [], new FileIdentity(0xFFFF_FFF0_0000_0001, 3), 10, 1, Time);
        var elsewhere = new DuplicateFile(AbsolutePath.Parse("/z/b.bin"), [], new FileIdentity(0xFFFF_FFF0_0000_0002, 4), 10, 1, Time);
        var acrossDevices = new DuplicateGroup(10, [kept, elsewhere], verifiedByBytes: true);

        foreach (var linker in new[] { Linkers.Delete, Linkers.Trash, Linkers.SymbolicLink(), new SkippingLinker() })
        {
            var plan = new DuplicateActionPlanBuilder().UseLinker(linker).Build().Plan([media, acrossDevices]);
            Assert.Equal(
                [
                    "media-payload match: the files differ byte for byte (tags or metadata), so neither replaces the other",
                    "kept and duplicate are on different file systems (unknown, unknown), one of which may show the same file under another identity; refused so the only copy is never removed",
                ],
                plan.Actions.Select(a => a.Refusal));
            Assert.Equal(0, plan.ReclaimableBytes);
        }
    }

    [LinuxFact]
    public void Dedupe_is_planned_once_per_file_whatever_its_names_and_frees_its_size()
    {
        var kept = File("/d/a.bin", 1);
        var twoNames = new DuplicateFile(AbsolutePath.Parse("/d/b.bin"), [AbsolutePath.Parse("/d/c.bin")], new FileIdentity(1, 2), 10, 2, Time);
        var linkedElsewhere = new DuplicateFile(AbsolutePath.Parse("/d/e.bin"), [], new FileIdentity(1, 3), 10, 3, Time);

        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Dedupe).Build().Plan([new DuplicateGroup(10, [kept, twoNames, linkedElsewhere], verifiedByBytes: true).Rooted()]);

        Assert.Equal(
            [
                "keep /d/a.bin (10 bytes)",
                "  dedupe /d/b.bin (frees 10 bytes)",
                "  dedupe /d/e.bin (frees 10 bytes)",
                $"2 actions, {ByteCount.Format(20)} (20 bytes) to reclaim",
            ],
            Lines(plan.WriteTo));
        Assert.All(plan.Actions, a => Assert.Equal(DuplicateActionKind.Dedupe, a.Kind));
    }

    [LinuxFact]
    public async Task A_capability_probe_is_logged_at_debug_with_the_kind_the_device_and_the_outcome()
    {
        using var tree = new LinkTree(); // ext4 or tmpfs: no clones
        var content = TempTree.RandomBytes(1000, 6);
        tree.Write("a.bin", content);
        var b = tree.Write("b.bin", content);
        var logger = new CollectingLogger();

        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Clone).UseLogger(logger).Build().Plan(await tree.ScanAsync());

        var probe = Assert.Single(logger.Take(), e => e.Id.Id == 303);
        Assert.Equal(Microsoft.Extensions.Logging.LogLevel.Debug, probe.Level);
        Assert.StartsWith($"Probed Clone on device {TestNative.Device(b)}: Unsupported (", probe.Message, StringComparison.Ordinal);
        Assert.NotNull(Assert.Single(plan.Actions).Refusal);
    }

    [LinuxFact]
    public void A_copy_on_a_file_system_of_unknown_type_is_refused_naming_the_type_of_the_other()
    {
        using var tree = new TempTree();
        var real = tree.Write("real.bin", [1, 2, 3]);
        Assert.Equal(0, Dedup.Core.Interop.Libc.LStat(real, out var status));
        var local = new DuplicateFile(AbsolutePath.Parse(real), [], new FileIdentity(status.Device, status.Ino), 3, 1, Time);
        var type = Dedup.Core.Topology.DriveTopology.CreateDefault().GetDevice(status.Device).FileSystemType;
        Assert.NotNull(type);
        var unknownAfter = new DuplicateFile(AbsolutePath.Parse("/zz/b.bin"), [], new FileIdentity(0xFFFF_FFF0_0000_0003, 5), 3, 1, Time);
        var unknownBefore = new DuplicateFile(AbsolutePath.Parse("/a/b.bin"), [], new FileIdentity(0xFFFF_FFF0_0000_0004, 6), 3, 1, Time);
        var planner = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build();

        var plan = planner.Plan([new DuplicateGroup(3, [local, unknownAfter], verifiedByBytes: true), new DuplicateGroup(3, [local, unknownBefore], verifiedByBytes: true)]);

        Assert.Equal(
            [
                ("/zz/b.bin", $"kept and duplicate are on different file systems ({type}, unknown), one of which may show the same file under another identity; refused so the only copy is never removed"),
                (real, $"kept and duplicate are on different file systems (unknown, {type}), one of which may show the same file under another identity; refused so the only copy is never removed"),
            ],
            plan.Actions.Select(a => (a.Path.ToString(), a.Refusal)));
    }

    [LinuxFact]
    public async Task An_action_refused_at_plan_time_frees_nothing()
    {
        using var tree = new LinkTree(); // ext4 or tmpfs: no dedupe
        var content = TempTree.RandomBytes(1000, 7);
        tree.Write("a.bin", content);
        tree.Write("b.bin", content);

        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Dedupe);

        var action = Assert.Single(plan.Actions);
        Assert.NotNull(action.Refusal);
        Assert.Equal(0, action.ReclaimableBytes);
        Assert.Equal(0, plan.ReclaimableBytes);
    }

    [Fact]
    public void Keep_rules_describe_themselves_for_plans()
    {
        Assert.Equal(
            ["oldest", "newest", "shortest path", "first in path order", "prefix /a, /b"],
            new[] { KeepRule.Oldest, KeepRule.Newest, KeepRule.ShortestPath, KeepRule.PathOrder, KeepRule.PreferPrefix("/a", "/b") }.Select(r => r.Description));
    }

    [Fact]
    public void Progress_counts_every_finished_action_once()
    {
        Assert.Equal(7, new ApplyProgress { Done = 1, Skipped = 2, Failed = 4 }.Completed);
    }

    [LinuxFact]
    public async Task Planning_a_stream_of_groups_gives_the_plan_of_the_list()
    {
        using var tree = new LinkTree();
        var content = TempTree.RandomBytes(1000, 4);
        tree.Write("a.bin", content);
        tree.Write("b.bin", content);
        var groups = await tree.ScanAsync();
        var planner = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build();

        var streamed = await planner.PlanAsync(groups.ToAsyncEnumerable());

        Assert.Equal(Lines(planner.Plan(groups).WriteTo), Lines(streamed.WriteTo));
        Assert.Equal(tree.PathOf("b.bin"), Assert.Single(streamed.Actions).Path.ToString());
    }

    private sealed class SkippingLinker : Linker
    {
        public override string Description => "skips";

        public override void Apply(LinkerContext context) => context.Skip("not today");
    }

    /// <summary>What <paramref name="write"/> writes, line by line.</summary>
    internal static string[] Lines(Action<TextWriter> write)
    {
        var text = new StringWriter { NewLine = "\n" };
        write(text);
        return text.ToString().TrimEnd('\n').Split('\n');
    }

    private static DuplicateFile File(string path, ulong inode, long length = 10) =>
        new(AbsolutePath.Parse(path), [], new FileIdentity(1, inode), length, 1, Time);
}
