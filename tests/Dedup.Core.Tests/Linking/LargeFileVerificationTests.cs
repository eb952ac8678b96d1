using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The byte comparison before acting covers the whole file, not just its first buffer: files of several MiB that
/// become different after the scan, only past the first MiB, are left untouched and the reason names the first
/// differing byte.
/// </summary>
public sealed class LargeFileVerificationTests
{
    private const int MiB = 1 << 20;

    // Not a multiple of the comparison's buffer, so the last read is a short one.
    private const int Length = (3 * MiB) + 12_345;

    private static readonly byte[] Content = TempTree.RandomBytes(Length, 11);

    public static TheoryData<string, string, int> Cases()
    {
        var data = new TheoryData<string, string, int>();
        foreach (var kind in new[] { "hard", "delete", "symbolic", "trash" })
        {
            foreach (var changed in new[] { "duplicate", "kept" })
            {
                data.Add(kind, changed, Length - 1);               // the very last byte, in the short final read
                data.Add(kind, changed, (2 * MiB) + 300_001);      // the middle of the third buffer
                data.Add(kind, changed, MiB);                      // the first byte of the second buffer
            }
        }

        return data;
    }

    [LinuxTheory]
    [MemberData(nameof(Cases))]
    public async Task Large_files_differing_after_the_first_MiB_are_left_untouched(string kind, string changed, int at)
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var plan = FaultInjectionTests.Plan(tree, await tree.ScanAsync(), kind);
        var action = Assert.Single(plan.Actions);
        Assert.Equal(a, action.Kept.Path.ToString());
        Assert.Equal(b, action.Path.ToString());

        // Same size and modification time, so only the byte comparison can notice.
        var target = changed == "kept" ? a : b;
        var time = File.GetLastWriteTimeUtc(target);
        var modified = (byte[])Content.Clone();
        modified[at] ^= 0x5A;
        await File.WriteAllBytesAsync(target, modified);
        File.SetLastWriteTimeUtc(target, time);
        var inodes = (TestNative.Inode(a), TestNative.Inode(b));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal($"content differs from the kept file at byte {at}; left untouched", outcome.Reason);
        Assert.Equal(changed == "kept" ? modified : Content, File.ReadAllBytes(a));
        Assert.Equal(changed == "kept" ? Content : modified, File.ReadAllBytes(b));
        Assert.Null(new FileInfo(b).LinkTarget);
        Assert.Equal(inodes, (TestNative.Inode(a), TestNative.Inode(b)));
        tree.AssertNoTemporaryFiles();
    }

    [LinuxFact]
    public async Task Large_identical_files_are_still_linked()
    {
        // The counterpart: the same sizes with no change are linked, so the skips above come from the comparison.
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var plan = FaultInjectionTests.Plan(tree, await tree.ScanAsync(), "hard");

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));
        Assert.Equal(Content, File.ReadAllBytes(b));
    }
}
