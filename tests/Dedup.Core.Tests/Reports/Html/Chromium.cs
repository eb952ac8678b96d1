using System.Net;
using System.Text.RegularExpressions;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Reports.Html;

/// <summary>
/// Debian's chromium, headless, on a page: the DOM after its script ran (<c>--dump-dom</c>), what its console said
/// (<c>--enable-logging=stderr</c>: every console message, an uncaught error or a policy violation is a
/// <c>:CONSOLE</c> line) and a screenshot kept under the test output's TestResults/screenshots as an artifact.
/// </summary>
internal static partial class Chromium
{
    public static string ScreenshotFolder { get; } = Path.Combine(AppContext.BaseDirectory, "TestResults", "screenshots");

    /// <summary>The rendered DOM and the page's console lines.</summary>
    public static (string Dom, IReadOnlyList<string> Console) Open(string page, string fragment = "")
    {
        var (stdout, stderr) = Run(page, fragment, "--dump-dom");
        return (stdout, ConsoleLines(stderr));
    }

    /// <summary>Saves a screenshot of the page as <paramref name="name"/>.png; returns its path.</summary>
    public static string Screenshot(string page, string name, string fragment = "")
    {
        Directory.CreateDirectory(ScreenshotFolder);
        var file = Path.Combine(ScreenshotFolder, name + ".png");
        File.Delete(file);
        Run(page, fragment, $"--screenshot={file}", "--window-size=1280,1800", "--hide-scrollbars");
        Assert.True(File.Exists(file), $"chromium wrote no screenshot {file}");
        return file;
    }

    /// <summary>The text of the element with <paramref name="id"/> in a dumped DOM, entities decoded; null when absent.</summary>
    public static string? TextOf(string dom, string id)
    {
        var match = Regex.Match(dom, $"<(\\w+)[^>]* id=\"{Regex.Escape(id)}\"[^>]*>(.*?)</\\1>", RegexOptions.Singleline);
        return match.Success ? WebUtility.HtmlDecode(Regex.Replace(match.Groups[2].Value, "<[^>]*>", string.Empty)) : null;
    }

    /// <summary>The value of an attribute of the root element, such as <c>data-groups</c>.</summary>
    public static string? RootAttribute(string dom, string name)
    {
        var root = RootPattern().Match(dom).Value;
        var match = Regex.Match(root, $" {Regex.Escape(name)}=\"([^\"]*)\"");
        return match.Success ? match.Groups[1].Value : null;
    }

    private static (string Stdout, string Stderr) Run(string page, string fragment, params string[] mode)
    {
        using var profile = new TempTree();
        string[] args =
        [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--enable-logging=stderr", "--v=0", $"--user-data-dir={profile.Root}", .. mode, new Uri(page).AbsoluteUri + fragment,
        ];
        var (exit, stdout, stderr) = ProcessRunner.Run("chromium", args, timeoutSeconds: 180);
        Assert.True(exit == 0, $"chromium exited {exit}: {stderr}");
        return (stdout, stderr);
    }

    private static List<string> ConsoleLines(string stderr) =>
        stderr.Split('\n').Where(line => line.Contains(":CONSOLE", StringComparison.Ordinal)).ToList();

    [GeneratedRegex("<html[^>]*>")]
    private static partial Regex RootPattern();
}
