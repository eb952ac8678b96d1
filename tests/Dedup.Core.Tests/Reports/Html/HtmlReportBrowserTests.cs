using System.Net;
using System.Text;
using System.Text.RegularExpressions;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Xunit;
using Xunit.Abstractions;

namespace Dedup.Core.Tests.Reports.Html;

/// <summary>
/// HTML reports opened in a real browser (Debian's chromium, headless; #39 point 4): a scanned tree, hostile names,
/// 100,000 groups. Asserted on the DOM the page's script built (groups listed, totals, the kept copy and its command),
/// on its console (no error, no policy violation, nothing logged) and on what a name must not do (no element made
/// from it, no script run: the title stays). Screenshots go to TestResults/screenshots. In CI a missing chromium fails.
/// </summary>
public sealed class HtmlReportBrowserTests(ITestOutputHelper output)
{
    private static readonly byte[] Latin1 = [.. "d/caf"u8, 0xE9, .. " it's"u8];

    [RequiresToolFact("chromium")]
    public async Task A_scanned_tree_shows_its_totals_groups_and_the_command_for_the_largest()
    {
        using var tree = new TempTree();
        tree.Write("d/photos/a.jpg", TempTree.RandomBytes(5000, 1));
        tree.Write("d/photos (copy)/a.jpg", TempTree.RandomBytes(5000, 1));
        tree.Write("d/docs/n.txt", "same text");
        tree.Write("d/old/n.txt", "same text");
        tree.Write("d/old/backup/n.txt", "same text");
        tree.Write("d/lonely.txt", "no copy");
        var page = await WritePageAsync(tree, tree.PathOf("d"));

        var (dom, console) = Chromium.Open(page, "#group=0");
        Chromium.Screenshot(page, "html-report-tree", "#group=0");

        Assert.Empty(console);
        Assert.DoesNotMatch("https?:", await File.ReadAllTextAsync(page)); // with the policy: nothing to ask the network for
        Assert.Equal("2", Chromium.RootAttribute(dom, "data-groups"));
        Assert.Equal("6", Total(dom, "Files scanned"));
        Assert.Equal("2", Total(dom, "Duplicate groups"));
        Assert.Equal("4.9 KiB (5,018 bytes)", Total(dom, "Wasted"));
        Assert.Equal(2, Regex.Matches(dom, "<div class=\"row[^\"]*\" data-index=").Count);
        Assert.Equal($"dedup delete -- {tree.PathOf("d/photos/a.jpg")} '{tree.PathOf("d/photos (copy)/a.jpg")}'", Chromium.TextOf(dom, "command"));
        Assert.Contains("Showing 2 of 2 groups.", Chromium.TextOf(dom, "shown"), StringComparison.Ordinal);
        Assert.Contains($"<span class=\"badge keep\">keep</span><span class=\"path\">{tree.PathOf("d/photos/a.jpg")}</span>", dom, StringComparison.Ordinal);
        Assert.Contains("class=\"tile\"", dom, StringComparison.Ordinal); // the treemap drew its folders
    }

    [RequiresToolFact("chromium")]
    public async Task Hostile_names_show_as_text_run_nothing_and_their_command_names_the_exact_files()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(3000, 7);
        tree.Write("d/<img src=x onerror=document.title='pwned'>", content);
        tree.Write("d/x</script><script>document.title='pwned2'</script>/y", content); // folders that spell it in the path
        ExactNames.WriteFile([.. Encoding.UTF8.GetBytes(tree.Root + "/"), .. Latin1], content);
        tree.Write("d/a$(touch pwned)`b`\\c", content);
        var page = await WritePageAsync(tree, tree.PathOf("d"));

        var (dom, console) = Chromium.Open(page, "#group=0");
        Chromium.Screenshot(page, "html-report-hostile", "#group=0");

        Assert.Empty(console);
        Assert.Equal("dedup report", Regex.Match(dom, "<title>(.*?)</title>").Groups[1].Value);
        Assert.DoesNotContain("<img", dom, StringComparison.OrdinalIgnoreCase);
        Assert.Equal(2, Regex.Matches(dom, "<script", RegexOptions.IgnoreCase).Count);
        Assert.Equal("1", Chromium.RootAttribute(dom, "data-groups"));
        Assert.Contains("&lt;img src=x onerror=document.title='pwned'&gt;", dom, StringComparison.Ordinal);
        Assert.Contains(">" + AbsolutePath.Parse(KernelNames.GetString([.. Encoding.UTF8.GetBytes(tree.Root + "/"), .. Latin1])).ToDisplayString() + "<", dom, StringComparison.Ordinal); // caf\xE9 it's

