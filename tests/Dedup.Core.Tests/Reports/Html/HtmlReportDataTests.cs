using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Reports;
using Xunit;

namespace Dedup.Core.Tests.Reports.Html;

/// <summary>
/// The data the HTML page is built from, field by field (the page's script reads exactly these): kinds, the kept copy or
/// folder, what only some groups carry, the summary's optional parts and where the report was written.
/// </summary>
public sealed class HtmlReportDataTests
{
    [Fact]
    public void A_plain_group_is_kind_size_kept_and_names_only()
    {
        var data = HtmlPages.Data(HtmlPages.Write([HtmlPages.Group(10, "/data/b/x", "/data/a/x")]));

        var group = data.GetProperty("g")[0];
        Assert.Equal(4, group.GetArrayLength());
        Assert.Equal(0, group[0].GetInt32());
        Assert.Equal(10, group[1].GetInt64());
        Assert.Equal(1, group[2].GetInt32());
    }

    [Fact]
    public void A_hash_match_carries_h_and_nothing_else()
    {
        var group = new DuplicateGroup(10, [HtmlPages.File("/data/a", 10), HtmlPages.File("/data/b", 10)], verifiedByBytes: false);

        var extra = HtmlPages.Data(HtmlPages.Write([group])).GetProperty("g")[0][4];

        Assert.Equal(1, extra.GetProperty("h").GetInt32());
        Assert.Equal(["h"], extra.EnumerateObject().Select(p => p.Name));
    }

    [Fact]
    public void A_group_across_machines_names_its_machines_and_keeps_nothing()
    {
        var data = HtmlPages.Data(HtmlPages.Write([ResultsJsonTests.SampleGroup()]));

        var group = data.GetProperty("g")[0];
        Assert.Equal(2, group[0].GetInt32());
        Assert.Equal(-1, group[2].GetInt32());
        Assert.Equal(["backup-01", null], group[4].GetProperty("m").EnumerateArray().Select(m => m.GetString()));
    }

    [Fact]
    public void A_folder_group_keeps_the_first_folder_in_path_order_hidden_folders_last()
    {
        var exact = new DuplicateFolderGroup([AbsolutePath.Parse("/data/q"), AbsolutePath.Parse("/data/p")], 2, 20, verifiedByBytes: true);
        var trash = new DuplicateFolderGroup([AbsolutePath.Parse("/data/.local/share/Trash/files/p"), AbsolutePath.Parse("/data/z"), AbsolutePath.Parse("/data/y")], 2, 20, verifiedByBytes: false,
            [new FolderDifference("a", FolderDifferenceKind.OnlyInSecond), new FolderDifference("b", FolderDifferenceKind.Unknown), new FolderDifference("c", FolderDifferenceKind.Changed)]);

        var data = HtmlPages.Data(HtmlPages.Write([], folderGroups: [exact, trash]));

        var first = data.GetProperty("f")[0];
        Assert.Equal(1, first[0].GetInt32()); // exact
        Assert.Equal(1, first[4].GetInt32()); // /data/p
        Assert.Equal(2, first[5].GetArrayLength());
        Assert.Equal(1, first[6].GetInt32()); // verified
        var second = data.GetProperty("f")[1];
        Assert.Equal(0, second[0].GetInt32());
        Assert.Equal(2, second[4].GetInt32()); // /data/y: the trash's is under a hidden folder
        Assert.Equal(0, second[6].GetInt32());
        Assert.Equal(["only in second", "unknown", "changed"], second[7].EnumerateArray().Select(d => d[0].GetString()));
    }

