using System.Globalization;
using System.Text;
using System.Text.Json;
using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Cli.Tests;

/// <summary>
/// Names holding newlines, carriage returns, escape sequences, backslashes and bidi overrides, made on the real file
/// system: human-readable output (text report, dry-run plans, stderr, the library's plan and messages) shows them
/// escaped and never prints a raw control character, while JSON and CSV carry them exactly.
/// </summary>
public sealed class EscapedNamesTests
{
    /// <summary>Each tricky name and how it must be shown (written out by hand, not computed by the code under test).</summary>
    private static readonly (string Name, string Shown)[] Names =
    [
        ("new\nline.bin", @"new\nline.bin"),
        ("a\nb.bin", @"a\nb.bin"),
        ("a\\nb.bin", @"a\\nb.bin"),
        ("car\rriage.bin", @"car\rriage.bin"),
        ("tab\there.bin", @"tab\there.bin"),
        ("\u001b[31mred.bin", @"\e[31mred.bin"),
        ("rlo\u202Egnp.exe", @"rlo\u{202E}gnp.exe"),
        ("=cmd.bin", "=cmd.bin"),
        ("+sum.bin", "+sum.bin"),
        ("-minus.bin", "-minus.bin"),
        ("@at.bin", "@at.bin"),
    ];

    private static readonly byte[] Content = TempTree.RandomBytes(3000, seed: 11);

    [LinuxFact]
    public async Task Text_report_shows_escaped_names_one_per_line()
    {
        using var tree = MakeTree(out var files);
        // A folder whose name ends in a newline and two spaces: raw, the rest of its path would print as a line of its own.
        var spoof = tree.Write("evil\n  /real/path.bin", Content);
        files.Add((spoof, tree.Root + @"/evil\n  /real/path.bin"));

        var (_, stdout, stderr) = await RunCliAsync("find", tree.Root);

        AssertPrintable(stdout);
        AssertPrintable(stderr);
        var lines = stdout.Split('\n');
        foreach (var (_, shown) in files)
        {
            Assert.Contains("  " + shown, lines);
        }

        Assert.Equal(files.Count, lines.Count(l => l.StartsWith("  /", StringComparison.Ordinal)));
        Assert.DoesNotContain(lines, l => l.TrimStart().StartsWith("/real/", StringComparison.Ordinal));
        Assert.Contains("  " + tree.Root + @"/names/a\nb.bin", lines);
        Assert.Contains("  " + tree.Root + @"/names/a\\nb.bin", lines);
    }

    [LinuxFact]
    public async Task Dry_run_plans_of_delete_and_hard_link_show_escaped_names()
    {
        using var tree = MakeTree(out var files);

        foreach (var args in new[] { new[] { "delete", "--dry-run" }, ["link", "--mode", "hard", "--dry-run"] })
        {
            var (_, stdout, stderr) = await RunCliAsync([.. args, tree.PathOf("names")]);

            AssertPrintable(stdout);
            AssertPrintable(stderr);
            Assert.Contains($"{files.Count - 1} actions", stdout, StringComparison.Ordinal);
            var lines = stdout.Split('\n');
            foreach (var (_, shown) in files)
            {
                Assert.Contains(lines, l => l.EndsWith(" " + shown, StringComparison.Ordinal) || l.Contains(" " + shown + " (", StringComparison.Ordinal));
            }
        }

        Assert.All(files, f => Assert.Equal(Content, File.ReadAllBytes(f.Path)));
    }

    [LinuxFact]
    public async Task Json_and_csv_carry_the_exact_names()
    {
        using var tree = MakeTree(out var files);
        var exact = files.Select(f => f.Path).Order(StringComparer.Ordinal).ToList();

        var (_, json, _) = await RunCliAsync("find", tree.Root, "--format", "json");
        using var document = JsonDocument.Parse(json);
        var fromJson = document.RootElement.GetProperty("groups").EnumerateArray()
            .SelectMany(g => g.GetProperty("files").EnumerateArray())
            .Select(f => f.GetProperty("path").GetString()!)
            .Order(StringComparer.Ordinal)
            .ToList();
        Assert.Equal(exact, fromJson);

        var (_, csv, _) = await RunCliAsync("find", tree.Root, "--format", "csv");
        var rows = ParseCsv(csv);
        Assert.Equal(["group", "size", "path", "hardlink_of"], rows[0]);
        var fromCsv = rows.Skip(1).Select(r => r[2]).Order(StringComparer.Ordinal).ToList();
        Assert.Equal(exact, fromCsv);

        // Paths are absolute, so no CSV field can start a spreadsheet formula even for names such as "=cmd.bin".
        Assert.All(rows.Skip(1), r => Assert.StartsWith("/", r[2], StringComparison.Ordinal));
    }

    [LinuxFact]
    public async Task Scan_errors_on_stderr_show_escaped_names()
    {
        using var tree = new TempTree();
        tree.Write("names/x.bin", Content);
        tree.Symlink(tree.PathOf("names"), tree.PathOf("names/loop\n\u001b[31m"));

        var (_, _, stderr) = await RunCliAsync("find", tree.Root, "--follow-symlinks");

        AssertPrintable(stderr);
        Assert.Contains($"dedup: {tree.Root}/names/loop\\n\\e[31m: ", stderr, StringComparison.Ordinal);
    }

