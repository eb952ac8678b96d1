using System.Runtime.Versioning;
using System.Text;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Trash;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Delete and Trash on macOS (Trash), end to end through the public API: a real portable scan, a plan and its
/// application. Each test runs only on macOS and is reported as skipped (with the reason) elsewhere. The Windows
/// cases are in tests/Dedup.Core.WindowsTests, run under Wine by .ci/wine-tests.sh.
/// </summary>
public sealed class SystemTrashTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(30_000, 11);

    public static TheoryData<string> LinkModes => new() { "hard", "symbolic", "clone", "dedupe" };

    [MacOSFact]
    public async Task MacOS_trash_moves_the_duplicate_to_the_Trash_and_keeps_the_kept_file()
    {
        using var tree = new LinkTree();

        await TrashTheDuplicateAsync(tree);
    }

    [MacOSFact]
    [SupportedOSPlatform("macos")]
    public void MacOS_trash_reports_where_the_file_went()
    {
        using var tree = new LinkTree();
        var name = Guid.NewGuid().ToString("N") + ".bin";
        var path = tree.Write(name, Content);

        var where = MacTrash.Move(path);

        Assert.False(File.Exists(path));
        Assert.NotNull(where);
        Assert.Contains("/.Trash", where, StringComparison.Ordinal);
        Assert.StartsWith(Path.GetFileNameWithoutExtension(name), Path.GetFileName(where), StringComparison.Ordinal);
        try
        {
            File.Delete(where);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // Privacy protection may keep the test runner out of ~/.Trash; the file then stays there.
        }
    }

    [MacOSFact]
    public Task MacOS_delete_removes_the_duplicate_and_keeps_the_kept_file() => DeleteRemovesTheDuplicateAsync();

    [MacOSFact]
    public Task MacOS_duplicate_changed_between_scan_and_apply_is_skipped_and_untouched() => ChangedDuplicateIsSkippedAsync();

    [MacOSFact]
    public Task MacOS_duplicate_changed_right_before_the_move_is_skipped_and_untouched() => LateChangeIsSkippedAsync();

    [MacOSFact]
    public void MacOS_refuses_link_modes_with_NotSupportedException() => LinkModesAreRefused();

    /// <summary>
    /// keep/a.bin and its duplicate under other/ with <paramref name="duplicateName"/>, scanned and planned through the
    /// public API with <paramref name="linker"/>, keeping the file under keep/.
    /// </summary>
    private static async Task<(string Kept, string Duplicate, DuplicateActionPlan Plan)> PlanKeepAndOtherAsync(LinkTree tree, Linker linker, string duplicateName = "b.bin")
    {
        var kept = tree.Write("keep/a.bin", Content);
        var duplicate = tree.Write("other/" + duplicateName, Content);
        return (kept, duplicate, LinkTree.Plan(await tree.ScanAsync(), linker, KeepRule.PreferUnder(tree.PathOf("keep"))));
    }

    /// <summary>Trashes a duplicate of a unique name through the public API; asserts it is gone and the kept file intact, and returns its old path.</summary>
    private static async Task<string> TrashTheDuplicateAsync(LinkTree tree)
    {
        var (kept, duplicate, plan) = await PlanKeepAndOtherAsync(tree, Linkers.Trash, Guid.NewGuid().ToString("N") + ".bin");
        Assert.Single(plan.Actions);

        var report = await plan.ApplyAsync();

        Assert.Equal(1, report.Done);
        Assert.False(File.Exists(duplicate));
        Assert.Equal(Content, await File.ReadAllBytesAsync(kept));
        return duplicate;
    }

    /// <summary>Applies the plan and asserts its one action was skipped, <paramref name="reason"/> accepts the reason, and the duplicate holds <paramref name="bytes"/>.</summary>
    private static async Task AssertSkippedAsync(DuplicateActionPlan plan, Action<string?> reason, string duplicate, IEnumerable<byte> bytes)
    {
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        reason(outcome.Reason);
        Assert.Equal(bytes, await File.ReadAllBytesAsync(duplicate));
    }

    private static async Task DeleteRemovesTheDuplicateAsync()
    {
        using var tree = new LinkTree();
        var (kept, duplicate, plan) = await PlanKeepAndOtherAsync(tree, Linkers.Delete);

        var report = await plan.ApplyAsync();

        Assert.Equal(1, report.Done);
        Assert.Equal(Content.Length, report.ReclaimedBytes);
        Assert.False(File.Exists(duplicate));
        Assert.Equal(Content, await File.ReadAllBytesAsync(kept));
    }

    private static async Task ChangedDuplicateIsSkippedAsync()
    {
        using var tree = new LinkTree();
        var (kept, duplicate, plan) = await PlanKeepAndOtherAsync(tree, Linkers.Trash);
        await File.AppendAllTextAsync(duplicate, "changed");

        await AssertSkippedAsync(plan, reason => Assert.Contains("duplicate changed size", reason, StringComparison.Ordinal), duplicate, Content.Concat(Encoding.ASCII.GetBytes("changed")));
        Assert.Equal(Content, await File.ReadAllBytesAsync(kept));
    }

    private static async Task LateChangeIsSkippedAsync()
    {
        using var tree = new LinkTree();
        var (_, duplicate, plan) = await PlanKeepAndOtherAsync(tree, Linkers.Trash);
        var time = File.GetLastWriteTimeUtc(duplicate);
        plan.Faults = new LinkerFaults { BeforeSystemTrashMove = path => File.SetLastWriteTimeUtc(path, time.AddSeconds(-10)) };

        await AssertSkippedAsync(plan, reason => Assert.Equal("duplicate was modified since the scan; left untouched", reason), duplicate, Content);
    }

    private static void LinkModesAreRefused()
    {
        // Windows has hard links (CreateHardLinkW); macOS has none of these.
        var refused = new[] { Linkers.HardLink, Linkers.SymbolicLink(), Linkers.SymbolicLink(relative: false), Linkers.Clone, Linkers.Dedupe }
            .Where(linker => !(OperatingSystem.IsWindows() && linker.Kind == DuplicateActionKind.HardLink));
        foreach (var linker in refused)
        {
            var error = Assert.Throws<NotSupportedException>(() => new DuplicateActionPlanBuilder().UseLinker(linker).Build());
            Assert.Contains("implemented for Linux only", error.Message, StringComparison.Ordinal);
        }

        Assert.Equal(DuplicateActionKind.Delete, new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().Linker.Kind);
        Assert.Equal(DuplicateActionKind.Trash, new DuplicateActionPlanBuilder().UseLinker(Linkers.Trash).Build().Linker.Kind);
    }
}