    [Fact]
    public void The_summary_holds_its_optional_parts_only_when_the_scan_had_them()
    {
        var bare = HtmlPages.Data(HtmlPages.Write([])).GetProperty("s");
        var summary = HtmlPages.SummaryOf([], [new ScanError("/data/x", ScanErrorKind.NotFound, "gone")]) with
        {
            Groups = 4,
            DuplicateFiles = 6,
            BytesRead = 1234,
            Folders = new FolderSummary { Groups = 1, CopiedFolders = 2, CopiedFiles = 3, WastedBytes = 4, PartialOverlaps = 5 },
            Catalog = new CatalogStatistics { Machine = "m1", FilesRecorded = 7, GroupsAcrossMachines = 8, Error = new InvalidOperationException("down") },
        };
        var full = HtmlPages.Data(HtmlPages.Write([], summary)).GetProperty("s");

        Assert.False(bare.TryGetProperty("read", out _));
        Assert.False(bare.TryGetProperty("secs", out _));
        Assert.False(bare.TryGetProperty("folders", out _));
        Assert.False(bare.TryGetProperty("catalog", out _));
        Assert.Equal(4, full.GetProperty("groups").GetInt32());
        Assert.Equal(6, full.GetProperty("dup").GetInt64());
        Assert.Equal(1, full.GetProperty("errors").GetInt32());
        Assert.Equal(1234, full.GetProperty("read").GetInt64());
        var folders = full.GetProperty("folders");
        Assert.Equal([1L, 2, 3, 4, 5], new[] { "groups", "copied", "files", "wasted", "partial" }.Select(name => folders.GetProperty(name).GetInt64()));
        var catalog = full.GetProperty("catalog");
        Assert.Equal("m1", catalog.GetProperty("machine").GetString());
        Assert.Equal(7, catalog.GetProperty("recorded").GetInt64());
        Assert.Equal(8, catalog.GetProperty("across").GetInt32());
        Assert.Equal("down", catalog.GetProperty("error").GetString());
    }

    [Fact]
    public void Where_and_when_it_was_written_and_a_root_that_is_the_file_system_root()
    {
        var data = HtmlPages.Data(HtmlPages.Write([], roots: [new ScanRoot(AbsolutePath.Parse("/"), new FileIdentity(8, 2))]));

        var meta = data.GetProperty("m");
        Assert.Matches(@"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$", meta.GetProperty("at").GetString());
        Assert.Equal(PathText.Escape(Environment.MachineName), meta.GetProperty("host").GetString());
        Assert.Equal("/", meta.GetProperty("sep").GetString());
        Assert.Equal(-1, meta.GetProperty("roots")[0].GetInt32());
        Assert.Equal("/", meta.GetProperty("roots")[1].GetString());
        Assert.False(meta.TryGetProperty("opt", out _));
    }

    [Fact]
    public void Names_beyond_ascii_are_written_as_they_are()
    {
        var html = HtmlPages.Write([HtmlPages.Group(10, "/data/Größe/x", "/data/b/x")]);

        Assert.Contains("\"Größe\"", HtmlPages.DataText(html), StringComparison.Ordinal);
    }

    [Fact]
    public void The_head_declares_utf8_no_referrer_and_the_title_and_the_page_ends_once()
    {
        using var stream = new MemoryStream();
        using (var writer = ReportWriter.CreateHtml(stream))
        {
            writer.WriteRoots([]);
            writer.WriteSummary(HtmlPages.SummaryOf([]));
            writer.Flush();
            writer.Flush();
        }

        var html = System.Text.Encoding.UTF8.GetString(stream.ToArray());
        Assert.StartsWith("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; ", html, StringComparison.Ordinal);
        Assert.Contains("<meta name=\"referrer\" content=\"no-referrer\">", html, StringComparison.Ordinal);
        Assert.Contains("<title>dedup report</title>\n<style>", html, StringComparison.Ordinal);
        Assert.Single(System.Text.RegularExpressions.Regex.Matches(html, "</html>"));
    }

    [Fact]
    public void Null_arguments_are_refused()
    {
        using var writer = ReportWriter.CreateHtml(new MemoryStream());

        Assert.Throws<ArgumentNullException>(() => ReportWriter.CreateHtml(null!));
        Assert.Throws<ArgumentNullException>(() => writer.WriteGroup(null!));
        Assert.Throws<ArgumentNullException>(() => writer.WriteFolderGroup(null!));
        Assert.Throws<ArgumentNullException>(() => writer.WriteRoots(null!));
        Assert.Throws<ArgumentNullException>(() => writer.WriteSummary(null!));
    }
}
