using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Tests.Infrastructure;
using Microsoft.Extensions.Logging;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The order of <see cref="PlanExecutor"/>'s checks and what it reports (issue #34, point 12): owner and mode are
/// compared before either file is read, the kept file is checked before the duplicate on the portable path too, the
/// portable run is logged, and a failed system trash move says where the duplicate is.
/// </summary>
public sealed class PlanExecutorDetailTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(7_000, 261);

    [LinuxFact]
    public async Task Owner_and_mode_are_compared_before_either_file_is_read()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink);
        var other = (byte[])Content.Clone();
        other[0] ^= 0xFF;
        TempTree.Run("cp", "-p", b, tree.PathOf("times"));
        using (var stream = new FileStream(b, FileMode.Open, FileAccess.Write))
        {
            stream.WriteByte(other[0]); // the same file, other bytes, the scanned size and (below) time
        }

        TempTree.Run("touch", "-r", tree.PathOf("times"), b);
        File.SetUnixFileMode(b, UnixFileMode.UserRead | UnixFileMode.UserWrite);
        File.SetUnixFileMode(tree.PathOf("a.bin"), UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead);

        var outcome = Assert.Single(PlanExecutor.Apply(plan, null, CancellationToken.None).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.StartsWith("owner, group or permissions differ", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(other, File.ReadAllBytes(b));
    }

    [LinuxFact]
    public void The_portable_run_checks_the_kept_file_first_and_is_logged()
    {
        using var tree = new LinkTree();
        var kept = tree.Write("a.bin", Content);
        var duplicate = tree.Write("b.bin", Content);
        var action = PortableContextTests.ActionOf(kept, duplicate);
        var logger = new CollectingLogger();
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).UseLogger(logger)
            .Keep(KeepRule.Custom("a.bin", (x, y) => (x.Path.Name == "a.bin" ? 0 : 1).CompareTo(y.Path.Name == "a.bin" ? 0 : 1)))
            .Build().Plan([action.Group]);
        logger.Take();
        File.AppendAllText(kept, "x");
        File.AppendAllText(duplicate, "x");
        var moved = new List<string>();

        var outcome = Assert.Single(PlanExecutor.ApplyPortable(plan, moved.Add, CancellationToken.None).Outcomes);

        Assert.Equal($"kept file {kept} changed size from 7000 to 7001 bytes since the scan; nothing done", outcome.Reason);
        Assert.True(File.Exists(duplicate));
        var started = Assert.Single(logger.Take(), e => e.Id.Id == 201);
        Assert.Equal(LogLevel.Information, started.Level);
        Assert.Equal("Applying 1 actions (permanent delete)", started.Message);
    }

    [LinuxFact]
    public void A_failed_trash_move_says_whether_the_duplicate_is_still_at_its_path()
    {
        using var tree = new TempTree();
        var present = tree.Write("here", [1]);

        var still = PlanExecutor.TrashMoveFailed(present, "the system refused");
        var gone = PlanExecutor.TrashMoveFailed(tree.PathOf("gone"), "the system refused");

        Assert.Equal(DuplicateActionStatus.Failed, still.Status);
        Assert.Equal("the system refused; duplicate unchanged", still.Message);
        Assert.Equal("the system refused; the duplicate is no longer at its path", gone.Message);
    }
}
