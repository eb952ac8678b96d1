using System.Globalization;
using System.Text;
using System.Text.Json;
using Dedup.Cli.Acting;
using Dedup.Core;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Tests.Infrastructure;
using Spectre.Console;

namespace Dedup.Cli.Tests.Acting;

/// <summary>
/// The <c>--log</c> journal's outcome line of each action, on real actions (its fields, the exact bytes of a name that
/// is not UTF-8, nothing reclaimed for an action not done), appending to an existing log, and <see cref="ActionLog"/>:
/// -v, progress and the plan preview of the confirmation prompt. EverydayToolTests covers the same through the CLI process.
/// </summary>
public sealed class ActionLogTests
{
    private static readonly byte[] One = TempTree.RandomBytes(3000, seed: 71);
    private static readonly byte[] Two = TempTree.RandomBytes(5000, seed: 72);

    [LinuxFact]
    public async Task Each_done_action_is_one_flushed_json_line_with_what_was_linked_to_what()
    {
        using var tree = new TempTree();
        var keptOne = tree.Write("a/1.bin", One);
        var copyOne = tree.Write("b/1.bin", One);
        var keptTwo = tree.Write("a/2.bin", Two);
        var copyTwo = tree.Write("b/2.bin", Two);
        var before = DateTime.UtcNow;

        var lines = await ApplyLoggedAsync(tree, Linkers.HardLink);

        Assert.Equal(2, lines.Length);
        var byPath = lines.ToDictionary(line => line.GetProperty("path").GetString()!);
        foreach (var (copy, kept, size) in new[] { (copyOne, keptOne, One.Length), (copyTwo, keptTwo, Two.Length) })
        {
            var line = byPath[copy];
            Assert.Equal(["version", "time", "status", "run", "seq", "kind", "path", "kept", "bytes", "parentMtimeNs"], line.EnumerateObject().Select(p => p.Name));
            Assert.Equal(ActionJournal.FormatVersion, line.GetProperty("version").GetInt32());
            Assert.Equal(2, ActionJournal.FormatVersion);
            var time = DateTime.Parse(line.GetProperty("time").GetString()!, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind);
            Assert.Equal(DateTimeKind.Utc, time.Kind);
            Assert.InRange(time, before, DateTime.UtcNow);
            Assert.Equal("done", line.GetProperty("status").GetString());
            Assert.Equal("hardLink", line.GetProperty("kind").GetString());
            Assert.Equal(kept, line.GetProperty("kept").GetString());
            Assert.Equal(size, line.GetProperty("bytes").GetInt64());
        }

        // The folder's modification time the last step left, which undo compares the folder with (100 ns: what .NET reads).
        var left = lines.Max(line => line.GetProperty("parentMtimeNs").GetInt64());
        Assert.Equal((File.GetLastWriteTimeUtc(Path.GetDirectoryName(copyOne)!) - DateTime.UnixEpoch).Ticks, left / 100);
    }

    [LinuxFact]
    public async Task An_action_refused_at_apply_time_logs_its_reason_and_no_bytes()
    {
        using var tree = new TempTree();
        tree.Write("a/1.bin", One);
        var copy = tree.Write("b/1.bin", One);
        var changed = (byte[])One.Clone();

        var line = Assert.Single(await ApplyLoggedAsync(tree, Linkers.Delete, () =>
        {
            changed[^1] ^= 0xFF;
            File.WriteAllBytes(copy, changed); // after the scan; same size, other bytes: re-verification refuses
        }));

        Assert.Equal(copy, line.GetProperty("path").GetString());
        Assert.Equal("delete", line.GetProperty("kind").GetString());
        Assert.NotEqual("done", line.GetProperty("status").GetString());
        Assert.Equal(0, line.GetProperty("bytes").GetInt64());
        Assert.False(string.IsNullOrWhiteSpace(line.GetProperty("reason").GetString()));
        Assert.Equal(changed, File.ReadAllBytes(copy));
    }

    [LinuxFact]
    public async Task A_name_that_is_not_utf8_is_logged_with_its_exact_bytes()
    {
        using var tree = new TempTree();
        var kept = tree.Write("a/1.bin", One);
        byte[] raw = [.. Encoding.UTF8.GetBytes(tree.PathOf("b") + "/"), (byte)'x', 0xFF, (byte)'.', (byte)'b', (byte)'i', (byte)'n'];
        Directory.CreateDirectory(tree.PathOf("b"));
        ExactNames.WriteFile(raw, One);

        var line = Assert.Single(await ApplyLoggedAsync(tree, Linkers.HardLink));

        Assert.Equal(raw, Convert.FromBase64String(line.GetProperty("pathBytes").GetString()!));
        Assert.Equal(kept, line.GetProperty("kept").GetString());
        Assert.False(line.TryGetProperty("keptBytes", out _)); // a UTF-8 name needs no bytes beside it
    }

    [Fact]
    public async Task The_log_file_is_appended_to_never_replaced()
    {
        using var tree = new TempTree();
        var log = tree.Write("actions.log", "{\"earlier\":1}\n");

        using (var journal = ActionJournal.Open(log))
        {
            var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).UseJournal(journal).Build().Plan([]);
            await plan.ApplyAsync(); // a run without actions writes nothing
            Assert.Equal(log, journal.Path);
        }

