using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;

namespace Dedup.Cli.Tests.Acting;

/// <summary>
/// Issue #37 point 5, through the real process: a signal while <c>dedup link</c> acts on thousands of names ends it
/// with one line on stderr (<c>interrupted: N done, M not started; …</c>) and one <c>--log</c> entry, not one per name
/// not started, and with the exit code a shell gives the signal: 130 for SIGINT, 143 for SIGTERM.
/// </summary>
public sealed class InterruptTests
{
    private const int Copies = 3000;

    [LinuxTheory]
    [InlineData("INT", 130)]
    [InlineData("TERM", 143)]
    public async Task A_signal_while_linking_says_one_line_logs_one_entry_and_exits_with_the_signals_code(string signal, int exitCode)
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(500, 37);
        var kept = tree.Write("a.bin", content);
        var longName = new string('x', 200); // long -v lines: the output pipe fills long before the last action
        var copies = Enumerable.Range(0, Copies).Select(i => tree.Write($"copies/{i:D4}-{longName}.bin", content)).ToArray();
        var log = tree.PathOf("actions.jsonl");

        // Through env --default-signal: a test run started without job control inherits SIGINT ignored (see ReportFileTests).
        var start = new ProcessStartInfo("env") { RedirectStandardError = true, RedirectStandardOutput = true };
        foreach (var arg in new[] { "--default-signal=INT,TERM", CliProcess.Dotnet, CliProcess.Dll, "link", "--mode", "hard", "--yes", "--verbose", "--log", log, "--keep", "path-order", tree.Root })
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start)!;
        var stderr = process.StandardError.ReadToEndAsync();
        string? line;
        while ((line = await process.StandardOutput.ReadLineAsync()) is not null && !line.StartsWith("Done: HardLink", StringComparison.Ordinal))
        {
        }

        Assert.NotNull(line); // it is acting, and waits on the unread output well before the last action
        ProcessRunner.RunChecked("kill", "-" + signal, process.Id.ToString(CultureInfo.InvariantCulture));
        var stdout = await process.StandardOutput.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(120));
        await process.WaitForExitAsync(timeout.Token);

        var message = await stderr;
        Assert.True(process.ExitCode == exitCode, $"exit {process.ExitCode}: {message}");
        Assert.DoesNotContain("cancelled before this action", message, StringComparison.Ordinal);
        var linked = copies.Count(c => TestNative.Inode(c) == TestNative.Inode(kept));
        Assert.InRange(linked, 1, Copies - 1);
        Assert.Equal($"dedup: interrupted: {linked} done, {Copies - linked} not started; run the same command again to finish", Assert.Single(message.Split('\n', StringSplitOptions.RemoveEmptyEntries)));
        Assert.Contains($"{linked} done, 0 skipped, 0 failed", stdout, StringComparison.Ordinal);

        var entries = File.ReadAllLines(log).Select(l => JsonDocument.Parse(l).RootElement).ToArray();
        Assert.Equal(linked, entries.Count(e => e.GetProperty("status").GetString() == "done"));
        Assert.Equal(linked, entries.Count(e => e.GetProperty("status").GetString() == "begun"));
        Assert.Equal("run", entries[0].GetProperty("status").GetString());
        var interrupted = Assert.Single(entries, e => e.GetProperty("status").GetString() is not ("done" or "begun" or "run"));
        Assert.Equal("interrupted", interrupted.GetProperty("status").GetString());
        Assert.Equal((linked, Copies - linked), (interrupted.GetProperty("done").GetInt32(), interrupted.GetProperty("notStarted").GetInt32()));
        Assert.Equal("interrupted", entries[^1].GetProperty("status").GetString()); // the last line
    }
}
