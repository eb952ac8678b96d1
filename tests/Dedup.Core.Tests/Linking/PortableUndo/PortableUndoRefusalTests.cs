using System.Text.Json.Nodes;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking.Undo;

namespace Dedup.Core.Tests.Linking.PortableUndo;

/// <summary>
/// The portable undo engine's refusals that need no look at the disk, each from a real journal edited by one field:
/// an unknown or Linux-only kind, no run line, a name outside the run's roots (and, for a symbolic link only, its kept
/// file), no <c>after</c>, no kept file. Each says its reason and leaves the files as they are.
/// </summary>
public sealed class PortableUndoRefusalTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(70_000, 3802);
    private static readonly DateTime Seconds = new(2020, 1, 2, 3, 4, 5, DateTimeKind.Utc);

    [LinuxFact]
    public async Task An_unknown_kind_is_left_alone()
    {
        var outcome = await UndoEditedAsync(Linkers.HardLink, (begun, _) => begun["kind"] = "frobnicate");

        Assert.Equal((UndoOutcome.LeftAlone, "the action kind 'frobnicate' is not one undo knows"), (outcome.Outcome, outcome.Reason));
    }

    [LinuxFact]
    public async Task Without_its_run_line_nothing_is_done()
    {
        string? run = null;
        var outcome = await UndoEditedAsync(Linkers.HardLink, (begun, lines) =>
        {
            run = (string?)begun["run"];
            lines.RemoveAll(l => (string?)l["status"] == "run");
        });

        Assert.Equal((UndoOutcome.LeftAlone, $"no run line names the roots of run {run}; nothing is done outside a run's roots"), (outcome.Outcome, outcome.Reason));
    }

    [LinuxTheory]
    [InlineData("removeFolder", "removed folder")]
    [InlineData("removeLink", "removed link")]
    [InlineData("dedupe", "dedupe")]
    public async Task Folder_removals_and_dedupes_are_for_the_Linux_engine(string kind, string words)
    {
        var outcome = await UndoEditedAsync(Linkers.HardLink, (begun, _) => begun["kind"] = kind);

        Assert.Equal((UndoOutcome.LeftAlone, $"undo of a {words} is implemented for Linux only"), (outcome.Outcome, outcome.Reason));
    }

    [LinuxFact]
    public async Task A_name_outside_the_runs_roots_is_left_alone()
    {
        var outcome = await UndoEditedAsync(Linkers.HardLink, (_, lines) => RootsOf(lines)[0]!["path"] = "/nowhere-near");

        Assert.Equal((UndoOutcome.LeftAlone, "not inside the run's roots; nothing is done outside a run's roots"), (outcome.Outcome, outcome.Reason));
    }

    [LinuxFact]
    public async Task A_hard_links_kept_file_may_be_anywhere_but_a_symbolic_links_may_not()
    {
        var hard = await UndoEditedAsync(Linkers.HardLink, (begun, _) => begun["kept"] = "/nowhere-near/a.bin");
        var symbolic = await UndoEditedAsync(Linkers.SymbolicLink(), (begun, _) => begun["kept"] = "/nowhere-near/a.bin");

        Assert.True(hard.Outcome == UndoOutcome.Restored, hard.ToString());
        Assert.Equal((UndoOutcome.LeftAlone, "not inside the run's roots; nothing is done outside a run's roots"), (symbolic.Outcome, symbolic.Reason));
    }

    [LinuxFact]
    public async Task Without_an_after_nothing_is_copied()
    {
        var outcome = await UndoEditedAsync(Linkers.HardLink, (begun, _) => begun.Remove("after"));

        Assert.Equal((UndoOutcome.LeftAlone, "the journal does not say what the name led to after the action"), (outcome.Outcome, outcome.Reason));
    }

    [LinuxTheory]
    [InlineData("kept")]
    [InlineData("keptFile")]
    public async Task A_symbolic_link_without_its_kept_file_is_left_alone(string field)
    {
        var outcome = await UndoEditedAsync(Linkers.SymbolicLink(), (begun, _) => begun.Remove(field));

        Assert.Equal((UndoOutcome.LeftAlone, "the journal does not name the kept file the link leads to"), (outcome.Outcome, outcome.Reason));
    }

    [LinuxFact]
    public async Task A_symbolic_link_is_never_followed_here()
    {
        // Linux opens no link as itself (O_NOFOLLOW): the name reads as a reparse point, and is left for the Linux engine.
        var outcome = await UndoEditedAsync(Linkers.SymbolicLink(), (_, _) => { });

        Assert.Equal((UndoOutcome.LeftAlone, "a symbolic link or another reparse point is there now"), (outcome.Outcome, outcome.Reason));
    }

    /// <summary>data/b.bin acted on by <paramref name="linker"/>, its journal cut to the portable <c>before</c> and edited; the one undo outcome.</summary>
    private static async Task<UndoStepOutcome> UndoEditedAsync(Linker linker, Action<JsonObject, List<JsonObject>> edit)
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        File.SetLastWriteTimeUtc(a, Seconds);
        File.SetLastWriteTimeUtc(b, Seconds);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, linker, journal, tree.PathOf("data"))).Done);
        var lines = UndoFixtures.Lines(journal);
        var begun = UndoFixtures.Begun(lines);
        foreach (var field in new[] { "mode", "uid", "gid", "atimeNs", "flags", "xattrs" })
        {
            ((JsonObject)begun["before"]!).Remove(field);
        }

        edit(begun, lines);
        UndoFixtures.Write(journal, lines);
        UndoPlan.PortableOnLinux.Value = true;
        var plan = UndoPlan.Create(journal);
        return Assert.Single((await plan.ApplyAsync()).Outcomes);
    }

    private static JsonArray RootsOf(List<JsonObject> lines) => (JsonArray)lines.Single(l => (string?)l["status"] == "run")["roots"]!;
}
