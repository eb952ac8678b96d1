using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>Regressions for data-loss paths found in review: trash copies kept, look-alike temp names, media matches.</summary>
[Collection(SmallFsCollection.Name)]
public sealed class SafetyReviewTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(30_000, 17);

    [LinuxFact]
    public async Task A_copy_in_a_trash_folder_is_never_the_one_kept_even_when_it_sorts_first()
    {
        using var tree = new LinkTree();
        var trashed = tree.Write(".local/share/Trash/files/report.pdf", Content);
        var other = tree.Write(".Trash-0/files/report.pdf", Content);
        var real = tree.Write("Documents/report.pdf", Content);
        var before = tree.Snapshot();

        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Delete);
        Assert.All(plan.Actions, a => Assert.Equal(real, a.Kept.Path.ToString()));
        var report = await plan.ApplyAsync();

        Assert.Equal(2, report.Done);
        Assert.Equal(Content, await File.ReadAllBytesAsync(real));
        Assert.False(File.Exists(trashed));
        Assert.False(File.Exists(other));
        LinkTree.AssertNoContentLost(before);
    }

    [LinuxFact]
    public async Task When_every_copy_is_in_the_trash_nothing_is_deleted()
    {
        using var tree = new LinkTree();
        var a = tree.Write(".local/share/Trash/files/a.bin", Content);
        var b = tree.Write(".local/share/Trash/files/a.2.bin", Content);

        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Delete);
        Assert.StartsWith("every copy is in a trash folder", Assert.Single(plan.Actions).Refusal, StringComparison.Ordinal);
        var report = await plan.ApplyAsync();

        Assert.Equal(0, report.Done);
        Assert.Equal(1, report.Skipped);
        Assert.True(File.Exists(a) && File.Exists(b));
    }

    [LinuxFact]
    public async Task A_user_file_named_like_a_temporary_file_but_ending_in_a_newline_is_not_cleaned_up()
    {
        using var tree = new LinkTree();
        tree.Write("keep/x.bin", Content);
        tree.Write("dup/x.bin", Content);
        var lookAlike = tree.Write("dup/.dedup-tmp-0123456789abcdef0123456789abcdef\n", [1, 2, 3]);

        // The plan acts in dup/ (so dup/ is searched for leftovers) but must not take the look-alike for one.
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("keep"), tree.PathOf("dup")), Linkers.HardLink, KeepRule.PreferUnder(tree.PathOf("keep")));
        Assert.Equal(tree.PathOf("dup/x.bin"), Assert.Single(plan.Actions).Path.ToString());
        Assert.Empty(plan.LeftoverTemporaryFiles);
        var report = await plan.ApplyAsync();

        Assert.Equal(1, report.Done);
        Assert.Equal(0, report.TemporaryFilesRemoved);
        Assert.True(File.Exists(lookAlike), "a file that only looks like a temporary file was removed");
        Assert.Equal([1, 2, 3], await File.ReadAllBytesAsync(lookAlike));
    }

    [LinuxFact]
    public async Task Media_payload_matches_are_refused_at_plan_time()
    {
        using var tree = new LinkTree();
        var fixture = new Media.Fixtures.Mp3Fixture();
        var variants = fixture.Variants(seed: 5).Select(v => v.Bytes).DistinctBy(Convert.ToHexString).Take(2).ToArray();
        var one = tree.Write("a/one.mp3", variants[0]);
        var two = tree.Write("b/two.mp3", variants[1]);
        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode());
        Assert.Single(groups);

        var plan = LinkTree.Plan(groups, Linkers.Delete);
        Assert.StartsWith("media-payload match", Assert.Single(plan.Actions).Refusal, StringComparison.Ordinal);
        Assert.Equal(0, plan.ReclaimableBytes);
        await plan.ApplyAsync();
        Assert.Equal(variants[0], await File.ReadAllBytesAsync(one));
        Assert.Equal(variants[1], await File.ReadAllBytesAsync(two));
    }

    [LinuxFact]
    public async Task Different_permissions_are_refused_before_the_content_is_read()
    {
        // The duplicate's bytes change after the scan with size and modification time restored: only reading
        // would notice. The permission refusal comes first, so the reason names permissions, not content.
        using var tree = new LinkTree();
        var kept = tree.Write("keep/x.bin", Content);
        var duplicate = tree.Write("dup/x.bin", Content);
        TempTree.Run("chmod", "644", kept);
        TempTree.Run("chmod", "600", duplicate);
        var groups = await tree.ScanAsync(tree.PathOf("keep"), tree.PathOf("dup"));
        var written = File.GetLastWriteTimeUtc(duplicate);
        var changed = (byte[])Content.Clone();
        changed[^1] ^= 0xFF;
        await File.WriteAllBytesAsync(duplicate, changed);
        File.SetLastWriteTimeUtc(duplicate, written);

        var report = await LinkTree.Plan(groups, Linkers.HardLink, KeepRule.PreferUnder(tree.PathOf("keep"))).ApplyAsync();

        var outcome = Assert.Single(report.Outcomes);
        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("owner, group or permissions differ", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(changed, await File.ReadAllBytesAsync(duplicate));
    }

    [LinuxFact(RequiresRoot = true)] // chown to another user
    public async Task Files_of_different_owners_or_permissions_are_not_linked()
    {
        using var tree = new LinkTree();
        var kept = tree.Write("keep/x.bin", Content);
        var otherOwner = tree.Write("dup1/x.bin", Content);
        var otherMode = tree.Write("dup2/x.bin", Content);
        TempTree.Run("chown", "65534:65534", otherOwner);
        TempTree.Run("chmod", "600", otherMode);
        TempTree.Run("chmod", "644", kept);

        foreach (var linker in new[] { Linkers.HardLink, Linkers.SymbolicLink() })
        {
            var groups = await tree.ScanAsync(tree.PathOf("keep"), tree.PathOf("dup1"), tree.PathOf("dup2"));
            var report = await LinkTree.Plan(groups, linker, KeepRule.PreferUnder(tree.PathOf("keep"))).ApplyAsync();
            Assert.Equal(0, report.Done);
            Assert.Equal(2, report.Outcomes.Count); // dup1/x.bin and dup2/x.bin
            Assert.All(report.Outcomes, o => Assert.Contains("owner, group or permissions differ", o.Reason, StringComparison.Ordinal));
            Assert.Null(new FileInfo(otherOwner).LinkTarget);
            Assert.Equal(Content, await File.ReadAllBytesAsync(otherOwner));
            Assert.Equal(Content, await File.ReadAllBytesAsync(otherMode));
            Assert.NotEqual(TestNative.Inode(kept), TestNative.Inode(otherOwner));
        }
    }

    [FactRequiringFolder("DEDUP_TEST_SMALLFS", "a second mounted file system for its own trash folder")]
    public async Task A_duplicate_reached_through_a_symbolic_link_goes_to_its_real_mounts_trash()
    {
        using var local = new LinkTree();
        using var mounted = new LinkTree(LinkTree.SmallMount);
        var kept = local.Write("keep/x.bin", Content);
        var duplicate = mounted.Write("sub/x.bin", Content);
        var link = Path.Combine(local.Root, "lnk");
        File.CreateSymbolicLink(link, Path.GetDirectoryName(duplicate)!);
        var before = local.Snapshot();

        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(Path.Combine(local.Root, "keep")).AddRoot(link));
        var report = await LinkTree.Plan(groups, Linkers.Trash, KeepRule.PreferUnder(Path.Combine(local.Root, "keep"))).ApplyAsync();

        Assert.Equal(1, report.Done);
        Assert.False(File.Exists(duplicate));
        Assert.Equal(Content, await File.ReadAllBytesAsync(kept));

        // The trash belongs at the top of the mount that really holds the file, with Path= relative to it.
        var top = LinkTree.SmallMount!;
        var trash = Directory.GetDirectories(top, ".Trash*").Single();
        var uidTrash = Directory.Exists(Path.Combine(trash, "files")) ? trash : Directory.GetDirectories(trash).Single();
        // Other runs may have left entries in the shared mount's trash: find this test's own by its unique path.
        var relative = Path.GetRelativePath(top, duplicate);
        var info = Directory.GetFiles(Path.Combine(uidTrash, "info"), "x*.trashinfo")
            .Single(f => File.ReadAllText(f).Contains("Path=" + relative + "\n", StringComparison.Ordinal));
        File.Delete(info);
        File.Delete(Path.Combine(uidTrash, "files", Path.GetFileNameWithoutExtension(info)));
        LinkTree.AssertNoContentLost(before);
    }
}
