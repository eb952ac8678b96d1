using System.Globalization;
using System.Text;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;
using Xunit.Abstractions;

namespace Dedup.Cli.Tests.Undo;

/// <summary>
/// Issue #38 point 3, with real SIGKILLs: a <c>dedup link</c> or <c>dedup delete --trash</c> run killed at a seeded
/// random moment, then <c>dedup undo LOG --yes</c>, gives back the tree exactly as it was before the run (the
/// <see cref="TreeManifest"/>: contents, modes, owners, modification times, extended attributes, inode flags; inode
/// numbers may differ); and a complete run whose undo is killed at a seeded random moment is undone by a second undo.
/// Half the kills are timed (when the journal has grown to a drawn line, plus a drawn spin of microseconds), half land
/// exactly on entry to the Nth rename (<c>strace</c> injects SIGKILL, so the step is exactly not made). Each iteration
/// logs its seed and moment; <c>UNDO_CRASH_SEED</c> and <c>UNDO_CRASH_ITERATIONS</c> replay or widen the search.
/// </summary>
public sealed class UndoCrashTests(ITestOutputHelper output)
{
    [LinuxFact(RequiresRoot = true, Tool = "strace")]
    public Task Hard_link_runs_killed_at_random_moments_are_undone_exactly() => ActionKilledAsync(null, UndoKind.Hard, seed: 3810);

    [LinuxFact(RequiresRoot = true, Tool = "strace")]
    public Task Symbolic_link_runs_killed_at_random_moments_are_undone_exactly() => ActionKilledAsync(null, UndoKind.Symbolic, seed: 3820);

