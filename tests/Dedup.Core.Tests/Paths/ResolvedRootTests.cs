using Dedup.Core.Linking;
using Dedup.Core.Topology;
using Dedup.Core.Tests.Linking;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Paths;

/// <summary>
/// Roots and keep-rule folders mean what the kernel means (#34): with <c>lx/l -> real/deep</c>, a root <c>lx/l/..</c>
/// scans <c>lx/real</c>, never all of <c>lx</c>.
/// </summary>
public sealed class ResolvedRootTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(5000, seed: 34);

    [LinuxFact]
    public async Task A_root_climbing_out_of_a_link_scans_the_link_targets_parent_only()
    {
        using var tree = CopiesTree();

        var finder = new DuplicateFinderBuilder().AddRoot(tree.PathOf("lx/l/..")).Build();
        var (groups, summary) = await Scan.RunAsync(finder);

        Assert.Equal([tree.PathOf("lx/real/a.bin") + " | " + tree.PathOf("lx/real/c.bin")], Scan.Canonical(groups));
        Assert.Equal(tree.PathOf("lx/real"), Assert.Single(finder.Roots).ToString());
        Assert.Empty(summary.Errors);
    }

    [LinuxFact]
    public void A_root_climbing_out_of_what_does_not_exist_is_refused_when_the_finder_is_built()
    {
        using var tree = CopiesTree();

        // Read lexically, "lx/missing/.." would be lx, which exists: the kernel finds nothing there.
        var error = Assert.Throws<DirectoryNotFoundException>(() => new DuplicateFinderBuilder().AddRoot(tree.PathOf("lx/missing/..")).Build());
        Assert.Contains("lx/missing/..", error.Message, StringComparison.Ordinal);
    }

    [FactRequiringFolder("DEDUP_TEST_SMALLFS", "a second file system for a link to lead to")]
    public void A_drive_kind_path_climbing_out_of_a_link_names_the_device_the_link_leads_to()
    {
        using var other = new TempTree(Environment.GetEnvironmentVariable("DEDUP_TEST_SMALLFS"));
        Directory.CreateDirectory(other.PathOf("deep"));
        using var tree = CopiesTree();
        tree.Symlink(other.PathOf("deep"), "lx/far");

        // "lx/far/.." is the other file system's folder; read lexically it is lx, on this one.
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).UseDriveTopology(new UnknownDrives())
            .WithDriveKind(tree.PathOf("lx/far/.."), DriveKind.Hdd).Build();
        var context = new Core.Scanning.ScanContext(finder.Options, new Dedup.Core.Diagnostics.ScanErrorSink());
        context.CaptureDrives(); // the devices are looked up as a scan starts

        Assert.NotEqual(TestNative.Device(tree.Root), TestNative.Device(other.Root));
        Assert.Equal(DriveKind.Hdd, context.Drives.Topology.GetDevice(TestNative.Device(other.Root)).Kind);
        Assert.Equal(DriveKind.Unknown, context.Drives.Topology.GetDevice(TestNative.Device(tree.Root)).Kind);
    }

    [LinuxFact]
    public async Task A_keep_folder_climbing_out_of_a_link_prefers_the_link_targets_parent()
    {
        using var tree = CopiesTree();
        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(tree.PathOf("lx")));
        var group = Assert.Single(groups);

        // Read lexically the folder is lx, which holds all three copies: the rule could not decide.
        var rule = KeepRule.PreferUnder(tree.PathOf("lx/l/.."));
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Keep(rule).Keep(KeepRule.PathOrder).Build().Plan(groups);

        Assert.Equal("under " + tree.PathOf("lx/real"), rule.Description);
        Assert.All(plan.Actions, a => Assert.Equal(tree.PathOf("lx/real/a.bin"), a.Kept.Path.ToString()));
        Assert.Equal(3, group.Files.Count);
    }

    [LinuxFact]
    public void A_keep_folder_climbing_out_of_what_does_not_exist_is_refused()
    {
        using var tree = CopiesTree();

        var builder = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Keep(KeepRule.PreferUnder(tree.PathOf("lx/real"), tree.PathOf("lx/missing/.."), tree.PathOf("lx/gone/..")));
        var error = Assert.Throws<ArgumentException>(() => builder.Build());
        Assert.Equal($"The keep rule's folder '{tree.PathOf("lx/missing/..")}' does not exist (its '..' climbs out of a folder that does not).", error.Message);
    }

    [LinuxFact]
    public void A_keep_folder_that_is_a_file_or_missing_is_refused_saying_which()
    {
        using var tree = CopiesTree();

        Assert.Equal(
            $"The keep rule's folder '{tree.PathOf("lx/real/a.bin")}' is a file, not a folder.",
            Assert.Throws<ArgumentException>(() => PlannerKeeping(tree.PathOf("lx/real"), tree.PathOf("lx/real/a.bin"))).Message);
        Assert.Equal(
            $"The keep rule's folder '{tree.PathOf("gone")}' does not exist.",
            Assert.Throws<ArgumentException>(() => PlannerKeeping(tree.PathOf("gone"), tree.PathOf("lx/real/a.bin"))).Message);
        _ = PlannerKeeping(tree.PathOf("lx/real"), tree.PathOf("lx/l"));
    }

    private static DuplicateActionPlanner PlannerKeeping(params string[] folders) =>
        new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Keep(KeepRule.PreferUnder(folders)).Build();

    /// <summary><c>lx/l -> real/deep</c>; copies <c>lx/real/a.bin</c>, <c>lx/real/c.bin</c> and <c>lx/other/b.bin</c>.</summary>
    internal static TempTree CopiesTree()
    {
        var tree = KernelPathsTests.LinkTree();
        tree.Write("lx/real/a.bin", Content);
        tree.Write("lx/real/c.bin", Content);
        tree.Write("lx/other/b.bin", Content);
        return tree;
    }

    private sealed class UnknownDrives : IDriveTopology
    {
        public StorageDevice GetDevice(ulong deviceId) => new(deviceId, "test", DriveKind.Unknown);
    }
}
