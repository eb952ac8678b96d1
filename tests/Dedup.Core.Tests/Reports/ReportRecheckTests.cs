using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Reports;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;
using Xunit;

namespace Dedup.Core.Tests.Reports;

/// <summary>
/// The one way back from a saved report to a plan: <see cref="DuplicateReport.ReadAsync"/>, then
/// <see cref="DuplicateReportExtensions.RecheckGroups"/>, then plan on its groups. Each name is looked up again and kept only while
/// it is the reported file; owner, mode and link count come from the files as they are now; groups that cannot be acted
/// on from here are left out with their reason.
/// </summary>
public sealed class ReportRecheckTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(30_000, seed: 36);

    [LinuxFact]
    public async Task A_report_read_back_and_rechecked_is_planned_as_the_scan_was_without_the_file_changed_since()
    {
        using var tree = new TempTree();
        var a = tree.Write("a/x.bin", Content);
        var aLink = tree.HardLink("a/x.bin", "a/x-link.bin");
        var b = tree.Write("b/x.bin", Content);
        var c = tree.Write("c/x.bin", Content);
        var d = tree.Write("d/x.bin", Content);
        File.SetUnixFileMode(c, UnixFileMode.UserRead | UnixFileMode.UserWrite);
        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync();
        var found = new List<DuplicateGroup>();
        await foreach (var each in scan)
        {
            found.Add(each);
        }

        var scanned = Assert.Single(found);
        var json = Write(scanned, scan.Roots);
        File.SetLastWriteTimeUtc(d, File.GetLastWriteTimeUtc(d).AddSeconds(-5));

        using var stream = new MemoryStream(json);
        var report = await DuplicateReport.ReadAsync(stream);
        var groups = report.RecheckGroups(out var leftOut);

        Assert.Equal([$"{d}: modified since the report"], leftOut);
        var group = Assert.Single(groups);
        Assert.Equal(report.Roots, group.Roots);
        Assert.Equal(scan.Roots, group.Roots);
        var expected = scanned.Files.Where(f => f.Path.ToString() != d).ToArray();
        Assert.Equal(expected, group.Files);
        Assert.Equal(expected.Select(f => (f.OwnerId, f.GroupId, f.Mode)), group.Files.Select(f => (f.OwnerId, f.GroupId, f.Mode)));
        var linked = group.Files.Single(f => f.Identity.FileId == TestNative.Inode(a));
        Assert.Equal(2, linked.LinkCount);
        Assert.Equal([aLink, a], linked.OtherLinks.Prepend(linked.Path).Select(p => p.ToString()));

        // Hard links need one owner and mode: c (600) is no part of the 644 files' plan, as in the scan's plan.
        var plan = LinkTree.Plan(groups, Linkers.HardLink);
        var fromScan = LinkTree.Plan([scanned with { Files = expected }], Linkers.HardLink);
        Assert.Equal([b], plan.Actions.Where(x => x.Refusal is null).Select(x => x.Path.ToString()));
        Assert.Equal(fromScan.Actions.Select(x => (x.Path, x.Kept.Path, x.Refusal)), plan.Actions.Select(x => (x.Path, x.Kept.Path, x.Refusal)));
        Assert.Equal(1, (await plan.ApplyAsync()).Done);
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));
        Assert.NotEqual(TestNative.Inode(a), TestNative.Inode(c));
        Assert.Equal(Content, File.ReadAllBytes(d));
    }

    [Fact]
    public void Media_payload_groups_and_groups_across_machines_are_left_out_with_their_reasons()
    {
        var roots = new[] { new ScanRoot(AbsolutePath.Parse("/data"), new FileIdentity(8, 2)) };
        var time = new DateTime(2026, 4, 1, 0, 0, 0, DateTimeKind.Utc);
        var media = new DuplicateGroup(
            1000,
            [
                new DuplicateFile(AbsolutePath.Parse("/data/m/a.mp3"), [], new FileIdentity(9, 31), 1100, 1, time),
                new DuplicateFile(AbsolutePath.Parse("/data/m/b.mp3"), [], new FileIdentity(9, 32), 1300, 1, time),
                new DuplicateFile(AbsolutePath.Parse("/data/m/c.mp3"), [], new FileIdentity(9, 33), 1200, 1, time),
            ],
            verifiedByBytes: true,
            ContentMatch.MediaPayload) { Roots = roots };
        var acrossMachines = ResultsJsonTests.SampleGroup() with { Roots = [] };
        var report = new DuplicateReport(roots, [media, acrossMachines], []);

        var groups = report.RecheckGroups(out var leftOut);

        Assert.Empty(groups);
        Assert.Equal(
            [
                "a media-payload group (3 files): their bytes differ (tags or metadata), so neither replaces the other",
                $"a group across machines ({acrossMachines.Files.Count} files): files of other machines are not acted on",
            ],
            leftOut);
    }

    private static byte[] Write(DuplicateGroup group, IReadOnlyList<ScanRoot> roots)
    {
        using var stream = new MemoryStream();
        using (var writer = ReportWriter.CreateJson(stream))
        {
            writer.WriteGroup(group);
            writer.WriteRoots(roots);
            writer.WriteSummary(DuplicateScan.SummaryOf([group]));
            writer.Flush();
        }

        return stream.ToArray();
    }
}
