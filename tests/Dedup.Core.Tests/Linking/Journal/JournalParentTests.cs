using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Journal;

/// <summary>
/// Issue #38, folders' times: every <c>begun</c> line records its name's folder (identity and times) as the journal
/// knew it right before the step, every outcome of a begun step the modification time the step left it with. The first
/// step in a folder holds the folder's times from before the run; the next one in the same folder starts from what the
/// previous one left (the run does not look at the folder again for it).
/// </summary>
public sealed class JournalParentTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, 3801);
    private static readonly byte[] Other = TempTree.RandomBytes(20_000, 3802);

    [LinuxFact]
    public async Task Each_step_records_its_folder_before_it_and_its_outcome_the_time_it_left()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("data/a.bin", Content);
        tree.Write("data/b.bin", Content);
        tree.Write("data/c.bin", Other);
        tree.Write("data/d.bin", Other);
        var folder = tree.PathOf("data");
        TempTree.Run("touch", "-m", "-d", "@1577934245.123456789", folder);
        var groups = await tree.ScanAsync();
        Assert.Equal(0, TestNative.FileStatusOf(folder, out var before));
        var path = logs.PathOf("journal.jsonl");

        using (var journal = ActionJournal.Open(path))
        {
            Assert.Equal(2, (await JournalText.Plan(groups, Linkers.HardLink, journal).ApplyAsync()).Done);
        }

        Assert.Equal(0, TestNative.FileStatusOf(folder, out var after));
        var lines = JournalText.Read(path);
        Assert.Equal(["run", "begun", "done", "begun", "done"], JournalText.Statuses(lines));
        var (first, firstDone, second, secondDone) = (lines[1].GetProperty("parent"), lines[2], lines[3].GetProperty("parent"), lines[4]);
        Assert.Equal(before.Device, first.Unsigned("device"));
        Assert.Equal(before.Ino, first.Unsigned("inode"));
        Assert.Equal(1_577_934_245_123_456_789, first.Number("mtimeNs"));
        Assert.Equal((before.AtimeSec * 1_000_000_000L) + before.AtimeNsec, first.Number("atimeNs"));
        Assert.NotEqual(first.Number("mtimeNs"), firstDone.Number("parentMtimeNs"));
        Assert.Equal(firstDone.Number("parentMtimeNs"), second.Number("mtimeNs"));
        Assert.Equal(before.Ino, second.Unsigned("inode"));
        Assert.Equal(after.LastWriteTimeNs, secondDone.Number("parentMtimeNs"));
    }
}
