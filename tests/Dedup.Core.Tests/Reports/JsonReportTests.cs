using System.Text;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Reports;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Reports;

/// <summary>
/// The report format as library API: what <see cref="ReportWriter.CreateJson"/> writes,
/// <see cref="DuplicateReport.ReadAsync"/> reads back as the same groups (names that are not valid UTF-8 included),
/// and a malformed report is one <see cref="ReportFormatException"/> naming its first bad element.
/// </summary>
public sealed class JsonReportTests
{
    private static readonly ScanRoot[] Roots = [new(AbsolutePath.Parse("/data"), new FileIdentity(0x0000_0008_0000_0001, 2))];

    [Fact]
    public async Task Written_groups_read_back_equal_with_the_report_roots()
    {
        var acrossMachines = ResultsJsonTests.SampleGroup() with { Roots = [] };
        var wholeFile = new DuplicateGroup(
            7,
            [
                new DuplicateFile(AbsolutePath.Parse("/data/x/1.bin"), [AbsolutePath.Parse("/data/x/1-link.bin")], new FileIdentity(9, 21), 7, 2, new DateTime(2026, 3, 1, 0, 0, 0, DateTimeKind.Utc).AddTicks(9)),
                new DuplicateFile(ResultsJsonTests.NonUtf8, [ResultsJsonTests.NonUtf8.Parent!.Child("z\uDCE9")], new FileIdentity(9, 22), 7, 2, new DateTime(2026, 3, 2, 0, 0, 0, DateTimeKind.Utc)) { LastChangeTimeUtc = new DateTime(2026, 3, 3, 0, 0, 0, DateTimeKind.Utc) },
            ],
            verifiedByBytes: true) { Roots = Roots };
        var media = new DuplicateGroup(
            1000,
            [
                new DuplicateFile(AbsolutePath.Parse("/data/m/a.mp3"), [], new FileIdentity(9, 31), 1100, 1, new DateTime(2026, 4, 1, 0, 0, 0, DateTimeKind.Utc)),
                new DuplicateFile(AbsolutePath.Parse("/data/m/b.mp3"), [], new FileIdentity(9, 32), 1300, 1, new DateTime(2026, 4, 1, 0, 0, 0, DateTimeKind.Utc)),
            ],
            verifiedByBytes: true,
            ContentMatch.MediaPayload) { Roots = Roots };
        DuplicateGroup[] groups = [wholeFile, media, acrossMachines];

        var report = await ReadAsync(Write(groups, Roots));

        Assert.Equal(Roots, report.Roots);
        Assert.Equal(groups, report.Groups);
    }

    [Fact]
    public async Task Folder_groups_read_back_with_their_folders_totals_and_differences()
    {
        var exact = new DuplicateFolderGroup([AbsolutePath.Parse("/data/a"), ResultsJsonTests.NonUtf8.Parent!], 3, 300, verifiedByBytes: true);
        var partial = new DuplicateFolderGroup(
            [AbsolutePath.Parse("/data/p"), AbsolutePath.Parse("/data/q")],
            2,
            20,
            verifiedByBytes: false,
            [new FolderDifference("x/only.txt", FolderDifferenceKind.OnlyInFirst), new FolderDifference("y", FolderDifferenceKind.OnlyInSecond), new FolderDifference("z", FolderDifferenceKind.Changed), new FolderDifference("w", FolderDifferenceKind.Unknown)]);

        var report = await ReadAsync(Write([], Roots, [exact, partial]));

        Assert.Equal(2, report.FolderGroups.Count);
        foreach (var (written, read) in new[] { exact, partial }.Zip(report.FolderGroups))
        {
            Assert.Equal(written.Folders, read.Folders);
            Assert.Equal((written.Files, written.Bytes, written.WastedBytes, written.VerifiedByBytes), (read.Files, read.Bytes, read.WastedBytes, read.VerifiedByBytes));
            Assert.Equal(written.Differences, read.Differences);
        }
    }

