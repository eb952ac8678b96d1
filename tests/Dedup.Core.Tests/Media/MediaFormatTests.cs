using System.Text;
using Dedup.Core.Enumeration;
using Dedup.Core.Media;
using Dedup.Core.Paths;
using Dedup.Core.Reports;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Media;

/// <summary><see cref="DuplicateGroup.MediaFormat"/> (#36 point 9): which container a payload match rests on, in results and in JSON reports.</summary>
public sealed class MediaFormatTests
{
    private static readonly ScanRoot[] Roots = [new(AbsolutePath.Parse("/data"), new FileIdentity(8, 2))];

    [Fact]
    public async Task Each_payload_group_names_its_format_and_whole_file_groups_none()
    {
        using var tree = new TempTree();
        var expected = new Dictionary<string, MediaFormat>();
        foreach (var fixture in MediaTestSupport.AllFixtures.DistinctBy(f => f.Format))
        {
            var name = MediaTestSupport.Name(fixture);
            var seen = new HashSet<string>();
            var index = 0;
            foreach (var (_, bytes) in fixture.Variants(seed: 21))
            {
                if (seen.Add(Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(bytes))))
                {
                    tree.Write($"{name}/variant{index++}.bin", bytes);
                }
            }

            expected[tree.PathOf(name)] = fixture.Format;
        }

        var copy = TempTree.RandomBytes(3000, 22);
        tree.Write("plain/a.bin", copy);
        tree.Write("plain/b.bin", copy);

        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode());

        var payload = groups.Where(g => g.Match == ContentMatch.MediaPayload).ToList();
        Assert.Equal(expected.Count, payload.Count);
        Assert.All(payload, g => Assert.Equal(expected[Path.GetDirectoryName(g.Files[0].Path.ToString())!], g.MediaFormat));
        Assert.Null(Assert.Single(groups, g => g.Match == ContentMatch.WholeFile && g.Files[0].Path.ToString().Contains("plain", StringComparison.Ordinal)).MediaFormat);
    }

    [Fact]
    public async Task The_json_report_writes_a_payload_group_s_format_and_reads_it_back()
    {
        var wholeFile = Group(ContentMatch.WholeFile, null);
        var flac = Group(ContentMatch.MediaPayload, MediaFormat.Flac);
        var webp = Group(ContentMatch.MediaPayload, MediaFormat.WebP);

        var json = Write([wholeFile, flac, webp]);
        var text = Encoding.UTF8.GetString(json);
        var report = await DuplicateReport.ReadAsync(new MemoryStream(json));

        Assert.Contains("\"match\":\"mediaPayload\",\"format\":\"flac\"", text, StringComparison.Ordinal);
        Assert.Contains("\"format\":\"webp\"", text, StringComparison.Ordinal);
        Assert.Equal(2, text.Split("\"format\"").Length - 1); // the whole-file group has none
        Assert.Equal([wholeFile, flac, webp], report.Groups);
        Assert.Equal([null, MediaFormat.Flac, MediaFormat.WebP], report.Groups.Select(g => g.MediaFormat));
    }

    [Fact]
    public async Task A_payload_group_without_a_format_reads_back_with_none_and_an_unknown_one_is_refused()
    {
        const string File1 = "{\"path\":\"/data/a\",\"device\":1,\"inode\":2,\"mtime\":\"2026-01-31T12:00:00.0000000Z\",\"size\":5}";
        const string File2 = "{\"path\":\"/data/b\",\"device\":1,\"inode\":3,\"mtime\":\"2026-01-31T12:00:00.0000000Z\",\"size\":6}";
        var older = $"{{\"groups\":[{{\"size\":1,\"files\":[{File1},{File2}],\"match\":\"mediaPayload\"}}],\"roots\":[]}}";
        var unknown = $"{{\"groups\":[{{\"size\":1,\"files\":[{File1},{File2}],\"match\":\"mediaPayload\",\"format\":\"ogg\"}}],\"roots\":[]}}";

        var report = await DuplicateReport.ReadAsync(new MemoryStream(Encoding.UTF8.GetBytes(older)));
        var error = await Assert.ThrowsAsync<ReportFormatException>(() => DuplicateReport.ReadAsync(new MemoryStream(Encoding.UTF8.GetBytes(unknown))));

        Assert.Null(Assert.Single(report.Groups).MediaFormat);
        Assert.Equal("groups[0].format is not a media format (mp3, flac, jpeg, png, wav, webp or mp4)", error.Message);
        Assert.Equal("groups[0]", error.Element);
    }

    [Fact]
    public void Every_format_has_a_report_name_that_reads_back()
    {
        // A format added to the enum without its name would make writing a report of its groups throw.
        var formats = Enum.GetValues<MediaFormat>().Where(f => f != MediaFormat.None).ToList();

        Assert.All(formats, f => Assert.Equal(f, MediaFormatNames.Parse(MediaFormatNames.Of(f))));
        Assert.Equal(formats.Count, formats.Select(MediaFormatNames.Of).Distinct(StringComparer.Ordinal).Count());
        Assert.Null(MediaFormatNames.Parse("Mp3")); // names are lower case only
    }

    [Fact]
    public void None_is_not_a_format_and_the_format_takes_part_in_equality()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => Group(ContentMatch.MediaPayload, MediaFormat.None));
        Assert.NotEqual(Group(ContentMatch.MediaPayload, MediaFormat.Mp3), Group(ContentMatch.MediaPayload, MediaFormat.Flac));
        Assert.Equal(Group(ContentMatch.MediaPayload, MediaFormat.Mp3), Group(ContentMatch.MediaPayload, MediaFormat.Mp3));
    }

    private static DuplicateGroup Group(ContentMatch match, MediaFormat? format) => new(
        1000,
        [
            new DuplicateFile(AbsolutePath.Parse("/data/m/a"), [], new FileIdentity(9, 31), match == ContentMatch.WholeFile ? 1000 : 1100, 1, new DateTime(2026, 4, 1, 0, 0, 0, DateTimeKind.Utc)),
            new DuplicateFile(AbsolutePath.Parse("/data/m/b"), [], new FileIdentity(9, 32), match == ContentMatch.WholeFile ? 1000 : 1300, 1, new DateTime(2026, 4, 1, 0, 0, 0, DateTimeKind.Utc)),
        ],
        verifiedByBytes: true,
        match)
    {
        Roots = Roots,
        MediaFormat = format,
    };

    private static byte[] Write(IReadOnlyList<DuplicateGroup> groups)
    {
        using var stream = new MemoryStream();
        using (var writer = ReportWriter.CreateJson(stream))
        {
            foreach (var group in groups)
            {
                writer.WriteGroup(group);
            }

            writer.WriteRoots(Roots);
            writer.WriteSummary(DuplicateScan.SummaryOf(groups));
            writer.Flush();
        }

        return stream.ToArray();
    }
}