    [LinuxFact(RequiresRoot = true, Tool = "strace")]
    public Task Trash_runs_killed_at_random_moments_are_undone_exactly() => ActionKilledAsync(null, UndoKind.Trash, seed: 3830);

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "reflink clones", RequiresRoot = true)]
    public Task Clone_runs_killed_at_random_moments_are_undone_exactly() => ActionKilledAsync(LinkTree.BtrfsMount, UndoKind.Clone, seed: 3840);

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "kernel dedupe", RequiresRoot = true)]
    public Task Dedupe_runs_killed_at_random_moments_are_undone_exactly() => ActionKilledAsync(LinkTree.BtrfsMount, UndoKind.Dedupe, seed: 3850);

    [LinuxFact(RequiresRoot = true, Tool = "strace")]
    public Task Undo_of_hard_links_killed_at_random_moments_is_finished_by_a_second_undo() => UndoKilledAsync(null, UndoKind.Hard, seed: 3860);

    [LinuxFact(RequiresRoot = true, Tool = "strace")]
    public Task Undo_of_symbolic_links_killed_at_random_moments_is_finished_by_a_second_undo() => UndoKilledAsync(null, UndoKind.Symbolic, seed: 3870);

    [LinuxFact(RequiresRoot = true, Tool = "strace")]
    public Task Undo_of_a_trash_run_killed_at_random_moments_is_finished_by_a_second_undo() => UndoKilledAsync(null, UndoKind.Trash, seed: 3880);

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "reflink clones", RequiresRoot = true)]
    public Task Undo_of_clones_killed_at_random_moments_is_finished_by_a_second_undo() => UndoKilledAsync(LinkTree.BtrfsMount, UndoKind.Clone, seed: 3890);

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "kernel dedupe", RequiresRoot = true)]
    public Task Undo_of_dedupe_killed_at_random_moments_is_finished_by_a_second_undo() => UndoKilledAsync(LinkTree.BtrfsMount, UndoKind.Dedupe, seed: 3900);

    private static int Iterations => int.TryParse(Environment.GetEnvironmentVariable("UNDO_CRASH_ITERATIONS"), CultureInfo.InvariantCulture, out var n) ? n : 6;

    private static int FirstSeed(int seed) => int.TryParse(Environment.GetEnvironmentVariable("UNDO_CRASH_SEED"), CultureInfo.InvariantCulture, out var s) ? s : seed;

    /// <summary>The action killed, then one undo: the tree is as before.</summary>
    private async Task ActionKilledAsync(string? baseFolder, UndoKind kind, int seed)
    {
        var failures = new StringBuilder();
        var kills = 0;
        for (var i = 0; i < Iterations; i++)
        {
            var iterationSeed = FirstSeed(seed) + i;
            var random = new Random(iterationSeed);
            using var world = UndoWorld.Create(baseFolder, iterationSeed, WorldShape.Crash);
            var before = world.Manifest();
            var action = kind.ActionArguments(world);
            var kill = i % 2 == 0
                ? await KilledRun.AtJournalLineAsync(action, world.Environment, world.Journal, random.Next(1, (2 * world.DuplicateNames) + 2), random.Next(0, 3000))
                : await KilledRun.AtSyscallAsync(action, world.Environment, kind.StepSyscall, random.Next(1, Math.Max(2, world.DuplicateNames * 3 / 4)));
            kills += kill.Killed ? 1 : 0;
            var context = $"seed {iterationSeed}, {kind} run killed {kill.Moment} ({(kill.Killed ? "killed" : $"not killed, exit {kill.ExitCode}")})";
            output.WriteLine(context);

            var undo = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);
            Judge(world, before, context, [undo], failures, Killed.Action);
        }

        output.WriteLine($"{kills} of {Iterations} runs killed");
        Assert.True(failures.Length == 0, failures.ToString());
        Assert.True(kills >= Iterations / 2, $"only {kills} of {Iterations} runs were killed: the kills tested little");
    }

    /// <summary>The action completes; its undo is killed; a second undo: the tree is as before.</summary>
    private async Task UndoKilledAsync(string? baseFolder, UndoKind kind, int seed)
    {
        var failures = new StringBuilder();
        var kills = 0;
        for (var i = 0; i < Iterations; i++)
        {
            var iterationSeed = FirstSeed(seed) + i;
            var random = new Random(iterationSeed);
            using var world = UndoWorld.Create(baseFolder, iterationSeed, WorldShape.Crash);
            var before = world.Manifest();
            var (exit, stdout, stderr) = await CliProcess.RunAsync(kind.ActionArguments(world), environment: world.Environment);
            Assert.True(exit is 0 or 1 && stderr.Contains("Unhandled", StringComparison.Ordinal) is false, $"seed {iterationSeed}: {kind} run exit {exit}: {stdout}{stderr}");
            var lines = File.ReadAllLines(world.Journal).Length;
            var steps = JournalLines.Begun(world.Journal).Count;
            string[] undoArgs = ["undo", world.Journal, "--yes"];
            var kill = i % 2 == 0
                ? await KilledRun.AtJournalLineAsync(undoArgs, world.Environment, world.Journal, lines + random.Next(1, steps + 1), random.Next(0, 3000))
                : await KilledRun.AtSyscallAsync(undoArgs, world.Environment, UndoKind.Renames, random.Next(1, Math.Max(2, steps * 3 / 4)));
            kills += kill.Killed ? 1 : 0;
            var context = $"seed {iterationSeed}, undo of {kind} killed {kill.Moment} ({(kill.Killed ? "killed" : $"not killed, exit {kill.ExitCode}: {kill.Output}")})";
            output.WriteLine(context);

            var undo = await CliProcess.RunAsync(undoArgs, environment: world.Environment);
            Judge(world, before, context, [undo], failures, Killed.Undo);
        }

        output.WriteLine($"{kills} of {Iterations} undo runs killed");
        Assert.True(failures.Length == 0, failures.ToString());
        Assert.True(kills >= Iterations / 2, $"only {kills} of {Iterations} undo runs were killed: the kills tested little");
    }

    /// <summary>
    /// The tree is as before (the manifest), no temporary file is left, the trash holds nothing the journal moved there,
    /// and the undo exited 0 without a crash; each broken promise is added to <paramref name="failures"/> with the context.
    /// </summary>
    /// <remarks>
    /// Without a kill (<paramref name="killed"/> null) no temporary file may be left. After a kill, one left behind fails
    /// the judgement when the journal accounts for it: in the folder of a begun line
    /// without an outcome (the action the kill interrupted after its line), or, after a killed undo, in the folder of any
    /// begun line (undo's own copy, whose bytes are those of a file the journal names). One the journal cannot account
    /// for (a kill between making a replacement and writing its begun line) may stay, but not without a word from undo.
    /// </remarks>
    internal static void Judge(UndoWorld world, TreeManifest before, string context, (int ExitCode, string Stdout, string Stderr)[] undos, StringBuilder failures, Killed? killed = null)
    {
        var after = world.Manifest();
        var problems = new StringBuilder();
        var last = undos[^1];
        if (last.ExitCode != 0 || last.Stderr.Contains("Unhandled", StringComparison.Ordinal))
        {
            problems.AppendLine(CultureInfo.InvariantCulture, $"  undo exit {last.ExitCode}");
        }

        problems.Append(after.DiffFrom(before));
        var owed = killed is { } kill ? FoldersOwed(world, kill == Killed.Undo) : null;
        var said = string.Concat(undos.Select(u => u.Stdout + u.Stderr));
        foreach (var temporary in after.Temporaries)
        {
            if (owed is null)
            {
                problems.AppendLine("  temporary file left: " + temporary);
            }
            else if (owed.Contains(temporary[..temporary.LastIndexOf('/')]))
            {
                problems.AppendLine("  temporary file left where the journal accounts for it: " + temporary);
            }
            else if (!said.Contains(temporary[(temporary.LastIndexOf('/') + 1)..], StringComparison.Ordinal))
            {
                problems.AppendLine("  temporary file left without a word: " + temporary);
            }
        }

        var trashed = world.TrashEntries().Where(e => e.StartsWith("files/", StringComparison.Ordinal) || JournalNamesInfo(world, e)).ToList();
        if (trashed.Count > 0)
        {
            problems.AppendLine("  left in the trash: " + string.Join(", ", trashed));
        }

        if (problems.Length > 0)
        {
            failures.AppendLine(context + ":").Append(problems);
            foreach (var (exitCode, stdout, stderr) in undos)
            {
                failures.AppendLine(CultureInfo.InvariantCulture, $"  undo (exit {exitCode}) said: {Shorten(stdout + stderr)}");
            }
        }
    }

    /// <summary>The folders (as manifest keys) where a leftover temporary file is one undo can prove and must remove.</summary>
    private static HashSet<string> FoldersOwed(UndoWorld world, bool undoKilled)
    {
        var folders = new HashSet<string>(StringComparer.Ordinal);
        if (!File.Exists(world.Journal))
        {
            return folders;
        }

        var lines = JournalLines.Read(world.Journal);
        var finished = lines.Where(l => l.GetProperty("status").GetString() is "done" or "skipped" or "failed" && l.TryGetProperty("seq", out _))
            .Select(l => (l.GetProperty("run").GetString(), l.GetProperty("seq").GetInt64())).ToHashSet();
        foreach (var line in lines.Where(l => l.GetProperty("status").GetString() == "begun"))
        {
            if (undoKilled || !finished.Contains((line.GetProperty("run").GetString(), line.GetProperty("seq").GetInt64())))
            {
                var name = RawFs.Show(JournalLines.PathBytes(line).AsSpan(RawFs.Bytes(world.Base).Length + 1));
                folders.Add(name[..name.LastIndexOf('/')]);
            }
        }

        return folders;
    }

    /// <summary>Whether an info/ entry is one a begun line of the journal names (an orphan the journal never knew of is not undo's).</summary>
    private static bool JournalNamesInfo(UndoWorld world, string entry) =>
        entry.StartsWith("info/", StringComparison.Ordinal) && File.Exists(world.Journal)
        && File.ReadAllText(world.Journal).Contains("\"info\":\"" + entry["info/".Length..] + "\"", StringComparison.Ordinal);

    private static string Shorten(string text)
    {
        text = text.Trim().Replace("\n", "\n    ", StringComparison.Ordinal);
        return text.Length <= 1500 ? text : text[..1500] + " …";
    }
}

