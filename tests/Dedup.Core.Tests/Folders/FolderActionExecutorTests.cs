using Dedup.Core.FileSystem;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Folders;

/// <summary>
/// <see cref="FolderExecutor"/> on plans an earlier scan made and the tree then changed (issue #34, point 12): a kept
/// folder outside the scanned roots refuses the action before anything is touched, a leftover outside every folder
/// of the plan is reported and left alone, and a folder that cannot be removed at the end is named as a folder.
/// </summary>
public sealed class FolderActionExecutorTests
{
    private static readonly byte[] One = TempTree.RandomBytes(4000, 231);
    private static readonly byte[] Two = TempTree.RandomBytes(5000, 232);

    /// <summary>Two equal folders (one.bin, sub/two.bin) planned for deletion; which is kept is the planner's choice.</summary>
    private static async Task<DuplicateFolderActionPlan> PlanAsync(TempTree tree, string first, string second)
    {
        foreach (var folder in new[] { first, second })
        {
            tree.Write($"{folder}/one.bin", One);
            tree.Write($"{folder}/sub/two.bin", Two);
        }

        var (_, _, scan) = await FolderScanRun.RunAsync(tree);
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().PlanFolders(scan.FolderGroups);
        Assert.Null(Assert.Single(plan.Actions).Refusal);
        return plan;
    }

    [LinuxFact]
    public async Task A_kept_folder_outside_the_scanned_roots_refuses_the_action_before_anything_is_touched()
    {
        using var tree = new TempTree();
        tree.Write("p1/unique.txt", [9]); // so that p1 and p2 differ and f is the copy
        var scanned = await PlanAsync(tree, "p1/f", "p2/f");
        var action = scanned.Actions[0];
        var copy = action.Folder.ToString();
        var onlyTheCopys = action.Group with { Roots = [ScanRoot.Capture(action.Folder.Parent!)] };
        var plan = new DuplicateFolderActionPlan(
            scanned.Linker,
            [new DuplicateFolderAction(action.Kind, onlyTheCopys, action.Kept, action.Folder, action.ReclaimableBytes, null, action.FileActions)],
            [],
            scanned.Logger,
            []);

        var outcome = Assert.Single(FolderExecutor.Apply(plan, null, CancellationToken.None).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal("the folder is not below the scanned roots; nothing in the folder was touched", outcome.Reason);
        Assert.Equal(One, File.ReadAllBytes(copy + "/one.bin"));
        Assert.Equal(Two, File.ReadAllBytes(copy + "/sub/two.bin"));
    }

    [LinuxFact]
    public async Task A_leftover_outside_every_folder_of_the_plan_is_left_alone_and_reported()
    {
        using var tree = new TempTree();
        var scanned = await PlanAsync(tree, "kept", "copy");
        var leftover = tree.Write("elsewhere/" + TemporaryNames.NewName(), []);
        var plan = new DuplicateFolderActionPlan(scanned.Linker, scanned.Actions, [], scanned.Logger, [leftover]);

        var report = FolderExecutor.Apply(plan, null, CancellationToken.None);

        Assert.Equal(0, report.TemporaryFilesRemoved);
        Assert.Equal($"{leftover}: folder no scanned root is known for it; left alone", Assert.Single(report.TemporaryFilesLeftAlone));
        Assert.True(File.Exists(leftover));
        Assert.Equal(DuplicateActionStatus.Done, Assert.Single(report.Outcomes).Status);
    }

    [LinuxFact]
    public async Task A_copy_that_cannot_be_removed_at_the_end_is_named_as_a_folder()
    {
        using var tree = new TempTree();
        var plan = await PlanAsync(tree, "kept", "copy");
        var copy = plan.Actions[0].Folder.ToString();
        plan.Faults = new LinkerFaults { BeforeFolderVerify = folder => File.WriteAllBytes(Path.Join(folder, "new.txt"), [1]) }; // after both listings

        var outcome = Assert.Single(FolderExecutor.Apply(plan, null, CancellationToken.None).Outcomes);

        Assert.Equal(DuplicateActionStatus.Failed, outcome.Status);
        Assert.Equal($"every file was handled, but {copy}/ could not be removed (Directory not empty); what is left of the folder stays", outcome.Reason);
        Assert.Equal([1], File.ReadAllBytes(copy + "/new.txt"));
        Assert.False(Directory.Exists(copy + "/sub"));
    }
}
