using Dedup.Core.Linking;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Journal;

/// <summary>The journal file itself: appended to by every writer at once, never overwritten.</summary>
public sealed class JournalFileTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(3_000, 77);

    [LinuxFact]
    public async Task Two_journals_open_on_one_file_each_append_at_its_end()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("one/a.bin", Content);
        tree.Write("one/b.bin", Content);
        tree.Write("two/a.bin", Content);
        tree.Write("two/b.bin", Content);
        var path = logs.Write("journal.jsonl", "{\"earlier\":1}\n");

        // Both opened before either writes (two dedup processes sharing one log): neither may write over the other's lines.
        using (var first = ActionJournal.Open(path))
        using (var second = ActionJournal.Open(path))
        {
            Assert.Equal(1, (await JournalText.Plan(await tree.ScanAsync(tree.PathOf("one")), Linkers.Delete, first).ApplyAsync()).Done);
            Assert.Equal(1, (await JournalText.Plan(await tree.ScanAsync(tree.PathOf("two")), Linkers.Delete, second).ApplyAsync()).Done);
        }

        var lines = File.ReadAllLines(path);
        Assert.Equal("{\"earlier\":1}", lines[0]);
        var journal = JournalText.Read(path).Skip(1).ToList();
        Assert.Equal(["run", "begun", "done", "run", "begun", "done"], JournalText.Statuses(journal));
        Assert.Equal([tree.PathOf("one/b.bin"), tree.PathOf("two/b.bin")], journal.Where(l => l.Text("status") == "begun").Select(l => l.Text("path")));
    }

    [LinuxFact]
    public async Task Run_and_begun_lines_are_synced_and_outcomes_only_flushed()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        tree.Write("c.bin", Content);
        using var journal = ActionJournal.Open(logs.PathOf("journal.jsonl"));

        Assert.Equal(2, (await JournalText.Plan(await tree.ScanAsync(), Linkers.Delete, journal).ApplyAsync()).Done);

        Assert.Equal(3, journal.DataSyncs); // the run line and two begun lines; not the two outcomes
        Assert.Equal(5, JournalText.Read(journal.Path).Count);
    }

    [LinuxFact]
    public async Task A_disposed_journal_stops_the_run_before_any_action()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var journal = ActionJournal.Open(logs.PathOf("journal.jsonl"));
        var plan = JournalText.Plan(await tree.ScanAsync(), Linkers.Delete, journal);
        journal.Dispose();

        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await plan.ApplyAsync());

        Assert.True(File.Exists(b));
        Assert.Empty(File.ReadAllBytes(logs.PathOf("journal.jsonl")));
    }

    [LinuxFact]
    public void A_journal_in_a_missing_folder_cannot_be_opened()
    {
        using var logs = new TempTree();

        var error = Assert.Throws<IOException>(() => ActionJournal.Open(logs.PathOf("missing/journal.jsonl")));

        Assert.Contains("No such file", error.Message, StringComparison.Ordinal);
        Assert.False(Directory.Exists(logs.PathOf("missing")));
    }
}
