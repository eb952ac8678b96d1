using System.Text;
using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Linking.Journal;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Journal;

/// <summary>
/// Issue #38 point 1: each kind of action writes, before its step, a <c>begun</c> line with what undo needs (the
/// duplicate's identity, size, mode, owner, times in ns, extended attributes; the kept file; what the name becomes),
/// after the run's line and before the outcome line that carries the same seq.
/// </summary>
public sealed class JournalLineTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(50_000, 38);

    private const long Mtime = 1_577_934_245_123_456_789; // 2020-01-02, ns digits all significant
    private const long Atime = 1_500_000_000_987_654_321; // older than the mtime: reading the file moves it (relatime)

    [LinuxFact]
    public async Task Hard_link_writes_ahead_the_duplicate_as_it_was_and_the_kept_file_it_becomes()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        File.SetUnixFileMode(a, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead);
        File.SetUnixFileMode(b, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead);
        TempTree.Run("touch", "-m", "-d", "@1577934245.123456789", b);
        TestNative.SetXattr(b, "user.note", "kept me"u8.ToArray());
        var groups = await tree.ScanAsync();
        TempTree.Run("touch", "-a", "-d", "@1500000000.987654321", b); // after the scan, which reads the file
        Assert.Equal(0, TestNative.FileStatusOf(b, out var before));
        Assert.Equal(0, TestNative.FileStatusOf(a, out var kept));
        var path = logs.PathOf("journal.jsonl");

        using (var journal = ActionJournal.Open(path))
        {
            Assert.Equal(1, (await JournalText.Plan(groups, Linkers.HardLink, journal).ApplyAsync()).Done);
        }

        var lines = JournalText.Read(path);
        Assert.Equal(["run", "begun", "done"], JournalText.Statuses(lines));
        Assert.All(lines, l => Assert.Equal(2, l.Number("version")));
        Assert.All(lines, l => Assert.Equal(lines[0].Text("run"), l.Text("run")));
        Assert.Matches("^[0-9a-f]{32}$", lines[0].Text("run"));
        Assert.Equal("hardLink", lines[0].Text("kind"));
        var begun = lines[1];
        Assert.Equal(1, begun.Number("seq"));
        Assert.Equal("hardLink", begun.Text("kind"));
        Assert.Equal(b, begun.Text("path"));
        Assert.Equal(a, begun.Text("kept"));
        JournalText.AssertFile(begun.GetProperty("keptFile"), kept);
        var was = begun.GetProperty("before");
        JournalText.AssertFile(was, before);
        Assert.Equal(Mtime, was.Number("mtimeNs"));
        Assert.Equal(Atime, was.Number("atimeNs")); // as at the first check, before the byte comparison read the file
        Assert.Equal(0x8000 | 0x1A0, was.Number("mode")); // S_IFREG | 0640
        Assert.Equal(before.Uid, (uint)was.Number("uid"));
        Assert.Equal(before.Gid, (uint)was.Number("gid"));
        Assert.Equal("kept me", Encoding.UTF8.GetString(was.GetProperty("xattrs").GetProperty("user.note").GetBytesFromBase64()));
        JournalText.AssertFile(begun.GetProperty("after"), kept);
        Assert.Equal(kept.Ino, TestNative.Inode(b));
        Assert.Equal(1, lines[2].Number("seq"));
        Assert.Equal(Content.Length, lines[2].Number("bytes"));
    }

    [LinuxFact]
    public async Task Symbolic_link_records_the_link_text_and_the_new_link_as_what_the_name_becomes()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("sub/b.bin", Content);
        Assert.Equal(0, TestNative.FileStatusOf(b, out var before));
        var path = logs.PathOf("journal.jsonl");

        using (var journal = ActionJournal.Open(path))
        {
            Assert.Equal(1, (await JournalText.Plan(await tree.ScanAsync(), Linkers.SymbolicLink(), journal).ApplyAsync()).Done);
        }

        var begun = JournalText.Begun(JournalText.Read(path));
        Assert.Equal("symbolicLink", begun.Text("kind"));
        Assert.Equal("../a.bin", begun.Text("target"));
        JournalText.AssertFile(begun.GetProperty("before"), before);
        Assert.Equal(0, TestNative.FileStatusOf(b, out var link));
        Assert.True(link.IsSymbolicLink);
        JournalText.AssertFile(begun.GetProperty("after"), link);
    }

    [LinuxFact]
    public async Task Delete_records_no_after_and_trash_records_where_the_file_went()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        tree.Write("c.bin", Content);
        var d = tree.Write("d.bin", Content);
        Assert.Equal(0, TestNative.FileStatusOf(b, out var deleted));
        Assert.Equal(0, TestNative.FileStatusOf(d, out var trashed));
        var groups = await tree.ScanAsync();
        var trash = tree.PathOf("home-trash");
        var path = logs.PathOf("journal.jsonl");

        using (var journal = ActionJournal.Open(path))
        {
            var deletes = groups.Select(g => g with { Files = g.Files.Where(f => !f.Path.Name.StartsWith('c') && !f.Path.Name.StartsWith('d')).ToArray() });
            Assert.Equal(1, (await JournalText.Plan(deletes, Linkers.Delete, journal).ApplyAsync()).Done);
            var trashes = groups.Select(g => g with { Files = g.Files.Where(f => f.Path.Name.StartsWith('c') || f.Path.Name.StartsWith('d')).ToArray() });
            Assert.Equal(1, (await JournalText.Plan(trashes, new TrashLinker(trash), journal).ApplyAsync()).Done);
        }

        var lines = JournalText.Read(path);
        Assert.Equal(["run", "begun", "done", "run", "begun", "done"], JournalText.Statuses(lines));
        Assert.NotEqual(lines[0].Text("run"), lines[3].Text("run"));
        Assert.Equal(1, lines[4].Number("seq")); // seq counts per run
        Assert.Equal(["delete", "trash"], new[] { lines[0], lines[3] }.Select(l => l.Text("kind")));

        var delete = lines[1];
        Assert.Equal("delete", delete.Text("kind"));
        JournalText.AssertFile(delete.GetProperty("before"), deleted);
        Assert.False(delete.TryGetProperty("after", out _));
        Assert.False(delete.TryGetProperty("trash", out _));

        var moved = lines[4];
        Assert.Equal("trash", moved.Text("kind"));
        JournalText.AssertFile(moved.GetProperty("before"), trashed);
        Assert.False(moved.TryGetProperty("after", out _));
        var where = moved.GetProperty("trash");
        Assert.Equal(trash, where.Text("root"));
        Assert.Equal("d.bin", where.Text("files"));
        Assert.Equal("d.bin.trashinfo", where.Text("info"));
        Assert.Equal(trashed.Ino, TestNative.Inode(Path.Combine(trash, "files", where.Text("files"))));
        Assert.True(File.Exists(Path.Combine(trash, "info", where.Text("info"))));
    }

    [LinuxFact]
    public async Task The_run_line_names_every_scanned_root_with_its_identity()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("one/a.bin", Content);
        tree.Write("two/b.bin", Content);
        var path = logs.PathOf("journal.jsonl");

        using (var journal = ActionJournal.Open(path))
        {
            var groups = await tree.ScanAsync(tree.PathOf("one"), tree.PathOf("two"));
            await JournalText.Plan(groups, Linkers.Delete, journal).ApplyAsync();
        }

        var roots = JournalText.Read(path)[0].GetProperty("roots").EnumerateArray().ToList();
        Assert.Equal([tree.PathOf("one"), tree.PathOf("two")], roots.Select(r => r.Text("path")).Order(StringComparer.Ordinal));
        foreach (var root in roots)
        {
            Assert.Equal(0, TestNative.FileStatusOf(root.Text("path"), out var status));
            Assert.Equal(status.Ino, root.Unsigned("inode"));
            Assert.Equal(status.Device, root.Unsigned("device"));
            Assert.False(root.TryGetProperty("file", out _));
        }
    }

    [LinuxFact]
    public async Task A_root_that_is_a_file_is_marked_with_its_folder()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var path = logs.PathOf("journal.jsonl");

        using (var journal = ActionJournal.Open(path))
        {
            Assert.Equal(1, (await JournalText.Plan(await tree.ScanAsync(a, b), Linkers.Delete, journal).ApplyAsync()).Done);
        }

        var roots = JournalText.Read(path)[0].GetProperty("roots").EnumerateArray().ToList();
        Assert.Equal([a, b], roots.Select(r => r.Text("path")));
        Assert.Equal(0, TestNative.FileStatusOf(tree.Root, out var folder));
        Assert.All(roots, r => Assert.True(r.GetProperty("file").GetBoolean()));
        Assert.All(roots, r => Assert.Equal(folder.Ino, r.Unsigned("folderInode")));
        Assert.All(roots, r => Assert.Equal(folder.Device, r.Unsigned("folderDevice")));
    }

    [LinuxFact]
    public async Task Every_extended_attribute_is_recorded_whole_an_empty_one_included()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var large = TempTree.RandomBytes(3000, 5);
        TestNative.SetXattr(b, "user.empty", []);
        TestNative.SetXattr(b, "user.large", large);
        TestNative.SetXattr(b, "user.small", [7]);
        var path = logs.PathOf("journal.jsonl");

        using (var journal = ActionJournal.Open(path))
        {
            Assert.Equal(1, (await JournalText.Plan(await tree.ScanAsync(), Linkers.Delete, journal).ApplyAsync()).Done);
        }

        var xattrs = JournalText.Begun(JournalText.Read(path)).GetProperty("before").GetProperty("xattrs");
        Assert.Equal(["user.empty", "user.large", "user.small"], xattrs.EnumerateObject().Select(x => x.Name).Where(n => n.StartsWith("user.", StringComparison.Ordinal)).Order(StringComparer.Ordinal));
        Assert.Empty(xattrs.GetProperty("user.empty").GetBytesFromBase64());
        Assert.Equal(large, xattrs.GetProperty("user.large").GetBytesFromBase64());
        Assert.Equal([7], xattrs.GetProperty("user.small").GetBytesFromBase64());
    }

    [LinuxFact]
    public async Task A_name_that_is_not_utf8_gets_its_exact_bytes()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        tree.Write("a.bin", Content);
        byte[] name = [.. "b"u8, 0xFF, .. ".bin"u8];
        var b = Path.Combine(tree.Root, KernelNames.GetString(name));
        JournalText.WriteRaw(b, Content);
        var path = logs.PathOf("journal.jsonl");

        using (var journal = ActionJournal.Open(path))
        {
            Assert.Equal(1, (await JournalText.Plan(await tree.ScanAsync(), Linkers.Delete, journal).ApplyAsync()).Done);
        }

        var lines = JournalText.Read(path);
        var begun = JournalText.Begun(lines);
        Assert.Equal([.. Encoding.UTF8.GetBytes(tree.Root + "/"), .. name], begun.GetProperty("pathBytes").GetBytesFromBase64());
        Assert.False(begun.TryGetProperty("keptBytes", out _)); // a.bin is UTF-8
        Assert.Equal(begun.Text("pathBytes"), lines[2].Text("pathBytes"));
    }

    [LinuxFact]
    public async Task A_journal_that_cannot_be_written_stops_the_run_before_any_action()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        using var journal = ActionJournal.Open("/dev/full"); // every write fails with ENOSPC
        var plan = JournalText.Plan(await tree.ScanAsync(), Linkers.Delete, journal);

        await Assert.ThrowsAsync<IOException>(async () => await plan.ApplyAsync());

        Assert.True(File.Exists(b));
    }

    [LinuxFact]
    public async Task A_cancelled_run_ends_with_one_interrupted_line_written_by_the_executor()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        for (var i = 0; i < 4; i++)
        {
            tree.Write($"f{i}.bin", Content);
        }

        var path = logs.PathOf("journal.jsonl");
        using var cancel = new CancellationTokenSource();
        using (var journal = ActionJournal.Open(path))
        {
            var plan = JournalText.Plan(await tree.ScanAsync(), Linkers.Delete, journal);
            var progress = new SynchronousProgress(_ => cancel.Cancel());
            var cancelled = await Assert.ThrowsAsync<ActionsCancelledException>(async () => await plan.ApplyAsync(progress, cancel.Token));
            Assert.Equal(2, cancelled.Report!.NotStarted.Count);
        }

        var lines = JournalText.Read(path);
        Assert.Equal(["run", "begun", "done", "interrupted"], JournalText.Statuses(lines));
        Assert.Equal(1, lines[3].Number("done"));
        Assert.Equal(2, lines[3].Number("notStarted"));
        Assert.Equal(0, lines[3].Number("bytes"));
        Assert.Equal("interrupted: 1 done, 2 not started", lines[3].Text("reason"));
    }

    private sealed class SynchronousProgress(Action<ApplyProgress> report) : IProgress<ApplyProgress>
    {
        public void Report(ApplyProgress value) => report(value);
    }
}
