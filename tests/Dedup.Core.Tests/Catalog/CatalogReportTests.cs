using System.Security.Cryptography;
using System.Text;
using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Reports;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// A group across machines in a saved report (#40): which files were compared here is kept, and acting from the report
/// acts on those alone; a report written before that was kept acts on none of a group across machines.
/// </summary>
public sealed class CatalogReportTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, seed: 40);

    [LinuxFact]
    public async Task A_joined_group_reads_back_equal_and_acting_from_it_touches_only_the_files_compared_here()
    {
        using var tree = new TempTree();
        tree.Write("a/x.bin", Content);
        tree.Write("b/x.bin", Content);
        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync();
        var found = new List<DuplicateGroup>();
        await foreach (var each in scan)
        {
            found.Add(each);
        }

        var local = Assert.Single(found);
        var remote = new DuplicateFile(AbsolutePath.Parse(tree.PathOf("c/x.bin")), [], new FileIdentity(77, 5), Content.Length, 1, new DateTime(2026, 11, 1, 0, 0, 0, DateTimeKind.Utc))
        {
            Machine = "alpha", // a path under this scan's root on another machine: never this machine's file
            MatchedBySha256 = true,
        };
        var joined = local with
        {
            Files = [.. local.Files.Select(f => f with { Machine = "beta" }), remote],
            Sha256 = SHA256.HashData(Content),
        };

        var report = await ReadAsync(Write(joined, scan.Roots));

        var read = Assert.Single(report.Groups);
        Assert.Equal(joined, read);
        Assert.Equal([false, false, true], read.Files.Select(f => f.MatchedBySha256));
        var groups = report.RecheckGroups(out var leftOut);
        Assert.Empty(leftOut);
        var rechecked = Assert.Single(groups);
        Assert.Equal(local.Files.Select(f => f.Path), rechecked.Files.Select(f => f.Path));
        Assert.True(rechecked.Sha256.IsEmpty);
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().Plan(groups);
        var action = Assert.Single(plan.Actions);
        Assert.Null(action.Refusal);
        Assert.DoesNotContain(plan.Actions, a => a.Path.ToString() == tree.PathOf("c/x.bin"));
    }

    [Fact]
    public async Task A_group_across_machines_from_a_report_without_the_flag_is_left_out_whole()
    {
        // Written before sha256Only: this machine's compared files were then in a group of their own as well.
        const string File1 = "{\"path\":\"/data/a.bin\",\"machine\":\"beta\",\"device\":9,\"inode\":1,\"mtime\":\"2026-01-01T00:00:00.0000000Z\"}";
        const string File2 = "{\"path\":\"/data/b.bin\",\"machine\":\"beta\",\"device\":9,\"inode\":2,\"mtime\":\"2026-01-01T00:00:00.0000000Z\"}";
        const string File3 = "{\"path\":\"/data/c.bin\",\"machine\":\"alpha\",\"device\":9,\"inode\":3,\"mtime\":\"2026-01-01T00:00:00.0000000Z\"}";
        var digest = Convert.ToHexStringLower(SHA256.HashData(Content));
        var json = $"{{\"groups\":[{{\"size\":{Content.Length},\"files\":[{File1},{File2},{File3}],\"verifiedByBytes\":false,\"digest\":\"{digest}\"}}],\"roots\":[{{\"path\":\"/data\",\"device\":9,\"inode\":100}}]}}";

        var report = await ReadAsync(Encoding.UTF8.GetBytes(json));

        var group = Assert.Single(report.Groups);
        Assert.All(group.Files, file => Assert.True(file.MatchedBySha256));
        Assert.Empty(group.Roots);
        Assert.Empty(report.RecheckGroups(out var leftOut));
        Assert.Equal(["a group across machines (3 files): files of other machines are not acted on"], leftOut);
        Assert.Empty(new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().Plan(report.Groups).Actions);
    }

    [Fact]
    public async Task Compared_files_of_two_machines_are_not_acted_on_and_a_flag_that_is_no_boolean_is_refused()
    {
        var digest = Convert.ToHexStringLower(SHA256.HashData(Content));
        string Report(string flag1, string flag2) =>
            $"{{\"groups\":[{{\"size\":{Content.Length},\"files\":["
            + $"{{\"path\":\"/data/a.bin\",\"machine\":\"beta\",\"device\":9,\"inode\":1,\"mtime\":\"2026-01-01T00:00:00.0000000Z\",\"sha256Only\":{flag1}}},"
            + $"{{\"path\":\"/data/b.bin\",\"machine\":\"alpha\",\"device\":9,\"inode\":2,\"mtime\":\"2026-01-01T00:00:00.0000000Z\",\"sha256Only\":{flag2}}}"
            + $"],\"digest\":\"{digest}\"}}],\"roots\":[{{\"path\":\"/data\",\"device\":9,\"inode\":100}}]}}";

        // A hand-edited report: files of two machines both said to be compared here. Neither is acted on.
        var report = await ReadAsync(Encoding.UTF8.GetBytes(Report("false", "false")));
        Assert.Empty(Assert.Single(report.Groups).Roots);
        Assert.Empty(report.RecheckGroups(out var leftOut));
        Assert.Single(leftOut);
        Assert.Empty(new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().Plan(report.Groups).Actions);

        var error = await Assert.ThrowsAsync<ReportFormatException>(() => ReadAsync(Encoding.UTF8.GetBytes(Report("\"yes\"", "true"))));
        Assert.Contains("sha256Only is not true or false", error.Message, StringComparison.Ordinal);
    }

    private static async Task<DuplicateReport> ReadAsync(byte[] json)
    {
        using var stream = new MemoryStream(json);
        return await DuplicateReport.ReadAsync(stream);
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