    [LinuxFact]
    public async Task Skipped_and_left_out_files_on_stderr_show_escaped_names()
    {
        using var tree = new TempTree();
        tree.Write("a/plain.bin", Content);
        var changed = tree.Write("b/skip\n\u001b[31m.bin", Content);
        var shrunk = tree.Write("c/gone\r\u202E.bin", Content);
        await RunCliAsync("find", tree.Root, "--format", "json", "-o", tree.PathOf("report.json"));

        // Same size, other bytes: the report's identity no longer matches (modification time), so it is left out.
        var other = (byte[])Content.Clone();
        other[100] ^= 0xFF;
        File.WriteAllBytes(changed, other);
        File.WriteAllBytes(shrunk, Content[..10]);

        var (_, stdout, stderr) = await RunCliAsync("delete", "--from-report", tree.PathOf("report.json"), "--keep", "prefix:" + tree.PathOf("a"), "--yes");

        AssertPrintable(stdout);
        AssertPrintable(stderr);
        Assert.Contains($"dedup: left out {tree.Root}/b/skip\\n\\e[31m.bin: modified since the report", stderr, StringComparison.Ordinal);
        Assert.Contains($"{tree.Root}/c/gone\\r\\u{{202E}}.bin", stderr, StringComparison.Ordinal);
        Assert.Equal(other, File.ReadAllBytes(changed));
    }

    [LinuxFact]
    public async Task Library_plan_actions_and_scan_errors_show_escaped_names()
    {
        using var tree = MakeTree(out var files);
        tree.Symlink(tree.PathOf("names"), tree.PathOf("names/loop\n\u001b[31m"));
        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.PathOf("names")).FollowSymbolicLinks());
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().Plan(groups);

        var writer = new StringWriter(CultureInfo.InvariantCulture) { NewLine = "\n" };
        plan.WriteTo(writer);
        var text = writer.ToString();

        AssertPrintable(text);
        foreach (var (_, shown) in files)
        {
            Assert.Contains(shown, text, StringComparison.Ordinal);
        }

        Assert.All(plan.Actions, a => AssertPrintable(a.ToString()));
        Assert.Contains(plan.Actions, a => a.ToString().Contains(tree.Root + @"/names/\e[31mred.bin", StringComparison.Ordinal));
        var loop = Assert.Single(summary.Errors);
        Assert.Equal(tree.PathOf("names/loop\n\u001b[31m"), loop.Path);
        AssertPrintable(loop.ToString());
        Assert.StartsWith(tree.Root + @"/names/loop\n\e[31m: ", loop.ToString(), StringComparison.Ordinal);
    }

    /// <summary>A tree with every name of <see cref="Names"/> under <c>names/</c>, all with the same content; <paramref name="files"/> pairs each exact path with its expected display.</summary>
    private static TempTree MakeTree(out List<(string Path, string Shown)> files)
    {
        var tree = new TempTree();
        files = [];
        foreach (var (name, shown) in Names)
        {
            files.Add((tree.Write("names/" + name, Content), tree.Root + "/names/" + shown));
        }

        return tree;
    }

    /// <summary>No control character other than the line feeds between lines, no C1 control, no invisible format character.</summary>
    private static void AssertPrintable(string output)
    {
        for (var i = 0; i < output.Length; i++)
        {
            var c = output[i];
            var bad = (c < ' ' && c != '\n') || c == '\u007f' || c is >= '\u0080' and <= '\u009f' || char.IsSurrogate(c)
                || CharUnicodeInfo.GetUnicodeCategory(c) == UnicodeCategory.Format;
            Assert.False(bad, $"raw U+{(int)c:X4} at {i} in: {output}");
        }
    }

    /// <summary>RFC 4180 rows: quoted fields may hold commas, quotes (doubled) and line breaks.</summary>
    private static List<string[]> ParseCsv(string text)
    {
        var rows = new List<string[]>();
        var row = new List<string>();
        var field = new StringBuilder();
        var quoted = false;
        for (var i = 0; i < text.Length; i++)
        {
            var c = text[i];
            if (quoted)
            {
                if (c == '"' && i + 1 < text.Length && text[i + 1] == '"')
                {
                    field.Append('"');
                    i++;
                }
                else if (c == '"')
                {
                    quoted = false;
                }
                else
                {
                    field.Append(c);
                }
            }
            else if (c == '"')
            {
                quoted = true;
            }
            else if (c == ',')
            {
                row.Add(field.ToString());
                field.Clear();
            }
            else if (c == '\n' || (c == '\r' && i + 1 < text.Length && text[i + 1] == '\n'))
            {
                i += c == '\r' ? 1 : 0;
                row.Add(field.ToString());
                field.Clear();
                rows.Add([.. row]);
                row.Clear();
            }
            else
            {
                field.Append(c);
            }
        }

        return rows;
    }

    private static async Task<(int ExitCode, string Stdout, string Stderr)> RunCliAsync(params string[] args)
    {
        var dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? RequiresToolFactAttribute.FindOnPath("dotnet") ?? "dotnet";
        var result = await ProcessRunner.RunAsync(dotnet, [Path.Combine(AppContext.BaseDirectory, "dedup.dll"), .. args]);
        Assert.True(result.ExitCode is 0 or 1, $"dedup {string.Join(' ', args)}: exit code {result.ExitCode}; stderr: {result.Stderr}");
        return result;
    }
}
