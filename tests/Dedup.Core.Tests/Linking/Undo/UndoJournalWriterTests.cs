using System.Text.Json.Nodes;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Undo;

/// <summary>
/// Undo's own lines (<see cref="UndoJournalWriter"/>): appended after whatever the journal holds, on a line of their
/// own after a torn line, one undo at a time per journal.
/// </summary>
public sealed class UndoJournalWriterTests
{
    private static JournalStep Step(long seq) => new()
    {
        Run = "run-1",
        Seq = seq,
        Kind = UndoKinds.HardLink,
        Path = "/x/b.bin",
        Before = new JournalBefore(new JournalFile(1, 2, 3, 4), 0x81A4, 0, 0, 0, 0, []),
        Line = 2,
    };

    [LinuxFact]
    public void An_undone_line_is_appended_after_the_journal_with_the_identity_given_to_the_name()
    {
        using var tree = new TempTree();
        var journal = tree.Write("journal.jsonl", "{\"first\":1}\n{\"second\":2}\n");
        File.SetUnixFileMode(journal, UnixFileMode.UserRead | UnixFileMode.UserWrite);

        using (var writer = new UndoJournalWriter(journal, endsWithNewline: true))
        {
            writer.Undone(Step(7), 2049, 123456789012);
            File.AppendAllText(journal, "{\"other\":3}\n"); // another writer between two of undo's lines
            writer.Undone(Step(8), 5, 6);
        }

        var lines = File.ReadAllLines(journal);
        Assert.Equal(["{\"first\":1}", "{\"second\":2}"], lines[..2]);
        Assert.Equal("{\"other\":3}", lines[3]);
        Assert.Equal(5, lines.Length);
        var line = (JsonObject)JsonNode.Parse(lines[2])!;
        Assert.Equal(2, (int)line["version"]!);
        Assert.Equal("undone", (string?)line["status"]);
        Assert.Equal("run-1", (string?)line["run"]);
        Assert.Equal(7, (long)line["seq"]!);
        Assert.Equal(2049UL, (ulong)line["restored"]!["device"]!);
        Assert.Equal(123456789012UL, (ulong)line["restored"]!["inode"]!);
        Assert.True(DateTime.TryParseExact((string?)line["time"], "O", System.Globalization.CultureInfo.InvariantCulture, System.Globalization.DateTimeStyles.RoundtripKind, out var time));
        Assert.Equal(DateTimeKind.Utc, time.Kind);
        Assert.Equal(8, (long)((JsonObject)JsonNode.Parse(lines[4])!)["seq"]!);
        Assert.EndsWith("\n", File.ReadAllText(journal), StringComparison.Ordinal);
    }

    [LinuxFact]
    public void After_a_torn_last_line_undos_first_line_starts_on_a_line_of_its_own_and_only_the_first()
    {
        using var tree = new TempTree();
        var journal = tree.Write("journal.jsonl", "{\"whole\":1}\n{\"torn\":");
        File.SetUnixFileMode(journal, UnixFileMode.UserRead | UnixFileMode.UserWrite);

        using (var writer = new UndoJournalWriter(journal, endsWithNewline: false))
        {
            writer.Undone(Step(1), 1, 2);
            writer.Undone(Step(2), 1, 3);
        }

        var lines = File.ReadAllLines(journal);
        Assert.Equal(4, lines.Length);
        Assert.Equal("{\"torn\":", lines[1]);
        Assert.Equal(1, (long)JsonNode.Parse(lines[2])!["seq"]!);
        Assert.Equal(2, (long)JsonNode.Parse(lines[3])!["seq"]!);
    }

    [LinuxFact]
    public void A_second_undo_on_the_same_journal_is_refused_until_the_first_is_done_and_leaks_nothing()
    {
        using var tree = new TempTree();
        var journal = tree.Write("journal.jsonl", "{}\n");
        File.SetUnixFileMode(journal, UnixFileMode.UserRead | UnixFileMode.UserWrite);

        using (var first = new UndoJournalWriter(journal, endsWithNewline: true))
        {
            var refused = Assert.Throws<InvalidOperationException>(() => new UndoJournalWriter(journal, endsWithNewline: true));
            Assert.Equal($"another dedup undo is running on the journal {journal}; nothing was changed (run it again once that one has finished)", refused.Message);
            Assert.Equal([journal], OpenDescriptors.Under(tree.Root, includeRoot: false)); // the refused one closed its descriptor
        }

        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
        using var again = Reopen(journal);
        again.Undone(Step(1), 1, 2);
        Assert.Equal(2, File.ReadAllLines(journal).Length);
    }

    /// <summary>
    /// The lock is the open file description's: a process another test forks in the same moment holds a copy of the
    /// descriptor until its exec closes it, so the lock may outlive our close by that long. A few tries, no timing.
    /// </summary>
    private static UndoJournalWriter Reopen(string journal)
    {
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                return new UndoJournalWriter(journal, endsWithNewline: true);
            }
            catch (InvalidOperationException) when (attempt < 100)
            {
                Thread.Sleep(10);
            }
        }
    }

    [LinuxFact]
    public void A_journal_another_user_can_write_is_refused_before_undo_writes_to_it()
    {
        using var tree = new TempTree();
        var journal = tree.Write("journal.jsonl", "{}\n");
        File.SetUnixFileMode(journal, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.OtherWrite);

        var refused = Assert.Throws<UnauthorizedAccessException>(() => new UndoJournalWriter(journal, endsWithNewline: true));
        Assert.Contains("every user can write it", refused.Message, StringComparison.Ordinal);
        Assert.Equal("{}\n", File.ReadAllText(journal));
    }
}
