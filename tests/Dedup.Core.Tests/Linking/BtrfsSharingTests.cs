using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Issue #34 point 10 on a real btrfs (<c>DEDUP_TEST_BTRFS</c>): a clone carries the duplicate's <c>chattr</c> flags, and
/// repeating a clone or a dedupe reclaims (and reports) nothing, its extents being shared already.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
[Collection(BtrfsCollection.Name)]
public sealed class BtrfsSharingTests
{
    private const string Variable = "DEDUP_TEST_BTRFS";
    private const string Purpose = "a mounted btrfs for clones and FIDEDUPERANGE";

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Clone_keeps_the_duplicates_nodump_and_noatime_flags()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes(256 << 10, 343);
        var kept = tree.Write("a.bin", content);
        var duplicate = tree.Write("b.bin", content);
        TempTree.Run("chattr", "+d", "+A", duplicate);
        var keptFlags = Flags(kept);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Clone);

        Assert.Equal(DuplicateActionStatus.Done, Assert.Single((await plan.ApplyAsync()).Outcomes).Status);

        Assert.Contains('d', Flags(duplicate));
        Assert.Contains('A', Flags(duplicate));
        Assert.Equal(keptFlags, Flags(kept)); // the kept file's flags are its own
        Assert.Equal(content, await File.ReadAllBytesAsync(duplicate));
    }

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Clone_does_not_take_a_carried_flag_the_duplicate_lacked_from_its_folder()
    {
        // New files in a +c folder are born compressed; the replacement must end with the duplicate's flags, not its folder's.
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes(256 << 10, 349);
        tree.Write("a.bin", content);
        var duplicate = tree.Write("folder/b.bin", content);
        TempTree.Run("chattr", "+c", tree.PathOf("folder"));
        Assert.DoesNotContain('c', Flags(duplicate));

        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Clone);

        Assert.Equal(DuplicateActionStatus.Done, Assert.Single((await plan.ApplyAsync()).Outcomes).Status);
        Assert.DoesNotContain('c', Flags(duplicate));
        Assert.Equal(content, await File.ReadAllBytesAsync(duplicate));
    }

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Cloning_again_reclaims_and_reports_nothing() => await ActTwiceAsync(Linkers.Clone, seed: 345);

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Deduping_again_reclaims_and_reports_nothing() => await ActTwiceAsync(Linkers.Dedupe, seed: 346);

    [FactRequiringFolder(Variable, Purpose)]
    public async Task A_copy_that_already_shares_the_kept_files_extents_is_not_acted_on()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes(1 << 20, 347);
        var kept = tree.Write("a.bin", content);
        tree.Write("b.bin", content);
        TempTree.Run("cp", "--reflink=always", kept, tree.PathOf("c.bin"));

        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Dedupe);

        var action = Assert.Single(plan.Actions); // c.bin is the kept file's data already
        Assert.Equal(tree.PathOf("b.bin"), action.Path.ToString());
        Assert.Equal(content.Length, action.ReclaimableBytes);
    }

    [FactRequiringFolder(Variable, Purpose)]
    public async Task A_copy_sharing_half_its_extents_with_the_kept_file_reclaims_the_other_half()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes(1 << 20, 348);
        var kept = tree.Write("a.bin", content);
        tree.Write("b.bin", content);
        var half = tree.PathOf("c.bin");
        TempTree.Run("cp", "--reflink=always", kept, half);

        // The second half rewritten in place with the same bytes gets extents of its own; the first stays the kept file's.
        using (var stream = new FileStream(half, FileMode.Open, FileAccess.Write))
        {
            stream.Position = content.Length / 2;
            stream.Write(content, content.Length / 2, content.Length / 2);
            stream.Flush(flushToDisk: true);
        }

        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Clone);

        Assert.Equal(content.Length, plan.Actions.Single(a => a.Path.ToString() == tree.PathOf("b.bin")).ReclaimableBytes);
        Assert.Equal(content.Length / 2, plan.Actions.Single(a => a.Path.ToString() == half).ReclaimableBytes);
        var report = await plan.ApplyAsync();
        Assert.Equal(2, report.Done);
        Assert.Equal(content.Length + (content.Length / 2), report.ReclaimedBytes);
        Assert.All(TestNative.Extents(half), e => Assert.True(e.Shared));
        Assert.Equal(content, await File.ReadAllBytesAsync(half));
    }

    private static async Task ActTwiceAsync(Linker linker, int seed)
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes(1 << 20, seed);
        tree.Write("a.bin", content);
        tree.Write("b.bin", content);

        var first = await LinkTree.Plan(await tree.ScanAsync(), linker).ApplyAsync();
        Assert.Equal(1, first.Done);
        Assert.Equal(content.Length, first.ReclaimedBytes);

        var again = LinkTree.Plan(await tree.ScanAsync(), linker);
        var second = await again.ApplyAsync();
        Assert.Equal(0, second.ReclaimedBytes);
        Assert.Equal(0, again.Actions.Sum(a => a.ReclaimableBytes));
        Assert.Equal(content, await File.ReadAllBytesAsync(tree.PathOf("b.bin")));
    }

    /// <summary>The flag letters <c>lsattr</c> shows for a file.</summary>
    private static string Flags(string path)
    {
        var output = ProcessRunner.Run("lsattr", [path]).Stdout.Trim();
        return output[..output.IndexOf(' ', StringComparison.Ordinal)].Replace("-", string.Empty, StringComparison.Ordinal);
    }
}

/// <summary>Tests that use the btrfs mount's free space: one at a time.</summary>
[CollectionDefinition(Name)]
public sealed class BtrfsCollection
{
    public const string Name = "Btrfs";
}