    [Fact]
    public async Task An_exact_folder_group_reads_back_the_wasted_bytes_the_scan_wrote()
    {
        // A scan counts a file hard-linked into the kept folder as freeing nothing: less than Bytes × (Folders.Count − 1).
        var report = await ReadAsync(Encoding.UTF8.GetBytes("{\"groups\":[],\"roots\":[],\"folderGroups\":[{\"folders\":[{\"path\":\"/a\"},{\"path\":\"/b\"}],\"files\":2,\"bytes\":300,\"wastedBytes\":7}]}"));

        Assert.Equal(7, Assert.Single(report.FolderGroups).WastedBytes);
    }

    [Fact]
    public async Task A_report_without_folder_groups_reads_back_none()
    {
        var report = await ReadAsync(Write([], Roots));

        Assert.Empty(report.FolderGroups);
        Assert.Empty(report.Groups);
    }

    [LinuxFact]
    public async Task A_scanned_tree_with_names_that_are_not_UTF8_reads_back_as_the_scan_found_it()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(4096, seed: 36);
        var root = Encoding.UTF8.GetBytes(tree.Root);
        ExactNames.CreateFolder([.. root, .. "/caf"u8, 0xE9]);
        ExactNames.WriteFile([.. root, .. "/caf"u8, 0xE9, .. "/r"u8, 0xE9, .. "sum"u8, 0xFF, .. ".bin"u8], content);
        tree.Write("plain.bin", content);
        tree.HardLink("plain.bin", "plain-link.bin");
        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync();
        var groups = new List<DuplicateGroup>();
        await foreach (var group in scan)
        {
            groups.Add(group);
        }

        var report = await ReadAsync(Write(groups, scan.Roots));

