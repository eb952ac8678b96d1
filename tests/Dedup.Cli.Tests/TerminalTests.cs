using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests;

/// <summary>
/// The real CLI on a terminal (a pseudo-terminal from util-linux's <c>script</c>): the prompt shows the plan, and the
/// progress line follows NO_COLOR and TERM=dumb.
/// </summary>
public sealed class TerminalTests
{
    private const string Bold = "\u001b[1m";
    private const string ClearLine = "\u001b[2K";

    [RequiresToolFact("script")]
    public async Task The_prompt_shows_the_plan_and_no_changes_nothing()
    {
        using var tree = new TempTree();
        tree.Write("d/a", "same");
        tree.Write("d/b", "same");

        var (exit, output) = await OnTerminalAsync($"printf 'n\\n' | script -qec \"{Command("delete", tree.PathOf("d"))}\" /dev/null", "xterm", noColor: false);

        Assert.Equal(4, exit); // declined at the prompt: not a file error (1)
        Assert.Contains($"delete {tree.PathOf("d/b")} (frees 4 bytes)", output, StringComparison.Ordinal);
        Assert.True(output.IndexOf("delete " + tree.PathOf("d/b"), StringComparison.Ordinal) < output.IndexOf("Apply? [y/N]", StringComparison.Ordinal), output);
        Assert.Contains("dedup: nothing done", output, StringComparison.Ordinal);
        Assert.True(File.Exists(tree.PathOf("d/a")) && File.Exists(tree.PathOf("d/b")));
    }

    [RequiresToolFact("script")]
    public async Task Progress_is_bold_on_a_terminal_plain_under_NO_COLOR_and_a_single_final_line_under_TERM_dumb()
    {
        using var tree = new TempTree();
        tree.Write("d/a", "same");
        tree.Write("d/b", "same");
        var find = $"script -qec \"{Command("find", tree.PathOf("d"), "-o", tree.PathOf("r.txt"))}\" /dev/null";

        var (_, styled) = await OnTerminalAsync(find, "xterm", noColor: false);
        var (_, plain) = await OnTerminalAsync(find, "xterm", noColor: true);
        var (_, dumb) = await OnTerminalAsync(find, "dumb", noColor: false);

        Assert.Contains(Bold, styled, StringComparison.Ordinal);
        Assert.DoesNotContain(Bold, plain, StringComparison.Ordinal);
        Assert.Contains("done in", plain, StringComparison.Ordinal);
        Assert.DoesNotContain(ClearLine, dumb, StringComparison.Ordinal);
        Assert.DoesNotContain("Completed", dumb, StringComparison.Ordinal); // no live line, only the final one
        Assert.Contains("done in", dumb, StringComparison.Ordinal);
    }

    private static string Command(params string[] args) =>
        string.Join(' ', new[] { CliProcess.Dotnet, CliProcess.Dll }.Concat(args).Select(a => "'" + a.Replace("'", "'\\''", StringComparison.Ordinal) + "'"));

    private static async Task<(int ExitCode, string Output)> OnTerminalAsync(string shell, string term, bool noColor)
    {
        var environment = new Dictionary<string, string> { ["TERM"] = term, ["NO_COLOR"] = noColor ? "1" : string.Empty };
        var (exit, stdout, stderr) = await ProcessRunner.RunAsync("bash", ["-c", shell], environment: environment);
        return (exit, stdout + stderr);
    }
}
