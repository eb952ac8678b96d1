using System.Text.Json;
using Dedup.Cli.Output;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Cli.Tests.Html;

/// <summary>
/// <c>dedup find --format html</c> and <c>dedup report REPORT.json</c> (#39): the page of a scan, and the page of a saved
/// JSON report read with the library's reader, with the report's totals; a catalog's connection string never reaches it.
/// </summary>
public sealed class HtmlReportCliTests
{
    [Fact]
    public async Task Find_format_html_writes_the_page_with_the_groups_and_the_command_line()
    {
        using var tree = Tree();
        var (exit, _, stderr) = await CliProcess.RunAsync(["find", "--format", "html", "-o", tree.PathOf("r.html"), tree.PathOf("d")]);

        Assert.True(exit == 0, stderr);
        var data = Data(await File.ReadAllTextAsync(tree.PathOf("r.html")));
        Assert.Equal(2, data.GetProperty("g").GetArrayLength());
        Assert.Equal(5, data.GetProperty("s").GetProperty("files").GetInt64());
        Assert.Equal($"dedup find --format html -o {tree.PathOf("r.html")} {tree.PathOf("d")}", data.GetProperty("m").GetProperty("opt").GetString());
    }

    [Fact]
    public async Task Report_writes_the_page_of_a_saved_json_report_with_its_totals()
    {
        using var tree = Tree();
        await CliProcess.RunAsync(["find", "--format", "json", "-o", tree.PathOf("r.json"), tree.PathOf("d")]);

        var (exit, _, stderr) = await CliProcess.RunAsync(["report", tree.PathOf("r.json"), "-o", tree.PathOf("r.html")]);

        Assert.True(exit == 0, stderr);
        var data = Data(await File.ReadAllTextAsync(tree.PathOf("r.html")));
        var summary = JsonDocument.Parse(await File.ReadAllTextAsync(tree.PathOf("r.json"))).RootElement.GetProperty("summary");
        Assert.Equal(2, data.GetProperty("g").GetArrayLength());
        Assert.Equal(summary.GetProperty("files").GetInt64(), data.GetProperty("s").GetProperty("files").GetInt64());
        Assert.Equal(summary.GetProperty("wastedBytes").GetInt64(), data.GetProperty("s").GetProperty("wasted").GetInt64());
        Assert.Equal(3, data.GetProperty("s").GetProperty("dup").GetInt64());
        Assert.StartsWith($"read from {tree.PathOf("r.json")}", data.GetProperty("m").GetProperty("opt").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Report_without_o_writes_the_page_to_standard_output()
    {
        using var tree = Tree();
        await CliProcess.RunAsync(["find", "--format", "json", "-o", tree.PathOf("r.json"), tree.PathOf("d")]);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["report", tree.PathOf("r.json")]);

        Assert.True(exit == 0, stderr);
        Assert.StartsWith("<!DOCTYPE html>", stdout, StringComparison.Ordinal);
        Assert.Equal(2, Data(stdout).GetProperty("g").GetArrayLength());
    }

    [Fact]
    public async Task Report_of_a_file_that_is_not_a_report_is_a_usage_error_and_writes_nothing()
    {
        using var tree = Tree();
        tree.Write("bad.json", "{\"groups\":[{\"size\":1}]}");

        var (exit, _, stderr) = await CliProcess.RunAsync(["report", tree.PathOf("bad.json"), "-o", tree.PathOf("r.html")]);

        Assert.Equal(2, exit);
        Assert.Contains("bad.json", stderr, StringComparison.Ordinal);
        Assert.False(File.Exists(tree.PathOf("r.html")));
    }

    [Fact]
    public void The_command_line_shown_leaves_out_the_catalog_connection_string()
    {
        Assert.Equal("dedup find --catalog … /d --catalog=… -o r.html", CommandLineText.Of(["find", "--catalog", "Host=db;Password=secret", "/d", "--catalog=Password=x", "-o", "r.html"]));
    }

    private static TempTree Tree()
    {
        var tree = new TempTree();
        tree.Write("d/a/x.bin", TempTree.RandomBytes(4000, 3));
        tree.Write("d/b/x.bin", TempTree.RandomBytes(4000, 3));
        tree.Write("d/a/t.txt", "text");
        tree.Write("d/b/t.txt", "text");
        tree.Write("d/c/t.txt", "text");
        return tree;
    }

    private static JsonElement Data(string html)
    {
        const string Open = "<script type=\"application/json\" id=\"report-data\">";
        var start = html.IndexOf(Open, StringComparison.Ordinal) + Open.Length;
        return JsonDocument.Parse(html[start..html.IndexOf("</script>", start, StringComparison.Ordinal)]).RootElement;
    }
}