/// <summary>Which run a kill ended, for <see cref="UndoCrashTests.Judge"/>.</summary>
internal enum Killed
{
    /// <summary>The action run (link, delete --trash) was killed, then undone once.</summary>
    Action,

    /// <summary>The action completed; its undo was killed, then run again.</summary>
    Undo,
}

/// <summary>An action kind the undo tests run: the arguments of its run and the system call of its step.</summary>
internal sealed class UndoKind(string name, string[] arguments, string stepSyscall)
{
    public string Name { get; } = name;

    public string[] Arguments { get; } = arguments;

    /// <summary>The system call of the step that changes the name (what a kill under strace lands on).</summary>
    public string StepSyscall { get; } = stepSyscall;

    /// <summary>Every rename call: glibc's renameat2 without flags is the renameat system call.</summary>
    public const string Renames = "rename,renameat,renameat2";

    public static UndoKind Hard { get; } = new("hard link", ["link", "--mode", "hard"], Renames);

    public static UndoKind Symbolic { get; } = new("symbolic link", ["link", "--mode", "symbolic"], Renames);

    public static UndoKind Clone { get; } = new("clone", ["link", "--mode", "clone"], Renames);

    public static UndoKind Dedupe { get; } = new("dedupe", ["link", "--mode", "dedupe"], "fdatasync");

    public static UndoKind Trash { get; } = new("trash", ["delete", "--trash"], Renames);

    public static UndoKind Delete { get; } = new("delete", ["delete"], "unlinkat");

    public string[] ActionArguments(UndoWorld world, params string[] more) => [.. Arguments, "--yes", "--log", world.Journal, .. more, world.Root];

    public override string ToString() => Name;
}
