using Dedup.Core.Linking;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Journal;

/// <summary>Begun lines on the test file systems: clone and dedupe on btrfs, an inode flag on ext4.</summary>
[Collection(SmallFsCollection.Name)]
public sealed class JournalFileSystemTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(200_000, 9);

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs for FICLONE")]
    public async Task Clone_records_the_clone_as_what_the_name_becomes()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        using var logs = new TempTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        TestNative.SetXattr(b, "user.origin", "camera"u8.ToArray());
        Assert.Equal(0, TestNative.FileStatusOf(b, out var before));
        var path = logs.PathOf("journal.jsonl");

        using (var journal = ActionJournal.Open(path))
        {
            Assert.Equal(1, (await JournalText.Plan(await tree.ScanAsync(), Linkers.Clone, journal).ApplyAsync()).Done);
        }

        var begun = JournalText.Begun(JournalText.Read(path));
        Assert.Equal("clone", begun.Text("kind"));
        JournalText.AssertFile(begun.GetProperty("before"), before);
        Assert.Equal("camera"u8.ToArray(), begun.GetProperty("before").GetProperty("xattrs").GetProperty("user.origin").GetBytesFromBase64());
        Assert.Equal(0, TestNative.FileStatusOf(b, out var clone));
        Assert.NotEqual(before.Ino, clone.Ino);
        JournalText.AssertFile(begun.GetProperty("after"), clone);
    }

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs for FIDEDUPERANGE")]
    public async Task Dedupe_records_the_same_file_before_and_after()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        using var logs = new TempTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        Assert.Equal(0, TestNative.FileStatusOf(b, out var before));
        var path = logs.PathOf("journal.jsonl");
        string[]? atStep = null;

        using (var journal = ActionJournal.Open(path))
        {
            var plan = JournalText.Plan(await tree.ScanAsync(), Linkers.Dedupe, journal);
            plan.Faults = new Dedup.Core.Linking.Execution.LinkerFaults { AfterLastCheck = _ => atStep = JournalText.Statuses(JournalText.Read(path)) };
            Assert.Equal(1, (await plan.ApplyAsync()).Done);
        }

        Assert.Equal(["run", "begun"], atStep!);
        var begun = JournalText.Begun(JournalText.Read(path));
        Assert.Equal("dedupe", begun.Text("kind"));
        JournalText.AssertFile(begun.GetProperty("before"), before);
        JournalText.AssertFile(begun.GetProperty("after"), before);
        Assert.Equal(before.Ino, TestNative.Inode(b));
    }

    [FactRequiringFolder("DEDUP_TEST_SMALLFS", "a mounted ext4 for chattr flags")]
    public async Task An_inode_flag_such_as_nodump_is_recorded()
    {
        using var tree = new LinkTree(LinkTree.SmallMount);
        using var logs = new TempTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        TempTree.Run("chattr", "+d", b);
        var path = logs.PathOf("journal.jsonl");

        using (var journal = ActionJournal.Open(path))
        {
            Assert.Equal(1, (await JournalText.Plan(await tree.ScanAsync(), Linkers.Delete, journal).ApplyAsync()).Done);
        }

        var flags = JournalText.Begun(JournalText.Read(path)).GetProperty("before").Number("flags");
        Assert.Equal(0x40, flags & 0x40); // FS_NODUMP_FL
    }
}
