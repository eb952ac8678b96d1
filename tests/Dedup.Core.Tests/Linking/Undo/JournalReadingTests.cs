using Dedup.Core.Linking;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Undo;

/// <summary>
/// A journal read back for undo: a line a kill cut short is ignored with a note (undo still restores the rest), any
/// other damage stops undo with the line's number, and a version 1 run is said to be beyond undo.
/// </summary>
public sealed class JournalReadingTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, 382);

    [LinuxFact]
    public async Task A_torn_last_line_is_ignored_with_a_note_and_undo_goes_on()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var journal = logs.PathOf("journal.jsonl");
        await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, tree.PathOf("data"));
        await File.AppendAllTextAsync(journal, "{\"version\":2,\"time\":\"2026-11-30T00:00:00Z\",\"status\":\"beg");

        var plan = UndoPlan.Create(journal);

        Assert.Equal(["line 4 was cut short (an interrupted write) and is ignored"], plan.Notes);
        Assert.Equal(UndoOutcome.Restored, Assert.Single((await plan.ApplyAsync()).Outcomes).Outcome);
        Assert.NotEqual(TestNative.Inode(a), TestNative.Inode(b));
        // Undo's own line starts on a line of its own: the journal reads again, the torn line now in the middle.
        var again = UndoPlan.Create(journal);
        Assert.Equal("already restored", Assert.Single(again.Steps).Note);
        Assert.Equal(["line 4 was cut short (an interrupted write) and is ignored"], again.Notes);
    }

    [Fact]
    public void A_damaged_line_in_the_middle_stops_undo_naming_the_line()
    {
        using var logs = new TempTree();
        var journal = logs.Write("journal.jsonl", """
            {"version":2,"time":"2026-11-30T00:00:00Z","status":"run","run":"0123456789abcdef0123456789abcdef","kind":"hardLink","roots":[]}
            {"version":2,"status":"begun" oops}
            {"version":2,"time":"2026-11-30T00:00:00Z","status":"done","run":"0123456789abcdef0123456789abcdef","kind":"hardLink","path":"/x","kept":"/y","bytes":1}

            """);

        var error = Assert.Throws<InvalidDataException>(() => UndoPlan.Create(journal));

        Assert.StartsWith($"{journal}: line 2 is not a journal line: not a JSON object", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_begun_line_without_what_undo_needs_names_the_field_and_the_line()
    {
        using var logs = new TempTree();
        var journal = logs.Write("journal.jsonl", """
            {"version":2,"time":"t","status":"begun","run":"r","seq":1,"kind":"hardLink","path":"/data/b.bin"}

            """);

        var error = Assert.Throws<InvalidDataException>(() => UndoPlan.Create(journal));

        Assert.Equal($"{journal}: line 1 is not a journal line: no object \"before\"", error.Message);
    }

    [Theory]
    [InlineData("/data/../etc/b.bin")]
    [InlineData("data/b.bin")]
    [InlineData("/data/./b.bin")]
    [InlineData("/data//b.bin")]
    [InlineData("/data/b.bin/..")]
    public void A_path_that_is_not_plainly_absolute_is_refused_with_its_line(string path)
    {
        using var logs = new TempTree();
        var journal = logs.Write("journal.jsonl", "{\"version\":2,\"status\":\"begun\",\"run\":\"r\",\"seq\":1,\"kind\":\"hardLink\",\"before\":{\"device\":1,\"inode\":1,\"size\":1,\"mtimeNs\":1},\"path\":\"" + path + "\"}\n");

        var error = Assert.Throws<InvalidDataException>(() => UndoPlan.Create(journal));

        Assert.Equal($"{journal}: line 1 is not a journal line: \"path\" is not an absolute path without . or .. ({path})", error.Message);
    }

    [Fact]
    public void A_version_1_run_is_noted_as_beyond_undo_and_has_no_steps()
    {
        using var logs = new TempTree();
        var journal = logs.Write("journal.jsonl", """
            {"version":1,"time":"2026-11-30T00:00:00Z","status":"done","kind":"hardLink","path":"/d/b","kept":"/d/a","bytes":5}
            {"version":1,"time":"2026-11-30T00:00:00Z","status":"skipped","kind":"hardLink","path":"/d/c","kept":"/d/a","bytes":0,"reason":"r"}
            {"version":1,"time":"2026-11-30T00:00:00Z","status":"done","kind":"hardLink","path":"/d/e","kept":"/d/a","bytes":5}

            """);

        var plan = UndoPlan.Create(journal);

        Assert.Empty(plan.Steps);
        Assert.Equal(["lines 1-3: logged before format 2 (2 actions done); cannot be undone"], plan.Notes);
    }

    [Fact]
    public void A_newer_format_is_refused_rather_than_guessed()
    {
        using var logs = new TempTree();
        var journal = logs.Write("journal.jsonl", "{\"version\":3,\"status\":\"run\"}\n");

        var error = Assert.Throws<InvalidDataException>(() => UndoPlan.Create(journal));

        Assert.Contains("line 1 is not a journal line: format version 3 is not one this dedup reads", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_cut_short_line_is_told_apart_from_a_damaged_one()
    {
        Assert.True(JournalReader.IsTorn("{\"version\":2,\"pa"u8));
        Assert.True(JournalReader.IsTorn("{\"version\":2,"u8));
        Assert.True(JournalReader.IsTorn("{"u8));
        Assert.False(JournalReader.IsTorn("{\"version\":2 x"u8));
        Assert.False(JournalReader.IsTorn("garbage"u8));
    }
}