        var only = Assert.Single(report.Groups);
        Assert.Contains(only.Files, f => KernelNames.HasEscapedBytes(f.Path.ToString()));
        Assert.Contains(only.Files, f => f.OtherLinks.Count == 1);
        Assert.Equal(scan.Roots, report.Roots);
        Assert.Equal(groups, report.Groups);
    }

    [Theory]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[" + File1 + ",{\"path\":\"/data/b\",\"device\":1}]}],\"roots\":[]}", "groups[0].files[1] has no \"inode\"", "groups[0].files[1]")]
    [InlineData("{\"groups\":[],\"roots\":[{\"path\":\"data\",\"device\":1,\"inode\":2}]}", "roots[0].path is not an absolute path", "roots[0].path")]
    [InlineData("{\"groups\":[{\"size\":-1,\"files\":[]}],\"roots\":[]}", "groups[0].size is not a non-negative integer", "groups[0]")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[" + File1 + "],\"digest\":\"xyz\"}],\"roots\":[]}", "groups[0].digest is not a SHA-256 in hexadecimal", "groups[0].digest")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[" + File1 + "],\"verifiedByBytes\":0}],\"roots\":[]}", "groups[0].verifiedByBytes is not true or false", "groups[0]")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[{\"path\":\"/data/a\",\"pathBytes\":\"L2RhdGEveP8=\",\"device\":1,\"inode\":2}]}],\"roots\":[]}", "groups[0].files[0].path does not match its bytes", "groups[0].files[0].path")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[" + File1 + "],\"match\":\"mediaPayload\"}],\"roots\":[]}", "groups[0].files[0] has no \"size\"", "groups[0].files[0]")]
    [InlineData("{\"groups\":[],\"roots\":[],\"folderGroups\":[{\"folders\":[],\"files\":1,\"bytes\":1,\"wastedBytes\":0,\"differences\":[{\"path\":\"a\",\"kind\":\"changed\"},{\"path\":\"a\",\"kind\":\"moved\"}]}]}", "folderGroups[0].differences[1].kind is not onlyInFirst, onlyInSecond, changed or unknown", "folderGroups[0].differences[1]")]
    [InlineData("{\"groups\":[],\"roots\":[],\"folderGroups\":[{\"folders\":[{\"path\":\"/a\"}],\"files\":1,\"bytes\":1}]}", "folderGroups[0] has no \"wastedBytes\"", "folderGroups[0]")]
    [InlineData("{\"groups\":[],\"roots\":[],\"folderGroups\":{}}", "folderGroups is not an array", "folderGroups")]
    [InlineData("{\"groups\":[],\"roots\":[{\"path\":\"/a\",\"device\":1,\"inode\":2},{\"path\":\"/b\",\"device\":1}]}", "roots[1] has no \"inode\"", "roots[1]")]
    [InlineData("{\"groups\":[],\"roots\":{}}", "The report records no \"roots\" and file identities (written by an older dedup?); run 'dedup find --format json' again", null)]
    [InlineData("{\"groups\":[],\"roots\":[{\"path\":\"/a//b\",\"device\":1,\"inode\":2}]}", "roots[0].path is not a normalized path", "roots[0].path")]
    [InlineData("{\"groups\":[1],\"roots\":[]}", "groups[0] is not an object", "groups[0]")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":{}}],\"roots\":[]}", "groups[0].files is not an array", "groups[0]")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[" + File1 + "," + File2 + "]},{\"size\":1}],\"roots\":[]}", "groups[1] has no \"files\"", "groups[1]")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[" + File1 + ",5]}],\"roots\":[]}", "groups[0].files[1] is not an object", "groups[0].files[1]")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[{\"path\":\"/data/a\",\"device\":1,\"inode\":2}]}],\"roots\":[]}", "groups[0].files[0] has no \"mtime\"", "groups[0].files[0]")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[{\"path\":\"/data/a\",\"device\":1,\"inode\":2,\"mtime\":\"2026-01-31T12:00:00.0000000Z\",\"machine\":1}]}],\"roots\":[]}", "groups[0].files[0].machine is not a string", "groups[0].files[0]")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[{\"path\":\"/data/a\",\"device\":1,\"inode\":2,\"mtime\":\"2026-01-31T12:00:00.0000000Z\",\"links\":\"/data/b\"}]}],\"roots\":[]}", "groups[0].files[0].links is not an array", "groups[0].files[0]")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[{\"path\":\"/data/a\",\"device\":1,\"inode\":2,\"mtime\":\"2026-01-31T12:00:00.0000000Z\",\"links\":[\"/data/b\"],\"linksBytes\":[]}]}],\"roots\":[]}", "groups[0].files[0].linksBytes is not an array as long as groups[0].files[0].links", "groups[0].files[0]")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[{\"path\":\"/data/a\",\"device\":1,\"inode\":2,\"mtime\":\"2026-01-31T12:00:00.0000000Z\",\"links\":[\"/data/b\"],\"linksBytes\":{}}]}],\"roots\":[]}", "groups[0].files[0].linksBytes is not an array as long as groups[0].files[0].links", "groups[0].files[0]")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[" + File1 + "," + File2 + "],\"digest\":5}],\"roots\":[]}", "groups[0].digest is not a SHA-256 in hexadecimal", "groups[0].digest")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[" + File1 + "," + File2 + "],\"digest\":\"ab\"}],\"roots\":[]}", "groups[0].digest is not a SHA-256 in hexadecimal", "groups[0].digest")]
    [InlineData("{\"groups\":[],\"roots\":[{\"path\":\"/a\",\"pathBytes\":5,\"device\":1,\"inode\":2}]}", "roots[0].path: its bytes are not base64", "roots[0].path")]
    [InlineData("{\"groups\":[],\"roots\":[{\"path\":\"\\uFFFD/a\",\"pathBytes\":\"AC9h\",\"device\":1,\"inode\":2}]}", "roots[0].path: its bytes hold a NUL", "roots[0].path")]
    [InlineData("{\"groups\":[],\"roots\":[],\"folderGroups\":[" + FolderGroup + ",{\"folders\":[{\"path\":\"/a\"},{\"path\":\"b\"}],\"files\":1,\"bytes\":1,\"wastedBytes\":0}]}", "folderGroups[1].folders[1].path is not an absolute path", "folderGroups[1].folders[1].path")]
    [InlineData("{\"groups\":[],\"roots\":[],\"folderGroups\":[{\"folders\":[],\"files\":1,\"bytes\":1,\"wastedBytes\":0,\"differences\":[{\"path\":\"a\",\"kind\":\"changed\"},{\"path\":1,\"kind\":\"changed\"}]}]}", "folderGroups[0].differences[1].path is not a string", "folderGroups[0].differences[1]")]
    [InlineData("{\"groups\":[],\"roots\":[],\"folderGroups\":[{\"folders\":[],\"files\":1,\"bytes\":1,\"wastedBytes\":0,\"differences\":[{\"path\":\"a\",\"kind\":1}]}]}", "folderGroups[0].differences[0].kind is not a string", "folderGroups[0].differences[0]")]
    [InlineData("{\"groups\":[],\"roots\":[{\"path\":5,\"device\":1,\"inode\":2}]}", "roots[0].path is not an absolute path", "roots[0].path")]
    [InlineData("{\"groups\":[],\"roots\":[{\"path\":\"/a\",\"device\":-1,\"inode\":2}]}", "roots[0].device is not a non-negative integer", "roots[0]")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[{\"path\":\"/data/a\",\"device\":1,\"inode\":2,\"mtime\":\"2026-01-31 12:00\"}]}],\"roots\":[]}", "groups[0].files[0].mtime is not a UTC time in round-trip format (such as 2026-01-31T12:00:00.1234567Z)", "groups[0].files[0]")]
    [InlineData("{\"groups\":[{\"size\":1,\"files\":[],\"digest\":\"zz00000000000000000000000000000000000000000000000000000000000000\"}],\"roots\":[]}", "groups[0].digest is not a SHA-256 in hexadecimal", "groups[0].digest")]
    [InlineData("{\"roots\":[]}", "The report is not a 'dedup find --format json' report (no \"groups\" array)", null)]
    [InlineData("{\"groups\":[]}", "The report records no \"roots\" and file identities (written by an older dedup?); run 'dedup find --format json' again", null)]
    public async Task A_malformed_report_names_its_first_bad_element(string json, string message, string? element)
    {
        var error = await Assert.ThrowsAsync<ReportFormatException>(() => ReadAsync(Encoding.UTF8.GetBytes(json)));

        Assert.Equal(message, error.Message);
        Assert.Equal(element, error.Element);
    }

    [Fact]
    public async Task A_report_that_is_not_JSON_says_so_with_the_parser_s_reason()
    {
        var error = await Assert.ThrowsAsync<ReportFormatException>(() => ReadAsync("{\"groups\":["u8.ToArray()));

        Assert.StartsWith("The report is not valid JSON: ", error.Message, StringComparison.Ordinal);
        Assert.Null(error.Element);
        Assert.IsAssignableFrom<System.Text.Json.JsonException>(error.InnerException);
    }

    [Fact]
    public async Task A_group_left_with_one_file_is_left_out()
    {
        var report = await ReadAsync(Encoding.UTF8.GetBytes("{\"groups\":[{\"size\":1,\"files\":[" + File1 + "]}],\"roots\":[]}"));

        Assert.Empty(report.Groups);
    }

    private const string File2 = "{\"path\":\"/data/b\",\"device\":1,\"inode\":3,\"mtime\":\"2026-01-31T12:00:00.0000000Z\"}";

    private const string FolderGroup = "{\"folders\":[{\"path\":\"/a\"},{\"path\":\"/b\"}],\"files\":1,\"bytes\":1,\"wastedBytes\":0}";

    private const string File1 = "{\"path\":\"/data/a\",\"device\":1,\"inode\":2,\"mtime\":\"2026-01-31T12:00:00.0000000Z\"}";

    private static byte[] Write(IReadOnlyList<DuplicateGroup> groups, IReadOnlyList<ScanRoot> roots, IReadOnlyList<DuplicateFolderGroup>? folderGroups = null)
    {
        using var stream = new MemoryStream();
        using (var writer = ReportWriter.CreateJson(stream))
        {
            foreach (var folderGroup in folderGroups ?? [])
            {
                writer.WriteFolderGroup(folderGroup);
            }

            foreach (var group in groups)
            {
                writer.WriteGroup(group);
            }

            writer.WriteRoots(roots);
            writer.WriteSummary(DuplicateScan.SummaryOf(groups));
            writer.Flush();
        }

        return stream.ToArray();
    }

    private static async Task<DuplicateReport> ReadAsync(byte[] json)
    {
        using var stream = new MemoryStream(json);
        return await DuplicateReport.ReadAsync(stream);
    }
}
