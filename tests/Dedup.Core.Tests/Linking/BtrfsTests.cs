using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Clones, kernel-verified dedupe, trash on another mount and cross-device pairs on a real btrfs
/// (<c>DEDUP_TEST_BTRFS</c>, set up by <c>.ci/btrfs-setup.sh</c>). One class: its tests run one at a time,
/// so the free-space measurements are not disturbed.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
[Collection(BtrfsCollection.Name)]
public sealed class BtrfsTests
{
    private const string Variable = "DEDUP_TEST_BTRFS";
    private const string Purpose = "a mounted btrfs for clones and FIDEDUPERANGE";

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Clone_shares_extents_frees_space_and_keeps_the_duplicates_metadata()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes(48 << 20, 10);
        var a = tree.Write("a.bin", content);
        var b = tree.Write("b.bin", content);
        File.SetUnixFileMode(b, UnixFileMode.UserRead | UnixFileMode.GroupRead);
        var time = new DateTime(2020, 1, 2, 3, 4, 5, DateTimeKind.Utc);
        File.SetLastWriteTimeUtc(b, time);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Clone);
        var before = tree.Snapshot();
        var free = FreeBytes();

        var report = await plan.ApplyAsync();

        Assert.Equal(DuplicateActionStatus.Done, Assert.Single(report.Outcomes).Status);
        Assert.NotEqual(TestNative.Inode(a), TestNative.Inode(b));
        AssertSharedExtents(a, b);
        Assert.True(FreeBytes() - free > 40 << 20, $"free space grew by {FreeBytes() - free} bytes only");
        Assert.Equal(time, File.GetLastWriteTimeUtc(b));
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.GroupRead, File.GetUnixFileMode(b));
        LinkTree.AssertNoContentLost(before);
        tree.AssertNoTemporaryFiles();
    }

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Clone_keeps_the_duplicates_owner_and_access_time()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes(64 << 10, 12);
        tree.Write("a.bin", content);
        var b = tree.Write("b.bin", content);
        TempTree.Run("chown", "65534:65534", b);
        var accessed = new DateTime(2019, 6, 7, 8, 9, 10, DateTimeKind.Utc);
        File.SetLastAccessTimeUtc(b, accessed);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Clone);

        Assert.Equal(DuplicateActionStatus.Done, Assert.Single((await plan.ApplyAsync()).Outcomes).Status);

        Assert.Equal(0, TestNative.FileStatusOf(b, out var status));
        Assert.Equal((65534u, 65534u), (status.Uid, status.Gid)); // as root the clone gets the duplicate's owner
        Assert.Equal(accessed, File.GetLastAccessTimeUtc(b));
        Assert.Equal(content, File.ReadAllBytes(b));
    }

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Dedupe_shares_extents_in_16_MiB_ranges_and_frees_space()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes((40 << 20) + 12345, 11); // three ranges, the last one partial
        var a = tree.Write("a.bin", content);
        var b = tree.Write("b.bin", content);
        var c = tree.Write("c.bin", content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Dedupe);
        var free = FreeBytes();

        var report = await plan.ApplyAsync();

        Assert.Equal(2, report.Done);
        Assert.Equal(2L * content.Length, report.ReclaimedBytes);
        AssertSharedExtents(a, b);
        AssertSharedExtents(a, c);
        Assert.True(FreeBytes() - free > 70 << 20, $"free space grew by {FreeBytes() - free} bytes only");
        Assert.All(new[] { a, b, c }, p => Assert.Equal(content, File.ReadAllBytes(p)));
    }

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Dedupe_leaves_a_file_whose_bytes_changed_unnoticed_by_size_and_time()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes(20 << 20, 12);
        tree.Write("a.bin", content);
        var b = tree.Write("b.bin", content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Dedupe);
        var time = File.GetLastWriteTimeUtc(b);
        var changed = (byte[])content.Clone();
        changed[18 << 20] ^= 0x5A; // in the second range
        await File.WriteAllBytesAsync(b, changed);
        File.SetLastWriteTimeUtc(b, time);
        var before = tree.Snapshot();

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("kernel found the content differs", outcome.Reason, StringComparison.Ordinal);
        LinkTree.AssertNoContentLost(before);
    }

    [FactRequiringFolder(Variable, Purpose, RequiresRoot = true)]
    public async Task Clone_keeps_the_duplicates_extended_attributes_and_not_the_kept_files()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes(200_000, 15);
        var a = tree.Write("a.bin", content);
        var b = tree.Write("b.bin", content);
        byte[] binary = [0, 1, 2, 255, 0, 7];
        var large = TempTree.RandomBytes(3_000, 16);
        TestNative.SetXattr(a, "user.kept-only", [1]);
        TestNative.SetXattr(b, "user.comment", "holiday"u8.ToArray());
        TestNative.SetXattr(b, "user.binary", binary);
        TestNative.SetXattr(b, "user.large", large);
        TestNative.SetXattr(b, "security.dedup-test", [9]); // root may set any security.* name
        TestNative.SetXattr(b, "trusted.dedup-test", [8]);  // visible and settable for root only
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Clone);
        var before = tree.Snapshot();

        var report = await plan.ApplyAsync();

        Assert.Equal(DuplicateActionStatus.Done, Assert.Single(report.Outcomes).Status);
        AssertSharedExtents(a, b);
        Assert.Equal("holiday"u8.ToArray(), TestNative.GetXattr(b, "user.comment"));
        Assert.Equal(binary, TestNative.GetXattr(b, "user.binary"));
        Assert.Equal(large, TestNative.GetXattr(b, "user.large"));
        Assert.Equal([9], TestNative.GetXattr(b, "security.dedup-test"));
        Assert.Equal([8], TestNative.GetXattr(b, "trusted.dedup-test"));
        Assert.Null(TestNative.GetXattr(b, "user.kept-only"));
        Assert.Equal([1], TestNative.GetXattr(a, "user.kept-only"));
        Assert.Null(TestNative.GetXattr(a, "user.comment"));
        LinkTree.AssertNoContentLost(before);
        tree.AssertNoTemporaryFiles();
    }

    [FactRequiringFolder(Variable, Purpose, RequiresRoot = true)]
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public async Task A_clone_that_cannot_get_an_attribute_fails_and_leaves_the_duplicate()
    {
        // Run as nobody, who may read the duplicate's security.* attribute but not set it (a real EPERM).
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        using var cli = new CliAsNobody();
        var content = TempTree.RandomBytes(50_000, 17);
        var a = tree.Write("data/a.bin", content);
        var b = tree.Write("data/b.bin", content);
        foreach (var path in new[] { tree.PathOf("data"), a, b })
        {
            File.SetUnixFileMode(path, File.GetUnixFileMode(path) | UnixFileMode.OtherWrite | UnixFileMode.OtherRead | UnixFileMode.OtherExecute);
        }

        TestNative.SetXattr(b, "user.comment", [1]);
        TestNative.SetXattr(b, "security.dedup-test", [9]);
        CliAsNobody.MakeTraversable(tree.PathOf("data"));
        var inode = TestNative.Inode(b);

        var (exitCode, stdout, stderr) = await cli.RunAsync(["link", "--mode", "clone", "--yes", tree.PathOf("data")]);

        Assert.True(exitCode == 1, $"exit code {exitCode}; stdout: {stdout}; stderr: {stderr}");
        Assert.Contains("cannot give the clone the duplicate's extended attributes (security.dedup-test)", stderr, StringComparison.Ordinal);
        Assert.Equal(inode, TestNative.Inode(b));
        Assert.Equal(content, await File.ReadAllBytesAsync(b));
        Assert.Equal([9], TestNative.GetXattr(b, "security.dedup-test"));
        tree.AssertNoTemporaryFiles();
    }

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Cross_device_pairs_are_refused_for_hard_links_clones_and_dedupe()
    {
        using var local = new LinkTree();
        using var btrfs = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes(70_000, 13);
        local.Write("a.bin", content);
        btrfs.Write("b.bin", content);
        var groups = await local.ScanAsync(local.Root, btrfs.Root);
        var before = local.Snapshot();
        foreach (var (path, bytes) in btrfs.Snapshot())
        {
            before[path] = bytes;
        }

        foreach (var linker in new[] { Linkers.HardLink, Linkers.Clone, Linkers.Dedupe })
        {
            var plan = LinkTree.Plan(groups, linker, KeepRule.PreferUnder(local.Root));
            Assert.Contains("different file systems", Assert.Single(plan.Actions).Refusal, StringComparison.Ordinal);
            var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);
            Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
            Assert.Equal(0, plan.ReclaimableBytes);
        }

        Assert.Null(new FileInfo(btrfs.PathOf("b.bin")).LinkTarget); // no silent fallback to a symbolic link
        LinkTree.AssertNoContentLost(before);
        btrfs.AssertNoTemporaryFiles();
    }

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Trash_on_another_mount_uses_the_top_directory_trash()
    {
        var mount = LinkTree.BtrfsMount!;
        using var tree = new LinkTree(mount);
        var content = TempTree.RandomBytes(30_000, 14);
        tree.Write("a.bin", content);
        var b = tree.Write("sub/b.bin", content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Trash);
        var own = Path.Combine(mount, ".Trash-0");
        var name = Path.GetFileName(tree.Root);

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.False(File.Exists(b));

        // Other runs may have left entries in the shared mount's trash (then this one is b.2.bin, …): find this test's
        // own by its Path=, which is relative to the top directory.
        var info = Directory.GetFiles(Path.Combine(own, "info"), "b*.bin.trashinfo")
            .Single(f => File.ReadAllText(f).Contains($"Path={name}/sub/b.bin\n", StringComparison.Ordinal));
        var trashed = Path.Combine(own, "files", Path.GetFileNameWithoutExtension(info));
        Assert.Equal(content, File.ReadAllBytes(trashed));
        File.Delete(trashed);
        File.Delete(info);
    }

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Trash_prefers_a_sticky_shared_trash_folder_and_ignores_one_without_the_sticky_bit()
    {
        var mount = LinkTree.BtrfsMount!;
        var shared = Path.Combine(mount, ".Trash");
        var own = Path.Combine(mount, ".Trash-0");
        using var tree = new LinkTree(mount);
        tree.Write("a.bin", TempTree.RandomBytes(30_000, 15));
        tree.Write("b.bin", TempTree.RandomBytes(30_000, 15));
        tree.Write("c.bin", TempTree.RandomBytes(30_000, 16));
        tree.Write("d.bin", TempTree.RandomBytes(30_000, 16));
        var groups = (await tree.ScanAsync()).OrderBy(g => g.Files[0].Path.Name, StringComparer.Ordinal).ToList();
        try
        {
            Directory.CreateDirectory(shared);
            TempTree.Run("chmod", "1777", shared);
            var first = await LinkTree.Plan([groups[0]], Linkers.Trash).ApplyAsync();
            Assert.Equal(DuplicateActionStatus.Done, Assert.Single(first.Outcomes).Status);
            Assert.True(File.Exists(Path.Combine(shared, "0", "files", "b.bin")));
            Assert.True(File.Exists(Path.Combine(shared, "0", "info", "b.bin.trashinfo")));

            TempTree.Run("chmod", "0777", shared); // no sticky bit: must not be used
            var second = await LinkTree.Plan([groups[1]], Linkers.Trash).ApplyAsync();
            Assert.Equal(DuplicateActionStatus.Done, Assert.Single(second.Outcomes).Status);
            Assert.False(File.Exists(Path.Combine(shared, "0", "files", "d.bin")));
            Assert.True(File.Exists(Path.Combine(own, "files", "d.bin")));
        }
        finally
        {
            Directory.Delete(shared, recursive: true);
            File.Delete(Path.Combine(own, "files", "d.bin"));
            File.Delete(Path.Combine(own, "info", "d.bin.trashinfo"));
        }
    }

    private static void AssertSharedExtents(string a, string b)
    {
        var ea = TestNative.Extents(a);
        var eb = TestNative.Extents(b);
        Assert.NotEmpty(ea);
        Assert.Equal(ea.Select(e => e.Physical), eb.Select(e => e.Physical));
        Assert.All(eb, e => Assert.True(e.Shared));
    }

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Clone_in_a_folder_swapped_for_a_link_after_the_last_check_redirects_nothing()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var moved = await FolderSwapTests.SwapAndApplyAsync(tree, Linkers.Clone);

        var clone = Path.Combine(moved, "x.bin");
        Assert.NotEqual(TestNative.Inode(tree.PathOf("keep/x.bin")), TestNative.Inode(clone));
        AssertSharedExtents(tree.PathOf("keep/x.bin"), clone);
    }

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Dedupe_in_a_folder_swapped_for_a_link_after_the_last_check_redirects_nothing()
    {
        // FIDEDUPERANGE works on the duplicate opened (relative to its folder) before the hook: nothing to redirect.
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var moved = await FolderSwapTests.SwapAndApplyAsync(tree, Linkers.Dedupe);

        AssertSharedExtents(tree.PathOf("keep/x.bin"), Path.Combine(moved, "x.bin"));
    }

    [FactRequiringFolder(Variable, Purpose)]
    public async Task Clone_of_a_duplicate_rewritten_with_its_modification_time_restored_is_skipped()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        var content = TempTree.RandomBytes(50_000, 13);
        tree.Write("a.bin", content);
        var b = tree.Write("b.bin", content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Clone);
        var changed = (byte[])content.Clone();
        changed[100] ^= 0xFF;
        plan.Faults = ChangeTimeTests.AfterVerification("clone", () => ChangeTimeTests.RewriteKeepingTime(b, changed));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("change time moved", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(changed, await File.ReadAllBytesAsync(b));
        tree.AssertNoTemporaryFiles();
    }

    private static long FreeBytes()
    {
        ProcessRunner.Run("btrfs", ["filesystem", "sync", LinkTree.BtrfsMount!]);

        return new DriveInfo(LinkTree.BtrfsMount!).AvailableFreeSpace;
    }
}
