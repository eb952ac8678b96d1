using System.Text;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Undo;

/// <summary>
/// The crash tests' findings, each pinned to one exact moment: a run killed on entry to its Nth rename (strace injects
/// SIGKILL, so the action's begun line is written and its step is not made), then <c>dedup undo</c>. The tree must be as
/// before and nothing the journal accounts for may be left: not the killed action's temporary file, not its trash info file.
/// </summary>
public sealed class UndoKilledAtStepTests
{
    [LinuxFact(RequiresRoot = true, Tool = "strace")]
    public Task A_hard_link_run_killed_at_its_third_rename_is_undone_without_the_killed_actions_temporary_link() =>
        KillAtRenameThenUndoAsync(UndoKind.Hard, 3);

    [LinuxFact(RequiresRoot = true, Tool = "strace")]
    public Task A_trash_run_killed_at_its_third_move_is_undone_without_the_killed_moves_info_file() =>
        KillAtRenameThenUndoAsync(UndoKind.Trash, 3);

    [LinuxFact(RequiresRoot = true, Tool = "strace")]
    public Task A_symbolic_link_run_killed_at_its_first_rename_is_undone_without_its_temporary_link() =>
        KillAtRenameThenUndoAsync(UndoKind.Symbolic, 1);

    private static async Task KillAtRenameThenUndoAsync(UndoKind kind, int rename)
    {
        using var world = UndoWorld.Create(null, seed: 101, WorldShape.Small);
        var before = world.Manifest();
        var kill = await KilledRun.AtSyscallAsync(kind.ActionArguments(world), world.Environment, kind.StepSyscall, rename);
        Assert.True(kill.Killed, $"{kind} run not killed {kill.Moment}: exit {kill.ExitCode}: {kill.Output}");
        Assert.Equal(rename, JournalLines.Begun(world.Journal).Count);

        var undo = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);

        var failures = new StringBuilder();
        UndoCrashTests.Judge(world, before, $"{kind} run killed {kill.Moment}", [undo], failures, Killed.Action);
        Assert.True(failures.Length == 0, failures.ToString());
    }
}
