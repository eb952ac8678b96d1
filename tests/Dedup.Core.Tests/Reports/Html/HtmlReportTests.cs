using System.Security.Cryptography;
using System.Text;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Xunit;

namespace Dedup.Core.Tests.Reports.Html;

/// <summary>
/// The HTML report's page as written (#39): one file that asks the network for nothing, a policy that allows exactly
/// its own inline script and style, names that stay data whatever they hold, the copy the default keep rule keeps, and
/// names that are not UTF-8 shown as the text report shows them. What a browser makes of it: HtmlReportBrowserTests.
/// </summary>
public sealed class HtmlReportTests
{
    private const string ImgName = "<img src=x onerror=alert(1)>";

    [Fact]
    public void The_page_is_one_file_that_loads_nothing()
    {
        var html = HtmlPages.Write([HtmlPages.Group(10, "/data/a/x", "/data/b/x")]);

        Assert.StartsWith("<!DOCTYPE html>", html, StringComparison.Ordinal);
        Assert.DoesNotContain("http:", html, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("https:", html, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("<link", html, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain(" src=", html, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("innerHTML", HtmlPages.ScriptText(html), StringComparison.Ordinal);
        Assert.Equal(2, CountOf(html, "<script"));
        Assert.EndsWith("</html>\n", html, StringComparison.Ordinal);
    }

    [Fact]
    public void The_policy_allows_exactly_the_inline_script_and_style_by_hash()
    {
        var html = HtmlPages.Write([HtmlPages.Group(10, "/data/a/x", "/data/b/x")]);
        var policy = HtmlPages.Policy(html);

        var directives = policy.Split(';', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries);
        Assert.Contains("default-src 'none'", directives);
        Assert.Contains($"script-src 'sha256-{Hash(HtmlPages.ScriptText(html))}'", directives);
        Assert.Contains($"style-src 'sha256-{Hash(HtmlPages.StyleText(html))}'", directives);
        Assert.Contains("img-src data:", directives);
        Assert.DoesNotContain("unsafe", policy, StringComparison.Ordinal);
        Assert.Equal(1, CountOf(html, "<style"));
    }

    [Fact]
    public void Hostile_names_cannot_end_the_data_block_or_open_a_tag()
    {
        // A name holds no '/', but a path does: these folders spell "</script><script>alert(2)</script>" in the path.
        var html = HtmlPages.Write(
            [HtmlPages.Group(10, "/data/" + ImgName, "/data/x</script><script>alert(2)</script>/y", "/data/&amp;'\"--><!--")],
            HtmlPages.SummaryOf([], [new ScanError("/data/<b>bad</b>", ScanErrorKind.AccessDenied, "<script>alert(3)</script>")]));

        var data = HtmlPages.DataText(html);
        Assert.DoesNotContain('<', data);
        Assert.DoesNotContain('>', data);
        Assert.DoesNotContain('&', data);
        Assert.Equal(2, CountOf(html, "</script>")); // the data block's and the script's: no name ends either
        var parsed = HtmlPages.Data(html);
        Assert.Equal(new[] { "/data/" + ImgName, "/data/x</script><script>alert(2)</script>/y", "/data/&amp;'\"--><!--" }.Order(StringComparer.Ordinal), HtmlPages.PathsOf(parsed, parsed.GetProperty("g")[0]).Order(StringComparer.Ordinal));
        Assert.Equal("<script>alert(3)</script>", parsed.GetProperty("e")[0][2].GetString());
    }

    [Fact]
    public void Each_group_marks_the_copy_the_default_keep_rule_keeps()
    {
        // Listed copy first: path order still keeps the original, as 'dedup delete --from-report' would.
        var html = HtmlPages.Write([HtmlPages.Group(10, "/data/Photos (copy)/a.jpg", "/data/Photos/a.jpg", "/data/.hidden/a.jpg")]);

        var data = HtmlPages.Data(html);
        var group = data.GetProperty("g")[0];
        Assert.Equal("/data/Photos/a.jpg", HtmlPages.PathsOf(data, group)[group[2].GetInt32()]);
    }

    [Fact]
    public void A_copy_under_a_hidden_folder_such_as_a_trash_is_not_the_one_kept()
    {
        var html = HtmlPages.Write([HtmlPages.Group(10, "/data/.local/share/Trash/files/a", "/data/z/a")]);

        var data = HtmlPages.Data(html);
        Assert.Equal(1, data.GetProperty("g")[0][2].GetInt32());
    }

    [Fact]
    public void Names_that_are_not_utf8_are_shown_escaped_as_the_text_report_shows_them()
    {
        var latin1 = AbsolutePath.Parse(KernelNames.GetString([.. "/data/caf"u8, 0xE9, .. "/tab\t"u8, 0xFF]));
        var group = new DuplicateGroup(5, [HtmlPages.File("/data/a", 5), HtmlPages.File(latin1.ToString(), 5)], verifiedByBytes: true);

        var data = HtmlPages.Data(HtmlPages.Write([group]));

        Assert.Contains(latin1.ToDisplayString(), HtmlPages.PathsOf(data, data.GetProperty("g")[0]));
        Assert.Equal("/data/caf\\xE9/tab\\t\\xFF", latin1.ToDisplayString());
    }

    [Fact]
    public void Folders_are_written_once_however_many_files_they_hold()
    {
        var groups = Enumerable.Range(0, 200).Select(i => HtmlPages.Group(10, $"/data/deep/folder/one/f{i}", $"/data/deep/folder/two/f{i}")).ToList();

        var html = HtmlPages.Write(groups);

        Assert.Equal(1, CountOf(HtmlPages.DataText(html), "\"folder\""));
        Assert.Equal(200, HtmlPages.Data(html).GetProperty("g").GetArrayLength());
    }

    [Fact]
    public void Totals_media_links_folder_groups_and_options_are_in_the_data()
    {
        var media = new DuplicateGroup(1000, [HtmlPages.File("/data/m/a.mp3", 1100), HtmlPages.File("/data/m/b.mp3", 1300)], verifiedByBytes: false, ContentMatch.MediaPayload) { MediaFormat = MediaFormat.Mp3 };
        var linked = new DuplicateGroup(7, [HtmlPages.File("/data/l/a", 7) with { OtherLinks = [AbsolutePath.Parse("/data/l/a-link")] }, HtmlPages.File("/data/l/b", 7)], verifiedByBytes: true);
        var folders = new DuplicateFolderGroup([AbsolutePath.Parse("/data/p"), AbsolutePath.Parse("/data/q")], 2, 20, verifiedByBytes: true, [new FolderDifference("x/only", FolderDifferenceKind.OnlyInFirst)]);
        var summary = HtmlPages.SummaryOf([media, linked]) with { FilesScanned = 12345, WastedBytes = 1307, Elapsed = TimeSpan.FromSeconds(1.5) };

        var data = HtmlPages.Data(HtmlPages.Write([media, linked], summary, [folders], options: "dedup find /data --catalog …"));

        Assert.Equal(12345, data.GetProperty("s").GetProperty("files").GetInt64());
        Assert.Equal(1307, data.GetProperty("s").GetProperty("wasted").GetInt64());
        Assert.Equal(1.5, data.GetProperty("s").GetProperty("secs").GetDouble());
        var extra = data.GetProperty("g")[0][4];
        Assert.Equal(1, data.GetProperty("g")[0][0].GetInt32());
        Assert.Equal([1100L, 1300L], extra.GetProperty("len").EnumerateArray().Select(e => e.GetInt64()));
        Assert.Equal(1, extra.GetProperty("h").GetInt32());
        Assert.Equal("mp3", extra.GetProperty("fmt").GetString());
        Assert.Equal(3, data.GetProperty("g")[1][4].GetProperty("l").GetArrayLength()); // file 0, folder, name
        var folderGroup = data.GetProperty("f")[0];
        Assert.Equal(0, folderGroup[0].GetInt32()); // not exact
        Assert.Equal("only in first", folderGroup[7][0][0].GetString());
        Assert.Equal("x/only", folderGroup[7][0][1].GetString());
        Assert.Equal("dedup find /data --catalog …", data.GetProperty("m").GetProperty("opt").GetString());
        Assert.Equal(2, data.GetProperty("m").GetProperty("roots").GetArrayLength());
    }

    [Fact]
    public void Groups_are_streamed_before_the_summary()
    {
        using var stream = new MemoryStream();
        using var writer = Core.Reports.ReportWriter.CreateHtml(stream);
        for (var i = 0; i < 3000; i++)
        {
            writer.WriteGroup(HtmlPages.Group(10, $"/data/a/{i:D40}", $"/data/b/{i:D40}"));
        }

        Assert.True(stream.Length > 100_000, $"{stream.Length} bytes written before the summary");
    }

    private static int CountOf(string text, string part)
    {
        var count = 0;
        for (var at = text.IndexOf(part, StringComparison.OrdinalIgnoreCase); at >= 0; at = text.IndexOf(part, at + 1, StringComparison.OrdinalIgnoreCase))
        {
            count++;
        }

        return count;
    }

    private static string Hash(string text) => Convert.ToBase64String(SHA256.HashData(Encoding.UTF8.GetBytes(text)));
}
