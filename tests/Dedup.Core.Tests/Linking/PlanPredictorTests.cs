using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// What the plan's predictor asks and trusts: an inconclusive probe is asked again, at most three times per device,
/// each one logged; the owner and mode rule is applied only to files that are still the scanned ones.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class PlanPredictorTests
{
    [LinuxFact]
    public async Task An_inconclusive_probe_is_asked_again_at_most_three_times_per_device()
    {
        using var tree = new LinkTree();
        for (var i = 0; i < 5; i++)
        {
            var content = TempTree.RandomBytes(3000, 360 + i);
            tree.Write($"g{i}/a.bin", content);
            tree.Write($"g{i}/b.bin", content);
        }

        var groups = await tree.ScanAsync();

        // Every file replaced by a new one (renamed over it, so no inode is reused): no probe can open the kept file as scanned.
        foreach (var file in Directory.GetFiles(tree.Root, "*.bin", SearchOption.AllDirectories))
        {
            File.Copy(file, file + ".new");
            File.Move(file + ".new", file, overwrite: true);
        }

        var logger = new CollectingLogger();
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Clone).UseLogger(logger).Build().Plan(groups);

        Assert.Equal(5, plan.Actions.Count);
        Assert.Equal(3, plan.ProbesRun);
        var probes = logger.Take().Where(e => e.Id.Id == 303).Select(e => e.Message).ToList();
        Assert.Equal(3, probes.Count);
        Assert.All(probes, m => Assert.EndsWith(": Unknown (the kept file is no longer the scanned file)", m, StringComparison.Ordinal));
        Assert.All(plan.Actions, a => Assert.Null(a.Refusal));
    }

    [LinuxFact]
    public async Task The_owner_and_mode_rule_is_predicted_only_for_files_that_are_still_the_scanned_ones()
    {
        using var tree = new LinkTree();
        var content = TempTree.RandomBytes(3000, 366);
        tree.Write("changed/a.bin", content);
        var replaced = tree.Write("replaced/b.bin", content);
        tree.Write("replaced/a.bin", content);
        var changed = tree.Write("changed/b.bin", content);
        var groups = await tree.ScanAsync(tree.PathOf("changed"));
        var replacedGroups = await tree.ScanAsync(tree.PathOf("replaced"));

        // The same file made private: refused at plan time. A new private file in the scanned one's place: not the scanned file, left to apply time.
        TempTree.Run("chmod", "0600", changed);
        File.Copy(replaced, replaced + ".new");
        TempTree.Run("chmod", "0600", replaced + ".new");
        File.Move(replaced + ".new", replaced, overwrite: true);

        Assert.NotNull(Assert.Single(LinkTree.Plan(groups, Linkers.HardLink).Actions).Refusal);
        Assert.Null(Assert.Single(LinkTree.Plan(replacedGroups, Linkers.HardLink).Actions).Refusal);
    }
}