        Assert.Equal("{\"earlier\":1}\n", await File.ReadAllTextAsync(log));
        using var files = new TempTree();
        files.Write("a/1.bin", One);
        files.Write("b/1.bin", One);
        using (var journal = ActionJournal.Open(log))
        {
            await (await PlanAsync(files, Linkers.Delete, journal)).ApplyAsync();
        }

        var lines = await File.ReadAllLinesAsync(log);
        Assert.Equal("{\"earlier\":1}", lines[0]);
        Assert.Equal(["run", "begun", "done"], lines.Skip(1).Select(l => JsonDocument.Parse(l).RootElement.GetProperty("status").GetString()));
    }

    [Fact]
    public void Without_a_log_or_a_display_a_report_writes_nothing_and_does_not_fail()
    {
        var log = new ActionLog(null, verbose: null);

        log.Report(new ApplyProgress { Total = 1 });
    }

    [LinuxFact]
    public async Task The_preview_shows_the_first_lines_and_says_how_many_more_there_are()
    {
        using var tree = new TempTree();
        for (var i = 0; i < 4; i++)
        {
            var content = TempTree.RandomBytes(1000 + i, seed: 80 + i);
            tree.Write($"a/{i}.bin", content);
            tree.Write($"b/{i}.bin", content);
        }

        var plan = await PlanAsync(tree, Linkers.Delete);
        using var writer = new StringWriter();
        plan.WriteTo(writer);
        var all = writer.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);

        var preview = ActionLog.Preview(plan, 2).Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries);

        Assert.Equal(["  " + all[0], "  " + all[1], $"  … {all.Length - 2} more lines: run the same command with --dry-run to see the whole plan"], preview);
        Assert.Equal(all.Select(line => "  " + line), ActionLog.Preview(plan, all.Length).Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries));
    }

    [LinuxFact]
    public async Task Verbose_prints_each_outcome_after_clearing_the_progress_line_which_is_drawn_after_it()
    {
        using var tree = new TempTree();
        tree.Write("a/1.bin", One);
        var copy = tree.Write("b/1.bin", One);
        var plan = await PlanAsync(tree, Linkers.Delete);
        var terminal = new StringWriter();
        var console = AnsiConsole.Create(new AnsiConsoleSettings { Ansi = AnsiSupport.Yes, ColorSystem = ColorSystemSupport.NoColors, Out = new AnsiConsoleOutput(terminal) });
        var verbose = new StringWriter();

        await plan.ApplyAsync(new ActionLog(new ApplyProgressDisplay(console), verbose));

        var outcome = Assert.Single(verbose.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains(copy, outcome, StringComparison.Ordinal);
        var drawn = WithoutStyles(terminal.ToString());
        Assert.StartsWith("\r\u001b[2K\r\u001b[2Kapplying 1/1  done 1", drawn, StringComparison.Ordinal); // cleared for the outcome, then redrawn
    }

    [LinuxFact]
    public async Task Quiet_prints_no_outcome()
    {
        using var tree = new TempTree();
        tree.Write("a/1.bin", One);
        tree.Write("b/1.bin", One);
        var plan = await PlanAsync(tree, Linkers.Delete);
        var terminal = new StringWriter();
        var console = AnsiConsole.Create(new AnsiConsoleSettings { Ansi = AnsiSupport.Yes, ColorSystem = ColorSystemSupport.NoColors, Out = new AnsiConsoleOutput(terminal) });

        await plan.ApplyAsync(new ActionLog(new ApplyProgressDisplay(console), verbose: null));

        var drawn = WithoutStyles(terminal.ToString());
        Assert.DoesNotContain(tree.Root, drawn, StringComparison.Ordinal); // the progress line names no file
        Assert.StartsWith("\r\u001b[2Kapplying 1/1  done 1", drawn, StringComparison.Ordinal);
    }

    private static string WithoutStyles(string drawn) => System.Text.RegularExpressions.Regex.Replace(drawn, "\u001b\\[[0-9;]*m", string.Empty);

    private static async Task<DuplicateActionPlan> PlanAsync(TempTree tree, Linker linker, ActionJournal? journal = null)
    {
        var groups = new List<DuplicateGroup>();
        await foreach (var group in new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync())
        {
            groups.Add(group);
        }

        var builder = new DuplicateActionPlanBuilder().UseLinker(linker);
        return (journal is null ? builder : builder.UseJournal(journal)).Build().Plan(groups);
    }

    /// <summary>The outcome lines of the journal (not its run and begun lines), read before it is disposed: each flushed as its action completed.</summary>
    private static async Task<JsonElement[]> ApplyLoggedAsync(TempTree tree, Linker linker, Action? afterPlanning = null)
    {
        using var logs = new TempTree();
        var path = logs.PathOf("actions.jsonl");
        string text;
        using (var journal = ActionJournal.Open(path))
        {
            var plan = await PlanAsync(tree, linker, journal);
            afterPlanning?.Invoke();
            await plan.ApplyAsync();
            using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
            using var reader = new StreamReader(stream, Encoding.UTF8);
            text = await reader.ReadToEndAsync();
        }

        Assert.EndsWith("\n", text, StringComparison.Ordinal);
        return text.Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Select(line => JsonDocument.Parse(line).RootElement.Clone())
            .Where(line => line.GetProperty("status").GetString() is "done" or "skipped" or "failed")
            .ToArray();
    }
}
