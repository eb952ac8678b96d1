using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Plans predict the refusals applying makes (issue #13): clone and dedupe where the file system lacks them (the small
/// ext4, <c>DEDUP_TEST_SMALLFS</c>) but not where it has them (the btrfs, <c>DEDUP_TEST_BTRFS</c>), with the executor's
/// own reason, so a dry run lists what the real run skips and the reclaimable total leaves them out. In the small file
/// system's collection: another test fills it up.
/// </summary>
[Collection(SmallFsCollection.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class PlanPredictionTests
{
    private const string Small = "DEDUP_TEST_SMALLFS";
    private const string SmallPurpose = "a mounted ext4, which cannot clone or dedupe";
    private const string Btrfs = "DEDUP_TEST_BTRFS";
    private const string BtrfsPurpose = "a mounted btrfs for clones and FIDEDUPERANGE";
    private static readonly byte[] Content = TempTree.RandomBytes(40_000, 131);

    [FactRequiringFolder(Small, SmallPurpose)]
    public Task A_clone_plan_on_ext4_refuses_every_action_with_the_reason_apply_gives() => RefusedOnExt4Async("clone");

    [FactRequiringFolder(Small, SmallPurpose)]
    public Task A_dedupe_plan_on_ext4_refuses_every_action_with_the_reason_apply_gives() => RefusedOnExt4Async("dedupe");

    [FactRequiringFolder(Btrfs, BtrfsPurpose)]
    public Task A_clone_plan_on_btrfs_refuses_nothing_and_applying_does_every_action() => DoneOnBtrfsAsync("clone");

    [FactRequiringFolder(Btrfs, BtrfsPurpose)]
    public Task A_dedupe_plan_on_btrfs_refuses_nothing_and_applying_does_every_action() => DoneOnBtrfsAsync("dedupe");

    [FactRequiringFolder(Btrfs, BtrfsPurpose)]
    public async Task Probing_changes_nothing_visible_in_the_tree()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var kept = tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        var groups = await tree.ScanAsync();
        var names = Directory.GetFileSystemEntries(tree.Root, "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal).ToArray();
        Assert.Equal(0, TestNative.FileStatusOf(kept, out var before));

        foreach (var linker in new[] { Linkers.Clone, Linkers.Dedupe })
        {
            Assert.Equal(1, LinkTree.Plan(groups, linker).ProbesRun);
        }

        Assert.Equal(names, Directory.GetFileSystemEntries(tree.Root, "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal).ToArray());
        Assert.Equal(0, TestNative.FileStatusOf(kept, out var after));
        Assert.Equal((before.CtimeSec, before.CtimeNsec, before.MtimeSec, before.NLink), (after.CtimeSec, after.CtimeNsec, after.MtimeSec, after.NLink));
        Assert.Equal(Content, File.ReadAllBytes(kept));
    }

    [FactRequiringFolder(Btrfs, "a mounted btrfs", Small, "a mounted ext4")]
    public async Task A_hard_link_plan_across_btrfs_and_ext4_is_refused_at_plan_time_as_when_applied()
    {
        using var btrfs = new LinkTree(LinkTree.BtrfsMount);
        using var small = new LinkTree(LinkTree.SmallMount);
        btrfs.Write("a.bin", Content);
        var duplicate = small.Write("b.bin", Content);
        var plan = LinkTree.Plan(await btrfs.ScanAsync(btrfs.Root, small.Root), Linkers.HardLink, KeepRule.PreferUnder(btrfs.Root));

        var action = Assert.Single(plan.Actions);
        Assert.Contains("a hard link cannot cross devices", action.Refusal, StringComparison.Ordinal);
        Assert.Equal(0, plan.ReclaimableBytes);
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);
        Assert.Equal((DuplicateActionStatus.Skipped, action.Refusal), (outcome.Status, outcome.Reason));
        Assert.Equal(1u, TestNative.LinkCount(duplicate));
    }

    [LinuxFact]
    public Task A_hard_link_plan_between_files_of_different_modes_is_refused_at_plan_time_with_the_apply_reason() =>
        OwnerOrModeDiffersAsync(Linkers.HardLink, path => File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite));

    [LinuxFact]
    public Task A_symbolic_link_plan_between_files_of_different_modes_is_refused_at_plan_time_with_the_apply_reason() =>
        OwnerOrModeDiffersAsync(Linkers.SymbolicLink(), path => File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.OtherRead));

    [LinuxFact(RequiresRoot = true)]
    public Task A_hard_link_plan_between_files_of_different_owners_is_refused_at_plan_time_with_the_apply_reason() =>
        OwnerOrModeDiffersAsync(Linkers.HardLink, path => TempTree.Run("chown", "65534:65534", path));

    [LinuxFact]
    public async Task The_dry_runs_refusals_are_the_real_runs_skipped_actions()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        var odd = tree.Write("c.bin", Content);
        tree.Write("d.bin", Content);
        File.SetUnixFileMode(odd, UnixFileMode.UserRead);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink);
        var predicted = plan.Actions.Where(a => a.Refusal is not null).Select(a => (a.Path.ToString(), a.Refusal)).ToList();

        var report = await plan.ApplyAsync();

        Assert.Equal([(odd, predicted.Single().Refusal)], predicted);
        Assert.Equal(predicted, report.Outcomes.Where(o => o.Status != DuplicateActionStatus.Done).Select(o => (o.Action.Path.ToString(), o.Reason)).ToList());
        Assert.Equal(2, report.Done);
        Assert.Equal(plan.ReclaimableBytes, report.ReclaimedBytes);
        Assert.Equal(2L * Content.Length, plan.ReclaimableBytes);
    }

    /// <summary>
    /// Every action refused at plan time with exactly the reason applying gives for it: the same operation through a
    /// custom linker (nothing predicted for those) is skipped at apply time with that reason.
    /// </summary>
    private static async Task RefusedOnExt4Async(string mode)
    {
        using var tree = new LinkTree(LinkTree.SmallMount);
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        tree.Write("sub/c.bin", Content);
        var groups = await tree.ScanAsync();
        var before = tree.Snapshot();
        var plan = LinkTree.Plan(groups, Builtin(mode));
        var unpredicted = LinkTree.Plan(groups, new ForwardingLinker(mode));

        Assert.Equal(2, plan.Actions.Count);
        Assert.Equal(1, plan.ProbesRun); // once per file system, not per action
        Assert.Equal(0, plan.ReclaimableBytes);
        Assert.All(unpredicted.Actions, a => Assert.Null(a.Refusal));
        var applied = await unpredicted.ApplyAsync();
        var reasons = applied.Outcomes.Select(o => (o.Status, o.Reason)).ToList();
        Assert.All(reasons, r => Assert.Equal(DuplicateActionStatus.Skipped, r.Status));
        Assert.Contains("Operation not supported", reasons[0].Reason, StringComparison.Ordinal);
        Assert.Equal(reasons.Select(r => r.Reason), plan.Actions.Select(a => a.Refusal));

        var report = await plan.ApplyAsync();

        Assert.Equal(reasons, report.Outcomes.Select(o => (o.Status, o.Reason)).ToList());
        Assert.Equal(0, report.ReclaimedBytes);
        LinkTree.AssertNoContentLost(before);
        Assert.Equal(before.Keys.Order(StringComparer.Ordinal), tree.Snapshot().Keys.Order(StringComparer.Ordinal));
    }

    private static async Task DoneOnBtrfsAsync(string mode)
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var c = tree.Write("sub/c.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Builtin(mode));

        Assert.Equal(2, plan.Actions.Count);
        Assert.All(plan.Actions, action => Assert.Null(action.Refusal));
        Assert.Equal(1, plan.ProbesRun);
        Assert.Equal(2L * Content.Length, plan.ReclaimableBytes);
        var report = await plan.ApplyAsync();

        Assert.Equal(2, report.Done);
        Assert.Equal(plan.ReclaimableBytes, report.ReclaimedBytes);
        Assert.All(new[] { a, b, c }, p => Assert.Equal(Content, File.ReadAllBytes(p)));
        tree.AssertNoTemporaryFiles();
    }

    /// <summary>
    /// The same scan planned twice: before the duplicate's owner or mode changes (nothing to predict, so applying it
    /// meets the difference and skips) and after (refused at plan time): the two reasons must be the same text.
    /// </summary>
    private static async Task OwnerOrModeDiffersAsync(Linker linker, Action<string> change)
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        var duplicate = tree.Write("b.bin", Content);
        var groups = await tree.ScanAsync();
        var unchanged = LinkTree.Plan(groups, linker);
        Assert.Null(Assert.Single(unchanged.Actions).Refusal);

        change(duplicate);
        var plan = LinkTree.Plan(groups, linker);
        var applied = Assert.Single((await unchanged.ApplyAsync()).Outcomes);

        var refusal = Assert.Single(plan.Actions).Refusal;
        Assert.StartsWith("owner, group or permissions differ", refusal, StringComparison.Ordinal);
        Assert.Equal((DuplicateActionStatus.Skipped, refusal), (applied.Status, applied.Reason));
        Assert.Equal(0, plan.ReclaimableBytes);
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);
        Assert.Equal((DuplicateActionStatus.Skipped, refusal), (outcome.Status, outcome.Reason));
        Assert.Equal(Content, File.ReadAllBytes(duplicate));
        Assert.Null(new FileInfo(duplicate).LinkTarget);
        Assert.Equal(1u, TestNative.LinkCount(duplicate));
    }

    private static Linker Builtin(string mode) => mode == "clone" ? Linkers.Clone : Linkers.Dedupe;

    /// <summary>A linker of a user's own that calls the same operation as the built-in one: the plan predicts nothing for it.</summary>
    private sealed class ForwardingLinker(string mode) : Linker
    {
        public override string Description => "forwarding " + mode;

        public override void Apply(LinkerContext context)
        {
            if (mode == "clone")
            {
                context.ReplaceWithClone();
            }
            else
            {
                context.DedupeWithKept();
            }
        }
    }
}
