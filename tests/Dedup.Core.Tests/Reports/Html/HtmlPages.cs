using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Reports;

namespace Dedup.Core.Tests.Reports.Html;

/// <summary>Writes HTML reports for the tests and takes them apart again: the data block, the inline script and style, the policy.</summary>
internal static partial class HtmlPages
{
    public static readonly ScanRoot[] Roots = [new(AbsolutePath.Parse("/data"), new FileIdentity(8, 2))];

    public static string Write(IEnumerable<DuplicateGroup> groups, ScanSummary? summary = null, IEnumerable<DuplicateFolderGroup>? folderGroups = null, IReadOnlyList<ScanRoot>? roots = null, string? options = null)
    {
        using var stream = new MemoryStream();
        WriteTo(stream, groups, summary, folderGroups, roots, options);
        return Encoding.UTF8.GetString(stream.ToArray());
    }

    public static void WriteTo(Stream stream, IEnumerable<DuplicateGroup> groups, ScanSummary? summary = null, IEnumerable<DuplicateFolderGroup>? folderGroups = null, IReadOnlyList<ScanRoot>? roots = null, string? options = null)
    {
        var list = groups.ToList();
        using var writer = ReportWriter.CreateHtml(stream, options);
        foreach (var folderGroup in folderGroups ?? [])
        {
            writer.WriteFolderGroup(folderGroup);
        }

        foreach (var group in list)
        {
            writer.WriteGroup(group);
        }

        writer.WriteRoots(roots ?? Roots);
        writer.WriteSummary(summary ?? SummaryOf(list));
        writer.Flush();
    }

    public static ScanSummary SummaryOf(IReadOnlyList<DuplicateGroup> groups, IReadOnlyList<ScanError>? errors = null) => new()
    {
        FilesScanned = groups.Sum(g => g.Files.Count) + 3,
        BytesRead = 0,
        Groups = groups.Count,
        DuplicateFiles = groups.Sum(g => g.Files.Count - 1),
        WastedBytes = groups.Sum(g => g.Size * (g.Files.Count - 1)),
        Errors = errors ?? [],
        Elapsed = TimeSpan.Zero,
    };

    public static DuplicateFile File(string path, long length = 10, long inode = 0) =>
        new(AbsolutePath.Parse(path), [], new FileIdentity(8, inode == 0 ? (ulong)Math.Abs(path.GetHashCode(StringComparison.Ordinal)) : (ulong)inode), length, 1, new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc));

    public static DuplicateGroup Group(long size, params string[] paths) => new(size, paths.Select(p => File(p, size)).ToList(), verifiedByBytes: true);

    /// <summary>The text of the data block: from its opening tag to the first <c>&lt;/script</c> after it, as a browser reads it.</summary>
    public static string DataText(string html)
    {
        var open = $"<script type=\"application/json\" id=\"report-data\">";
        var start = html.IndexOf(open, StringComparison.Ordinal) + open.Length;
        var end = html.IndexOf("</script", start, StringComparison.OrdinalIgnoreCase);
        return html[start..end];
    }

    public static JsonElement Data(string html) => JsonDocument.Parse(DataText(html)).RootElement;

    /// <summary>The text of the one executable script (the last <c>&lt;script&gt;</c>).</summary>
    public static string ScriptText(string html)
    {
        var start = html.LastIndexOf("<script>", StringComparison.Ordinal) + "<script>".Length;
        return html[start..html.IndexOf("</script>", start, StringComparison.Ordinal)];
    }

    public static string StyleText(string html)
    {
        var start = html.IndexOf("<style>", StringComparison.Ordinal) + "<style>".Length;
        return html[start..html.IndexOf("</style>", start, StringComparison.Ordinal)];
    }

    public static string Policy(string html) => PolicyPattern().Match(html).Groups[1].Value;

    /// <summary>The paths of a group as the page joins them from the folder table.</summary>
    public static List<string> PathsOf(JsonElement data, JsonElement group)
    {
        var folders = data.GetProperty("d").EnumerateArray().ToArray();
        var flat = group[3].EnumerateArray().ToArray();
        var paths = new List<string>();
        for (var i = 0; i < flat.Length; i += 2)
        {
            paths.Add(Join(folders, flat[i].GetInt32(), flat[i + 1].GetString()!));
        }

        return paths;
    }

    private static string Join(JsonElement[] folders, int folder, string name)
    {
        if (folder < 0)
        {
            return name;
        }

        var parent = Join(folders, folders[2 * folder].GetInt32(), folders[(2 * folder) + 1].GetString()!);
        return parent.EndsWith('/') ? parent + name : parent + "/" + name;
    }

    [GeneratedRegex("<meta http-equiv=\"Content-Security-Policy\" content=\"([^\"]*)\">")]
    private static partial Regex PolicyPattern();
}
