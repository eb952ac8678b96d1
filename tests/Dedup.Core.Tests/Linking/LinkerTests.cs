using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>Each linker on the machine's own file system (hard links, symbolic links, delete, trash).</summary>
public sealed class LinkerTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(100_000, 1);

    [LinuxFact]
    public async Task Hard_link_replaces_the_duplicate_and_reclaims_its_size()
    {
        using var tree = new LinkTree();
        var a = tree.Write("a/file.bin", Content);
        var b = tree.Write("b/file.bin", Content);
        var before = tree.Snapshot();
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink);

        Assert.Single(plan.Actions);
        Assert.Equal(Content.Length, plan.ReclaimableBytes);
        var report = await plan.ApplyAsync();

        Assert.Equal(DuplicateActionStatus.Done, Assert.Single(report.Outcomes).Status);
        Assert.Equal(Content.Length, report.ReclaimedBytes);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));
        LinkTree.AssertNoContentLost(before);
        tree.AssertNoTemporaryFiles();
    }

    [LinuxFact]
    public async Task Names_already_linked_to_the_kept_file_reclaim_nothing_and_extra_links_outside_the_scan_keep_the_data()
    {
        using var tree = new LinkTree();
        tree.Write("scan/a.bin", Content);
        File.CreateSymbolicLink(tree.PathOf("unused"), "x"); // noise
        TempTree.Run("ln", tree.PathOf("scan/a.bin"), tree.PathOf("scan/a-link.bin"));
        tree.Write("scan/b.bin", Content);
        TempTree.Run("ln", tree.PathOf("scan/b.bin"), tree.PathOf("outside.bin")); // a name the scan does not see
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("scan")), Linkers.HardLink, KeepRule.PreferPrefix(tree.PathOf("scan/a")));

        var action = Assert.Single(plan.Actions);
        Assert.Equal(tree.PathOf("scan/b.bin"), action.Path.ToString());
        Assert.Equal(0, action.ReclaimableBytes);
        var report = await plan.ApplyAsync();
        Assert.Equal(DuplicateActionStatus.Done, report.Outcomes[0].Status);
        Assert.Equal(0, report.ReclaimedBytes);
        Assert.Equal(Content, File.ReadAllBytes(tree.PathOf("outside.bin")));
    }

    [LinuxFact]
    public async Task Every_name_of_a_duplicate_is_replaced_and_the_bytes_count_once()
    {
        using var tree = new LinkTree();
        var kept = tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        TempTree.Run("ln", tree.PathOf("b.bin"), tree.PathOf("b2.bin"));
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink);

        Assert.Equal(2, plan.Actions.Count);
        Assert.Equal(Content.Length, plan.ReclaimableBytes);
        var report = await plan.ApplyAsync();
        Assert.Equal(2, report.Done);
        Assert.Equal(Content.Length, report.ReclaimedBytes);
        Assert.Equal(TestNative.Inode(kept), TestNative.Inode(tree.PathOf("b2.bin")));
    }

    [LinuxFact]
    public async Task Dry_run_lists_every_operation_and_touches_nothing()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        tree.Write("c.bin", Content);
        var before = tree.Snapshot();
        var inodes = before.Keys.ToDictionary(p => p, TestNative.Inode);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Delete);
        var text = new StringWriter();
        plan.WriteTo(text);

        Assert.Contains("keep " + tree.PathOf("a.bin"), text.ToString(), StringComparison.Ordinal);
        Assert.Contains("delete " + tree.PathOf("b.bin"), text.ToString(), StringComparison.Ordinal);
        Assert.Contains("delete " + tree.PathOf("c.bin"), text.ToString(), StringComparison.Ordinal);
        Assert.Contains($"2 actions, {Dedup.Core.Reporting.ByteCount.Format(2 * Content.Length)} ({2 * Content.Length} bytes) to reclaim", text.ToString(), StringComparison.Ordinal);
        Assert.All(inodes, pair => Assert.Equal(pair.Value, TestNative.Inode(pair.Key)));
        LinkTree.AssertNoContentLost(before);
    }

    [LinuxFact]
    public async Task Dry_run_of_links_notes_once_that_they_give_the_kept_files_metadata()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        tree.Write("c.bin", Content);
        var groups = await tree.ScanAsync();

        foreach (var (linker, note) in new[]
        {
            (Linkers.HardLink, "note: hard links give each duplicate name the kept file's modification time, permissions and extended attributes"),
            (Linkers.SymbolicLink(), "note: symbolic links show the kept file's modification time, permissions and extended attributes under each duplicate name"),
        })
        {
            var text = new StringWriter();
            LinkTree.Plan(groups, linker).WriteTo(text);
            Assert.Single(text.ToString().Split('\n'), line => line == note);
        }

        var clone = new StringWriter();
        LinkTree.Plan(groups, Linkers.Clone).WriteTo(clone);
        Assert.DoesNotContain("note:", clone.ToString(), StringComparison.Ordinal);
    }

    [LinuxFact]
    public async Task Relative_symbolic_link_points_to_the_kept_file()
    {
        using var tree = new LinkTree();
        tree.Write("keep/a.bin", Content);
        var b = tree.Write("other/deep/b.bin", Content);
        var before = tree.Snapshot();
        var report = await LinkTree.Plan(await tree.ScanAsync(), Linkers.SymbolicLink()).ApplyAsync();

        Assert.Equal(DuplicateActionStatus.Done, report.Outcomes[0].Status);
        Assert.Equal("../../keep/a.bin", new FileInfo(b).LinkTarget);
        LinkTree.AssertNoContentLost(before);
        tree.AssertNoTemporaryFiles();
    }

    [LinuxFact]
    public async Task Absolute_symbolic_link_points_to_the_kept_file()
    {
        using var tree = new LinkTree();
        var a = tree.Write("keep/a.bin", Content);
        var b = tree.Write("other/b.bin", Content);
        var report = await LinkTree.Plan(await tree.ScanAsync(), Linkers.SymbolicLink(relative: false)).ApplyAsync();

        Assert.Equal(DuplicateActionStatus.Done, report.Outcomes[0].Status);
        Assert.Equal(a, new FileInfo(b).LinkTarget);
        Assert.Equal(Content, File.ReadAllBytes(b));
    }

    [LinuxFact]
    public async Task Delete_removes_the_verified_duplicate_only()
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var before = tree.Snapshot();
        var report = await LinkTree.Plan(await tree.ScanAsync(), Linkers.Delete).ApplyAsync();

        Assert.Equal(DuplicateActionStatus.Done, report.Outcomes[0].Status);
        Assert.True(File.Exists(a));
        Assert.False(File.Exists(b));
        Assert.Equal(Content.Length, report.ReclaimedBytes);
        LinkTree.AssertNoContentLost(before);
    }

    // Only meaningful where the temp folder cannot clone; btrfs clones are tested in BtrfsTests.
    [LinuxFact(TempFileSystem = "ext4")]
    public async Task Clone_on_a_file_system_without_reflinks_is_refused_without_a_fallback()
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var report = await LinkTree.Plan(await tree.ScanAsync(), Linkers.Clone).ApplyAsync();

        var outcome = Assert.Single(report.Outcomes);
        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("cannot clone", outcome.Reason, StringComparison.Ordinal);
        Assert.NotEqual(TestNative.Inode(a), TestNative.Inode(b));
        Assert.Null(new FileInfo(b).LinkTarget);
        tree.AssertNoTemporaryFiles();
    }

    [LinuxFact(TempFileSystem = "ext4")]
    public async Task Dedupe_on_a_file_system_without_it_is_refused()
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var inodes = (TestNative.Inode(a), TestNative.Inode(b));
        var report = await LinkTree.Plan(await tree.ScanAsync(), Linkers.Dedupe).ApplyAsync();

        // ext4 has no FIDEDUPERANGE: a refusal (skip), not an I/O failure, and both files exactly as they were.
        var outcome = Assert.Single(report.Outcomes);
        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.StartsWith("the file system cannot dedupe this file (FIDEDUPERANGE: ", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(Content, File.ReadAllBytes(a));
        Assert.Equal(Content, File.ReadAllBytes(b));
        Assert.Equal(inodes, (TestNative.Inode(a), TestNative.Inode(b)));
        Assert.Null(new FileInfo(b).LinkTarget);
    }

    [LinuxFact]
    public async Task Reported_files_rebuild_a_group_from_the_files_that_still_are_the_reported_ones()
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        TempTree.Run("ln", b, tree.PathOf("b-link.bin"));
        var shorter = tree.Write("c.bin", Content.AsSpan(0, 10).ToArray());
        var replaced = tree.Write("d.bin", Content);
        var reportedD = Reported(replaced);
        File.Move(replaced, tree.PathOf("d.old")); // kept alive so its inode cannot be reused
        tree.Write("d.bin", Content); // same name and bytes, another file: not the one reported

        var roots = new[] { ScanRoot.Capture(AbsolutePath.Parse(tree.Root)) };
        ReportedFile[] files = [Reported(a), Reported(b), Reported(tree.PathOf("b-link.bin")), Reported(shorter), reportedD, Reported(a, "/elsewhere/a.bin")];
        var group = ReportedDuplicates.FromReport(roots, Content.Length, files, out var problems);

        Assert.NotNull(group);
        Assert.Equal(2, group.Files.Count);
        Assert.Equal(tree.PathOf("b.bin"), Assert.Single(group.Files[1].OtherLinks).ToString()); // "b-link" sorts first
        Assert.True(problems.Count == 3, string.Join("\n", problems));
        Assert.Contains(problems, p => p.Contains("c.bin: size is now 10", StringComparison.Ordinal));
        Assert.Contains(problems, p => p.Contains("d.bin: is now another file", StringComparison.Ordinal));
        Assert.Contains(problems, p => p.Contains("/elsewhere/a.bin: is not under any scanned root", StringComparison.Ordinal));
        var report = await LinkTree.Plan([group], Linkers.HardLink).ApplyAsync();
        Assert.Equal(2, report.Done);
        Assert.Equal(Content.Length, report.ReclaimedBytes);
    }

    [LinuxFact]
    public void A_reported_file_whose_change_time_moved_is_left_out()
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var reported = Reported(b);
        Thread.Sleep(20);
        TempTree.Run("chmod", "u+x", b); // permissions changed and put back: only the change time moved
        TempTree.Run("chmod", "u-x", b);

        var group = ReportedDuplicates.FromReport([ScanRoot.Capture(AbsolutePath.Parse(tree.Root))], Content.Length, [Reported(a), reported], out var problems);

        Assert.Null(group);
        Assert.Contains("change time moved", Assert.Single(problems), StringComparison.Ordinal);
    }

    [LinuxFact]
    public void A_reported_group_carries_the_reported_times_its_roots_and_no_byte_verification()
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        ScanRoot[] roots = [ScanRoot.Capture(AbsolutePath.Parse(tree.Root))];
        var reportedB = Reported(b);

        var group = ReportedDuplicates.FromReport(roots, Content.Length, [Reported(a), reportedB, new ReportedFile(AbsolutePath.Parse(a), reportedB.Identity, 7, reportedB.LastWriteTimeUtc, default)], out var problems);

        Assert.NotNull(group);
        Assert.False(group.VerifiedByBytes);
        Assert.Same(roots, group.Roots);
        Assert.Equal(reportedB.LastChangeTimeUtc, group.Files.Single(f => f.Path.ToString() == b).LastChangeTimeUtc);
        Assert.Empty(problems); // a name listed twice is looked up once

        var wrongLength = ReportedDuplicates.FromReport(roots, Content.Length, [Reported(a), new ReportedFile(AbsolutePath.Parse(b), reportedB.Identity, 7, reportedB.LastWriteTimeUtc, default)], out problems);
        Assert.Null(wrongLength);
        Assert.Contains("the report says", Assert.Single(problems), StringComparison.Ordinal);
        Assert.Throws<ArgumentNullException>(() => ReportedDuplicates.FromReport(null!, 1, [], out _));
        Assert.Throws<ArgumentNullException>(() => ReportedDuplicates.FromReport(roots, 1, null!, out _));
        Assert.Throws<ArgumentNullException>(() => ReportedDuplicates.FromReport(roots, 1, [null!], out _));
        Assert.Throws<ArgumentNullException>(() => new ReportedFile(null!, default, 1, default, default));
        Assert.Throws<ArgumentNullException>(() => new ScanRoot(null!, default));
    }

    /// <summary>The file as a report made now would list it (under <paramref name="name"/> when given).</summary>
    private static ReportedFile Reported(string path, string? name = null)
    {
        Assert.Equal(0, Libc.LStat(path, out var status));
        return new ReportedFile(AbsolutePath.Parse(name ?? path), new FileIdentity(status.Device, status.Ino), (long)status.Size, status.LastWriteTimeUtc, status.ChangeTimeUtc);
    }
}
