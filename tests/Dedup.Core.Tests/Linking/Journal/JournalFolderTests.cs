using Dedup.Core.Linking;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Tests.Folders;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Journal;

/// <summary>A folder action is one run: a begun line per file, then per symbolic link removed and per folder removed.</summary>
public sealed class JournalFolderTests
{
    private static readonly byte[] One = TempTree.RandomBytes(5_000, 1);
    private static readonly byte[] Two = TempTree.RandomBytes(6_000, 2);

    [LinuxFact]
    public async Task Deleting_a_folder_logs_its_files_its_link_and_its_folders_in_one_run()
    {
        using var tree = new TempTree();
        using var logs = new TempTree();
        foreach (var root in new[] { "a_kept", "b_copy" })
        {
            tree.Write($"{root}/album/01.mp3", One);
            tree.Write($"{root}/cover.jpg", Two);
            Directory.CreateDirectory(tree.PathOf($"{root}/empty"));
            tree.Symlink("album/01.mp3", $"{root}/first.mp3");
        }

        TestNative.SetXattr(tree.PathOf("b_copy/empty"), "user.folder", [1, 2, 3]);
        var privileged = Environment.IsPrivilegedProcess;
        if (privileged)
        {
            TestNative.SetXattr(tree.PathOf("b_copy/first.mp3"), "trusted.dedup-test", [9]); // a link's own attribute (user.* cannot be set on a link)
        }

        var (_, _, scan) = await FolderScanRun.RunAsync(tree);
        Assert.Equal(0, TestNative.FileStatusOf(tree.PathOf("b_copy/first.mp3"), out var link));
        Assert.Equal(0, TestNative.FileStatusOf(tree.PathOf("b_copy/empty"), out var empty));
        Assert.Equal(0, TestNative.FileStatusOf(tree.PathOf("b_copy"), out var copy));
        var path = logs.PathOf("journal.jsonl");

        using (var journal = ActionJournal.Open(path))
        {
            var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).UseJournal(journal).Build().PlanFolders(scan.FolderGroups);
            Assert.Equal(1, (await plan.ApplyAsync()).Done);
        }

        Assert.False(Directory.Exists(tree.PathOf("b_copy")));
        var lines = JournalText.Read(path);
        Assert.Equal("run", lines[0].Text("status"));
        Assert.Single(lines, l => l.Text("status") == "run");
        Assert.All(lines, l => Assert.Equal(lines[0].Text("run"), l.Text("run")));
        var begun = lines.Where(l => l.Text("status") == "begun").ToList();
        Assert.Equal(Enumerable.Range(1, begun.Count), begun.Select(l => (int)l.Number("seq")));
        Assert.Equal(
            ["delete", "delete", "removeLink", "removeFolder", "removeFolder", "removeFolder"],
            begun.Select(l => l.Text("kind")));
        Assert.Equal(
            [tree.PathOf("b_copy/first.mp3"), tree.PathOf("b_copy/empty"), tree.PathOf("b_copy/album"), tree.PathOf("b_copy")],
            begun.Skip(2).Select(l => l.Text("path")));

        var removedLink = begun[2];
        Assert.Equal("album/01.mp3", removedLink.Text("target"));
        Assert.Equal(link.Ino, removedLink.GetProperty("before").Unsigned("inode"));
        Assert.Equal(0xA000, removedLink.GetProperty("before").Number("mode") & 0xF000);
        Assert.False(removedLink.TryGetProperty("kept", out _));
        Assert.Equal(privileged, removedLink.GetProperty("before").TryGetProperty("xattrs", out var linkXattrs));
        if (privileged)
        {
            Assert.Equal([9], linkXattrs.GetProperty("trusted.dedup-test").GetBytesFromBase64());
        }


        var removedEmpty = begun[3].GetProperty("before");
        Assert.Equal(empty.Ino, removedEmpty.Unsigned("inode"));
        Assert.Equal(empty.Mode, removedEmpty.Number("mode"));
        Assert.Equal([1, 2, 3], removedEmpty.GetProperty("xattrs").GetProperty("user.folder").GetBytesFromBase64());
        Assert.Equal(copy.Ino, begun[5].GetProperty("before").Unsigned("inode"));

        // Each file's outcome carries its begun line's seq; the removals have no outcome line of their own.
        var outcomes = lines.Where(l => l.Text("status") == "done").ToList();
        Assert.Equal([1, 2], outcomes.Select(l => (int)l.Number("seq")));
    }
}
