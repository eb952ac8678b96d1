using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Journal;

/// <summary>
/// Write-ahead: the <c>begun</c> line is in the journal file after the action's last check and before the step that
/// changes the name (read from inside the fault hooks: not there before the last check, there while the name is unchanged).
/// </summary>
public sealed class JournalWriteAheadTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, 381);

    [LinuxTheory]
    [InlineData("hard")]
    [InlineData("symbolic")]
    public async Task A_replacement_is_logged_after_the_last_check_and_before_the_rename(string kind)
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var inode = TestNative.Inode(b);
        var path = logs.PathOf("journal.jsonl");
        string[]? beforeChecks = null;
        List<System.Text.Json.JsonElement>? atStep = null;
        ulong nameAtStep = 0;

        using (var journal = ActionJournal.Open(path))
        {
            var plan = JournalText.Plan(await tree.ScanAsync(), kind == "hard" ? Linkers.HardLink : Linkers.SymbolicLink(), journal);
            plan.Faults = new LinkerFaults
            {
                BeforeRename = (_, _) => beforeChecks = JournalText.Statuses(JournalText.Read(path)),
                AfterLastCheck = duplicate =>
                {
                    atStep = JournalText.Read(path);
                    nameAtStep = TestNative.Inode(duplicate);
                },
            };
            Assert.Equal(1, (await plan.ApplyAsync()).Done);
        }

        Assert.Equal(["run"], beforeChecks!);
        Assert.Equal(["run", "begun"], JournalText.Statuses(atStep!));
        Assert.Equal(inode, nameAtStep);
        Assert.Equal(inode, atStep![1].GetProperty("before").Unsigned("inode"));
        Assert.NotEqual(inode, TestNative.Inode(b));
    }

    [LinuxFact]
    public async Task A_trash_move_is_logged_after_its_info_file_and_last_check_and_before_the_move()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var path = logs.PathOf("journal.jsonl");
        string[]? atInfo = null;
        List<System.Text.Json.JsonElement>? atStep = null;
        var infoThere = false;
        var nameThere = false;

        using (var journal = ActionJournal.Open(path))
        {
            var plan = JournalText.Plan(await tree.ScanAsync(), new TrashLinker(tree.PathOf("home-trash")), journal);
            plan.Faults = new LinkerFaults
            {
                BeforeTrashMove = (_, _) => atInfo = JournalText.Statuses(JournalText.Read(path)),
                AfterLastCheck = _ =>
                {
                    atStep = JournalText.Read(path);
                    var trash = atStep.Last().GetProperty("trash");
                    infoThere = File.Exists(Path.Combine(trash.Text("root"), "info", trash.Text("info")));
                    nameThere = File.Exists(b);
                },
            };
            Assert.Equal(1, (await plan.ApplyAsync()).Done);
        }

        Assert.Equal(["run"], atInfo!);
        Assert.Equal(["run", "begun"], JournalText.Statuses(atStep!));
        Assert.True(infoThere);
        Assert.True(nameThere);
        Assert.False(File.Exists(b));
    }

    [LinuxFact]
    public async Task A_delete_is_logged_after_the_last_check_and_before_the_unlink()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var path = logs.PathOf("journal.jsonl");
        string[]? beforeChecks = null;
        string[]? atStep = null;
        var nameThere = false;

        using (var journal = ActionJournal.Open(path))
        {
            var plan = JournalText.Plan(await tree.ScanAsync(), Linkers.Delete, journal);
            plan.Faults = new LinkerFaults
            {
                BeforeDelete = _ => beforeChecks = JournalText.Statuses(JournalText.Read(path)),
                AfterLastCheck = _ =>
                {
                    atStep = JournalText.Statuses(JournalText.Read(path));
                    nameThere = File.Exists(b);
                },
            };
            Assert.Equal(1, (await plan.ApplyAsync()).Done);
        }

        Assert.Equal(["run"], beforeChecks!);
        Assert.Equal(["run", "begun"], atStep!);
        Assert.True(nameThere);
    }

    [LinuxFact]
    public async Task A_check_that_stops_the_action_writes_no_begun_line_and_the_outcome_has_no_seq()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var path = logs.PathOf("journal.jsonl");

        using (var journal = ActionJournal.Open(path))
        {
            var plan = JournalText.Plan(await tree.ScanAsync(), Linkers.HardLink, journal);
            plan.Faults = new LinkerFaults { BeforeRename = (_, _) => File.AppendAllText(b, "late write") };
            Assert.Equal(1, (await plan.ApplyAsync()).Skipped);
        }

        var lines = JournalText.Read(path);
        Assert.Equal(["run", "skipped"], JournalText.Statuses(lines));
        Assert.False(lines[1].TryGetProperty("seq", out _));
        Assert.Contains("changed", lines[1].Text("reason"), StringComparison.Ordinal);
        Assert.Equal("hardLink", lines[1].Text("kind"));
        Assert.Equal(b, lines[1].Text("path"));
        Assert.Equal(tree.PathOf("a.bin"), lines[1].Text("kept"));
        Assert.Equal(0, lines[1].Number("bytes"));
        var time = DateTime.Parse(lines[1].Text("time"), System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.RoundtripKind);
        Assert.Equal(DateTimeKind.Utc, time.Kind);
        Assert.InRange(time, DateTime.UtcNow.AddHours(-1), DateTime.UtcNow);
    }
}