        // The command, run by bash with printf in dedup's place, names the very files: exact bytes, nothing expanded.
        var command = Chromium.TextOf(dom, "command")!;
        Assert.StartsWith("dedup delete -- ", command, StringComparison.Ordinal);
        var list = tree.PathOf("names");
        var (exit, _, stderr) = ProcessRunner.Run("bash", ["-c", $"cd {tree.Root} && printf '%s\\0' {command["dedup delete -- ".Length..]} > {list}"]);
        Assert.True(exit == 0, stderr);
        var names = Split(File.ReadAllBytes(list));
        byte[][] expected =
        [
            Encoding.UTF8.GetBytes(tree.PathOf("d/<img src=x onerror=document.title='pwned'>")),
            Encoding.UTF8.GetBytes(tree.PathOf("d/x</script><script>document.title='pwned2'</script>/y")),
            Encoding.UTF8.GetBytes(tree.PathOf("d/a$(touch pwned)`b`\\c")),
            [.. Encoding.UTF8.GetBytes(tree.Root + "/"), .. Latin1],
        ];
        Assert.Equal(expected.Select(Convert.ToHexString).Order(), names.Select(Convert.ToHexString).Order());
        Assert.False(File.Exists(tree.PathOf("pwned")));
    }

    [RequiresToolFact("chromium")]
    public void A_hundred_thousand_groups_open_in_a_file_under_30_MB()
    {
        using var tree = new TempTree();
        var page = tree.PathOf("large.html");
        var groups = Enumerable.Range(0, 100_000).Select(i =>
            HtmlPages.Group(1000 + (i % 5000), $"/srv/data/project-{i % 97:D2}/build/{i % 13}/file-{i:D6}.bin", $"/srv/backup/2026/project-{i % 97:D2}/build/{i % 13}/file-{i:D6}.bin"));
        using (var stream = File.Create(page))
        {
            HtmlPages.WriteTo(stream, groups);
        }

        var size = new FileInfo(page).Length;
        var (dom, console) = Chromium.Open(page);
        Chromium.Screenshot(page, "html-report-100k");

        Assert.Empty(console);
        Assert.True(size < 30 * 1024 * 1024, $"{size} bytes");
        Assert.Equal("100000", Chromium.RootAttribute(dom, "data-groups"));
        Assert.Contains("Showing 100,000 of 100,000 groups.", Chromium.TextOf(dom, "shown"), StringComparison.Ordinal);
        var rows = Regex.Matches(dom, "<div class=\"row[^\"]*\" data-index=").Count;
        Assert.InRange(rows, 10, 100); // only the rows in view are in the DOM
        output.WriteLine($"100,000 groups: {size:N0} bytes; rendered {Chromium.RootAttribute(dom, "data-rendered-ms")} ms after navigation start");
    }

    [RequiresToolFact("chromium")]
    public void Filtering_by_kind_and_the_selection_command_cover_the_groups_shown()
    {
        using var tree = new TempTree();
        var page = tree.PathOf("kinds.html");
        var media = new DuplicateGroup(900, [HtmlPages.File("/m/a.mp3", 1000), HtmlPages.File("/m/b.mp3", 1200)], verifiedByBytes: true, ContentMatch.MediaPayload);
        using (var stream = File.Create(page))
        {
            HtmlPages.WriteTo(stream, [HtmlPages.Group(10, "/w/b", "/w/a"), HtmlPages.Group(20, "/w/d", "/w/c"), media]);
        }

        var (all, _) = Chromium.Open(page, "#selection=1");
        var (onlyMedia, console) = Chromium.Open(page, "#kind=media&selection=1");

        Assert.Empty(console);
        Assert.Equal("3", Chromium.RootAttribute(all, "data-groups"));
        Assert.Equal("dedup delete --files-from <(printf '%s\\0' /w/c /w/d /w/a /w/b)", Chromium.TextOf(all, "selection-command"));
        Assert.Equal("1", Chromium.RootAttribute(onlyMedia, "data-groups"));
        Assert.Equal("dedup delete --media --files-from <(printf '%s\\0' /m/a.mp3 /m/b.mp3)", Chromium.TextOf(onlyMedia, "selection-command"));
    }

    [RequiresToolFact("chromium")]
    public void Copies_show_their_machine_and_SHA256_match_and_commands_name_only_copies_compared_here_keeping_none_in_a_trash()
    {
        using var tree = new TempTree();
        var page = tree.PathOf("fleet.html");
        DuplicateFile Copy(string path, string machine, bool bySha256 = false) => HtmlPages.File(path, 4000) with { Machine = machine, MatchedBySha256 = bySha256 };
        var across = new DuplicateGroup(4000, [Copy("/srv/a/x.bin", "beta", bySha256: true), Copy("/srv/y/x.bin", "alpha"), Copy("/srv/z/x.bin", "alpha")], verifiedByBytes: true)
        {
            Sha256 = new byte[32],
        };
        var trash = HtmlPages.Group(3000, "/srv/$RECYCLE.BIN/S-1/t.bin", "/srv/w/t.bin");
        var media = new DuplicateGroup(900, [HtmlPages.File("/m/a.mp3", 1000), HtmlPages.File("/m/b.mp3", 1200)], verifiedByBytes: true, ContentMatch.MediaPayload);
        using (var stream = File.Create(page))
        {
            HtmlPages.WriteTo(stream, [across, trash, media]);
        }

        var (first, console) = Chromium.Open(page, "#group=0&selection=1");
        var (second, _) = Chromium.Open(page, "#group=1");
        Chromium.Screenshot(page, "html-report-machines", "#group=0");

        Assert.Empty(console);
        Assert.Equal("dedup delete -- /srv/y/x.bin /srv/z/x.bin", Chromium.TextOf(first, "command"));
        Assert.Contains("<span class=\"badge keep\">keep</span><span class=\"path\">/srv/y/x.bin</span><span class=\"tag machine\">alpha</span></li>", first, StringComparison.Ordinal);
        Assert.Contains("<span class=\"badge\">remove</span><span class=\"path\">/srv/z/x.bin</span><span class=\"tag machine\">alpha</span></li>", first, StringComparison.Ordinal);
        Assert.Contains("<span class=\"badge\"></span><span class=\"path\">/srv/a/x.bin</span><span class=\"tag machine\">beta</span><span class=\"tag sha\">SHA-256 only</span></li>", first, StringComparison.Ordinal);
        Assert.Equal("dedup delete --files-from <(printf '%s\\0' /srv/y/x.bin /srv/z/x.bin /srv/w/t.bin '/srv/$RECYCLE.BIN/S-1/t.bin')", Chromium.TextOf(first, "selection-command"));
        Assert.Equal("dedup delete -- /srv/w/t.bin '/srv/$RECYCLE.BIN/S-1/t.bin'", Chromium.TextOf(second, "command"));

        // Waste counted once per content, as the summary counts it: all copies but one; for a payload match, all but the largest file.
        Assert.Equal(["7.8 KiB", "2.9 KiB", "1000 B"], Regex.Matches(first, "<span class=\"waste\">([^<]*)</span>").Select(m => m.Groups[1].Value));
    }

    private static async Task<string> WritePageAsync(TempTree tree, string root)
    {
        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(root));
        var page = tree.PathOf("report.html");
        using var stream = File.Create(page);
        HtmlPages.WriteTo(stream, groups, summary, roots: []);
        return page;
    }

    private static string? Total(string dom, string name) =>
        Regex.Match(dom, $"<dd data-total=\"{Regex.Escape(name)}\">(.*?)</dd>") is { Success: true } match ? WebUtility.HtmlDecode(match.Groups[1].Value) : null;

    private static List<byte[]> Split(byte[] bytes)
    {
        var names = new List<byte[]>();
        var start = 0;
        for (var i = 0; i < bytes.Length; i++)
        {
            if (bytes[i] == 0)
            {
                names.Add(bytes[start..i]);
                start = i + 1;
            }
        }

        return names;
    }
}
