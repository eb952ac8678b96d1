using System.Security.Cryptography;
using System.Text;

namespace Dedup.Core.Reports.Html;

/// <summary>
/// The fixed parts of the HTML report: everything before the data block and everything after it. The script and the
/// style are embedded resources (report.js, report.css beside this file) inlined into the page, so the page needs
/// nothing from the network; the Content-Security-Policy allows exactly those two by their SHA-256 and nothing else
/// (no other script, no connection, no frame, images only as data: URLs).
/// </summary>
internal static class HtmlPage
{
    /// <summary>The id of the <c>application/json</c> block the script reads the report from.</summary>
    public const string DataId = "report-data";

    private static readonly Lazy<(byte[] Head, byte[] Tail)> Parts = new(Build);

    /// <summary>The page up to and including the opening tag of the data block.</summary>
    public static byte[] Head => Parts.Value.Head;

    /// <summary>The data block's closing tag, the script and the end of the page.</summary>
    public static byte[] Tail => Parts.Value.Tail;

    /// <summary>The page's script, as inlined.</summary>
    internal static string Script => Resource("report.js");

    /// <summary>The page's style sheet, as inlined.</summary>
    internal static string Style => Resource("report.css");

    /// <summary>The CSP source for an inline element's text: <c>'sha256-…'</c> of its UTF-8 bytes, as browsers hash it.</summary>
    internal static string HashSource(string text)
    {
        using var sha = SHA256.Create();
        return $"'sha256-{Convert.ToBase64String(sha.ComputeHash(Encoding.UTF8.GetBytes(text)))}'";
    }

    private static (byte[] Head, byte[] Tail) Build()
    {
        var script = Script;
        var style = Style;
        var policy = $"default-src 'none'; script-src {HashSource(script)}; style-src {HashSource(style)}; img-src data:; base-uri 'none'; form-action 'none'";
        var head = new StringBuilder()
            .Append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
            .Append("<meta http-equiv=\"Content-Security-Policy\" content=\"").Append(policy).Append("\">\n")
            .Append("<meta name=\"referrer\" content=\"no-referrer\">\n")
            .Append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
            .Append("<meta name=\"generator\" content=\"dedup\">\n")
            .Append("<title>dedup report</title>\n<style>").Append(style).Append("</style>\n</head>\n<body>\n")
            .Append(Resource("report.html"))
            .Append("<script type=\"application/json\" id=\"").Append(DataId).Append("\">");
        var tail = new StringBuilder()
            .Append("</script>\n<script>").Append(script).Append("</script>\n</body>\n</html>\n");
        return (Encoding.UTF8.GetBytes(head.ToString()), Encoding.UTF8.GetBytes(tail.ToString()));
    }

    private static string Resource(string name)
    {
        using var stream = typeof(HtmlPage).Assembly.GetManifestResourceStream($"Dedup.Core.Reports.Html.{name}")
            ?? throw new InvalidOperationException($"The resource {name} is missing from the assembly.");
        using var reader = new StreamReader(stream, Encoding.UTF8);
        return reader.ReadToEnd();
    }
}
