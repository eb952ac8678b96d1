using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// A writer that puts the modification time back (<c>touch -d</c>) after writing other bytes of the same size,
/// after the byte verification and before the rename, unlink or move into the trash: size and modification time
/// look unchanged, but the change time moved, and the last re-check compares it with the action's first check.
/// </summary>
public sealed class ChangeTimeTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(50_000, 31);

    [LinuxTheory]
    [MemberData(nameof(FaultInjectionTests.Kinds), MemberType = typeof(FaultInjectionTests))]
    public async Task Duplicate_rewritten_with_its_modification_time_restored_after_verification_is_skipped(string kind)
    {
        using var tree = new LinkTree();

        var run = await RewriteAfterVerificationAsync(tree, kind, rewriteKept: false);

        Assert.StartsWith("duplicate changed since this action's first check", run.Reason, StringComparison.Ordinal);
        Assert.Contains("change time moved", run.Reason, StringComparison.Ordinal);
        AssertSameDuplicate(run, run.Changed);
        Assert.Equal(Content, await File.ReadAllBytesAsync(run.Kept));
        tree.AssertNoTemporaryFiles();
    }

    [LinuxTheory]
    [MemberData(nameof(FaultInjectionTests.Kinds), MemberType = typeof(FaultInjectionTests))]
    public async Task Kept_file_rewritten_with_its_modification_time_restored_after_verification_is_skipped(string kind)
    {
        // For a hard link this runs after the link to the kept file was made (which moved its change time itself).
        using var tree = new LinkTree();

        var run = await RewriteAfterVerificationAsync(tree, kind, rewriteKept: true);

        Assert.StartsWith($"kept file {run.Kept} changed since this action's first check", run.Reason, StringComparison.Ordinal);
        AssertSameDuplicate(run, Content);
        tree.AssertNoTemporaryFiles();
    }

    /// <summary>
    /// a.bin (kept) and b.bin (its duplicate), planned for <paramref name="kind"/> from a real scan; after the byte
    /// verification the kept file or the duplicate is rewritten with its modification time restored. Applies the
    /// plan and asserts its one action was skipped.
    /// </summary>
    private static async Task<Rewrite> RewriteAfterVerificationAsync(LinkTree tree, string kind, bool rewriteKept)
    {
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var inode = TestNative.Inode(b);
        var plan = FaultInjectionTests.Plan(tree, await tree.ScanAsync(), kind);
        var changed = Changed(Content);
        plan.Faults = AfterVerification(kind, () => RewriteKeepingTime(rewriteKept ? a : b, changed));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        return new Rewrite(a, b, inode, changed, outcome.Reason);
    }

    /// <summary>The duplicate holds <paramref name="bytes"/> and is still the same plain file (same inode, no link).</summary>
    private static void AssertSameDuplicate(Rewrite run, byte[] bytes)
    {
        Assert.Equal(bytes, File.ReadAllBytes(run.Duplicate));
        Assert.Equal(run.DuplicateInode, TestNative.Inode(run.Duplicate));
        Assert.Null(new FileInfo(run.Duplicate).LinkTarget);
    }

    /// <summary>The fault hook each kind runs after the byte verification and before its last re-check.</summary>
    internal static LinkerFaults AfterVerification(string kind, Action write) => kind switch
    {
        "delete" => new LinkerFaults { BeforeDelete = _ => write() },
        "trash" => new LinkerFaults { BeforeTrashMove = (_, _) => write() },
        _ => new LinkerFaults { BeforeRename = (_, _) => write() },
    };

    /// <summary>Writes other bytes of the same size in place and puts the modification time back, as <c>touch -d</c> would.</summary>
    internal static void RewriteKeepingTime(string path, byte[] bytes)
    {
        var time = File.GetLastWriteTimeUtc(path);
        Thread.Sleep(20); // kernels with coarse timestamps advance the change time once per clock tick
        using (var stream = new FileStream(path, FileMode.Open, FileAccess.Write))
        {
            stream.Write(bytes);
        }

        File.SetLastWriteTimeUtc(path, time);
        Assert.Equal(time, File.GetLastWriteTimeUtc(path));
        Assert.Equal(bytes.Length, new FileInfo(path).Length);
    }

    private static byte[] Changed(byte[] content)
    {
        var changed = (byte[])content.Clone();
        changed[12_345] ^= 0xFF;
        return changed;
    }

    /// <summary>The paths, the duplicate's inode before the action, the bytes written, and why the action was skipped.</summary>
    private sealed record Rewrite(string Kept, string Duplicate, ulong DuplicateInode, byte[] Changed, string? Reason);
}
