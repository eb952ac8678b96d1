using System.Text.Json;
using System.Text.RegularExpressions;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests;

/// <summary>The real CLI as a sysadmin uses it: an audit log, each action printed, version, completion, man page.</summary>
public sealed partial class EverydayToolTests
{
    [LinuxFact]
    public async Task Log_has_one_json_line_per_action_and_verbose_prints_each()
    {
        using var tree = new TempTree();
        tree.Write("a", "same");
        tree.Write("b", "same");
        tree.Write("c", "same");
        tree.Write("line\nbreak", "other");
        tree.Write("copy", "other");
        var log = tree.PathOf("../" + Path.GetFileName(tree.Root) + ".jsonl");
        try
        {
            var (exit, stdout, stderr) = await CliProcess.RunAsync(["link", "--mode", "symbolic", "--yes", "-v", "--log", log, tree.Root]);

            Assert.True(exit == 0, stderr);
            Assert.Contains($"Done: SymbolicLink {tree.PathOf("b")} -> {tree.PathOf("a")}", stdout, StringComparison.Ordinal);
            Assert.Contains($"Done: SymbolicLink {tree.PathOf("line")}\\nbreak -> {tree.PathOf("copy")}", stdout, StringComparison.Ordinal);
            var all = (await File.ReadAllLinesAsync(log)).Select(l => JsonDocument.Parse(l).RootElement).ToArray();
            Assert.Equal(["run", "begun", "done", "begun", "done", "begun", "done"], all.Select(l => l.GetProperty("status").GetString()));
            var lines = all.Where(l => l.GetProperty("status").GetString() == "done").ToArray();
            Assert.All(lines, l => Assert.Equal("done", l.GetProperty("status").GetString()));
            Assert.All(lines, l => Assert.Equal("symbolicLink", l.GetProperty("kind").GetString()));

            // Enough to undo: each logged path is now a link to the logged kept file, names exact (no escaping).
            var odd = Assert.Single(lines, l => l.GetProperty("path").GetString() == tree.PathOf("line\nbreak"));
            Assert.Equal(tree.PathOf("copy"), odd.GetProperty("kept").GetString());
            Assert.Equal(5, odd.GetProperty("bytes").GetInt64());
            foreach (var line in lines)
            {
                var link = new FileInfo(line.GetProperty("path").GetString()!);
                Assert.Equal(line.GetProperty("kept").GetString(), Path.GetFullPath(link.LinkTarget!, tree.Root));
            }
        }
        finally
        {
            File.Delete(log);
        }
    }

    [Fact]
    public async Task Version_names_the_program()
    {
        var (exit, stdout, _) = await CliProcess.RunAsync(["--version"]);
        Assert.Equal(0, exit);
        Assert.Matches(VersionLine(), stdout.Trim());
    }

    [Theory]
    [InlineData("--version")]
    [InlineData("-v")]
    public async Task Version_is_the_one_in_version_txt_by_either_name(string option)
    {
        var (exit, stdout, stderr) = await CliProcess.RunAsync([option]);
        Assert.True(exit == 0, stderr);
        var version = File.ReadAllText(Path.Combine(RepositoryFiles.Root, "version.txt")).Trim();
        Assert.StartsWith($"dedup {version}", stdout.Trim(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Help_names_the_product_not_a_sample()
    {
        var (exit, stdout, _) = await CliProcess.RunAsync(["--help"]);
        Assert.Equal(0, exit);
        Assert.Contains("find duplicate files", stdout, StringComparison.Ordinal);
        Assert.DoesNotContain("sample", stdout, StringComparison.OrdinalIgnoreCase);
    }

    [LinuxFact]
    public async Task A_cache_that_is_not_a_regular_file_is_refused_in_one_line_and_nothing_is_created_beside_it()
    {
        using var tree = new TempTree();
        tree.Write("a", "same");
        tree.Write("b", "same");
        const string Journal = "/dev/null-journal";
        if (File.Exists(Journal))
        {
            File.Delete(Journal); // left by an older dedup (this bug); as root only, where it could be created again
        }

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["find", tree.Root, "--cache", "/dev/null"]);

        Assert.Equal(2, exit);
        Assert.Equal(string.Empty, stdout); // nothing scanned
        var line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("dedup: --cache: '/dev/null' is a character device, not a regular file", line, StringComparison.Ordinal);
        Assert.False(File.Exists(Journal));
    }

    [RequiresToolFact("bash")]
    public async Task Bash_completion_completes_commands_options_and_their_values()
    {
        using var tree = new TempTree();
        var (exit, script, _) = await CliProcess.RunAsync(["completion", "bash"]);
        Assert.Equal(0, exit);
        var file = tree.Write("dedup.bash", script);

        string Complete(string words, int index) => ProcessRunner.RunChecked(
            "bash", "-c", $"source '{file}'; COMP_WORDS=({words}); COMP_CWORD={index}; _dedup; echo \"${{COMPREPLY[*]}}\"").Trim();

        Assert.Equal("link", Complete("dedup li", 1));
        Assert.Equal("--min-size", Complete("dedup delete --min-s", 2));
        Assert.Equal("json", Complete("dedup find --format js", 3));
        Assert.Equal("clone", Complete("dedup link --mode cl", 3));
    }

    [Fact]
    public async Task The_man_page_documents_every_option_of_every_command()
    {
        var man = File.ReadAllText(Path.Combine(RepositoryFiles.Root, "docs", "dedup.1")).Replace("\\-", "-", StringComparison.Ordinal);
        var (_, script, _) = await CliProcess.RunAsync(["completion", "bash"]);
        // Every option the completion offers (it is generated from the command tree): the words="…" lists.
        var options = script.Split('\n').Where(l => l.Contains("words=\"", StringComparison.Ordinal))
            .SelectMany(l => OptionWord().Matches(l).Select(m => m.Value)).Distinct().ToArray();
        Assert.Contains("--min-size", options);
        Assert.Contains("--log", options);
        Assert.All(options.Where(o => o is not ("--help" or "-h")), o => Assert.Contains(o, man, StringComparison.Ordinal));
    }

    [GeneratedRegex(@"^dedup \d+\.\d+\.\d+( \([0-9a-f]+\))?$")]
    private static partial Regex VersionLine();

    [GeneratedRegex(@"(?<=[ ""])--?[a-z][a-z-]*(?=[ ""])")]
    private static partial Regex OptionWord();
}
