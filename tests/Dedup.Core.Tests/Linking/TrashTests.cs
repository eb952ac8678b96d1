using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>The freedesktop.org trash: info file first, numeric suffixes on name collisions, percent-encoded paths.</summary>
public sealed class TrashTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, 3);

    [LinuxFact]
    public async Task Name_collisions_get_a_numeric_suffix_and_each_info_file_names_its_origin()
    {
        using var tree = new LinkTree();
        var home = tree.PathOf("home/Trash");
        tree.Write("keep/photo.jpg", Content);
        var first = tree.Write("x/photo.jpg", Content);
        var second = tree.Write("y z/photo.jpg", Content);
        Directory.CreateDirectory(Path.Combine(home, "files"));
        Directory.CreateDirectory(Path.Combine(home, "info"));
        await File.WriteAllTextAsync(Path.Combine(home, "info", "photo.jpg.trashinfo"), "[Trash Info]\nPath=/earlier\n");
        var earlier = Path.Combine(home, "files", "photo.jpg");
        await File.WriteAllTextAsync(earlier, "an earlier trashed file");
        var before = tree.Snapshot();
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("keep"), tree.PathOf("x"), tree.PathOf("y z")), new TrashLinker(home), KeepRule.PreferUnder(tree.PathOf("keep")));

        var report = await plan.ApplyAsync();

        Assert.Equal(2, report.Done);
        Assert.False(File.Exists(first));
        Assert.False(File.Exists(second));
        Assert.Equal("an earlier trashed file", await File.ReadAllTextAsync(earlier));
        Assert.Equal(Content, await File.ReadAllBytesAsync(Path.Combine(home, "files", "photo.2.jpg")));
        Assert.Equal(Content, await File.ReadAllBytesAsync(Path.Combine(home, "files", "photo.3.jpg")));
        var info2 = await File.ReadAllTextAsync(Path.Combine(home, "info", "photo.2.jpg.trashinfo"));
        var info3 = await File.ReadAllTextAsync(Path.Combine(home, "info", "photo.3.jpg.trashinfo"));
        Assert.StartsWith("[Trash Info]\nPath=" + first + "\nDeletionDate=", info2, StringComparison.Ordinal);
        Assert.Contains("Path=" + tree.PathOf("y%20z/photo.jpg") + "\n", info3, StringComparison.Ordinal);
        Assert.Matches("DeletionDate=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\n$", info3);
        LinkTree.AssertNoContentLost(before);
    }

    [LinuxFact]
    public async Task A_failure_after_the_info_file_is_written_removes_it_and_keeps_the_file()
    {
        using var tree = new LinkTree();
        var home = tree.PathOf("home/Trash");
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.Root), new TrashLinker(home));
        plan.Faults = new LinkerFaults { BeforeTrashMove = (info, _) => throw new IOException("injected after " + Path.GetFileName(info)) };

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Failed, outcome.Status);
        Assert.Equal("injected after b.bin.trashinfo", outcome.Reason);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.Empty(Directory.EnumerateFileSystemEntries(Path.Combine(home, "info")));
        Assert.Empty(Directory.EnumerateFileSystemEntries(Path.Combine(home, "files")));
    }

    [LinuxFact]
    public async Task Info_files_of_interrupted_trashings_are_removed_before_the_trash_is_used_and_nothing_else()
    {
        using var tree = new LinkTree();
        var home = tree.PathOf("home/Trash");
        var info = Path.Combine(home, "info");
        var files = Path.Combine(home, "files");
        Directory.CreateDirectory(info);
        Directory.CreateDirectory(files);
        var old = DateTime.UtcNow.AddMinutes(-3);
        var stillThere = tree.Write("data/still-there.bin", Content);
        string Ours(string path) => "[Trash Info]\nPath=" + path + "\nDeletionDate=2026-01-02T03:04:05\n";
        string Info(string name, string content, DateTime? time = null, bool withFile = false)
        {
            var path = Path.Combine(info, name + ".trashinfo");
            File.WriteAllText(path, content);
            File.SetLastWriteTimeUtc(path, time ?? old);
            if (withFile)
            {
                File.WriteAllText(Path.Combine(files, name), "trashed " + name);
            }

            return path;
        }

        // As a killed run leaves them: created and not written, written and the file never moved (still in place, or gone since).
        var empty = Info("empty.bin", string.Empty);
        var complete = Info("still-there.bin", Ours(stillThere));
        var gone = Info("gone.bin", Ours(tree.PathOf("data/gone%20now.bin")));
        var zeros = Info("zeros.bin", "\0\0\0\0");

        // Never touched: a young one (a trashing in progress), one with its file, one of another program, not a file.
        var young = Info("young.bin", Ours("/x/young.bin"), DateTime.UtcNow.AddSeconds(-30));
        var youngEmpty = Info("young-empty.bin", string.Empty, DateTime.UtcNow);
        var paired = Info("paired.bin", Ours("/x/paired.bin"), withFile: true);
        var pairedEmpty = Info("paired-empty.bin", string.Empty, withFile: true);
        var foreign = Info("foreign.bin", Ours("/x/foreign.bin") + "X-Other=1\n");
        var foreignPath = Info("foreign-path.bin", "[Trash Info]\nPath=/x/it's.bin\nDeletionDate=2026-01-02T03:04:05\n");
        var notInfo = Info("note.txt", string.Empty).Replace(".trashinfo", ".txt", StringComparison.Ordinal);
        File.Move(Path.Combine(info, "note.txt.trashinfo"), notInfo);
        var folder = Path.Combine(info, "folder.bin.trashinfo");
        Directory.CreateDirectory(folder);
        Directory.SetLastWriteTimeUtc(folder, old);
        var link = Path.Combine(info, "link.bin.trashinfo");
        File.CreateSymbolicLink(link, empty);

        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("data")), new TrashLinker(home), KeepRule.PreferPrefix(tree.PathOf("data/a.bin")));

        var report = await plan.ApplyAsync();

        Assert.Equal(2, report.Done); // b.bin and still-there.bin go to the trash, each with its own info file
        Assert.False(File.Exists(b));
        Assert.False(File.Exists(empty));
        Assert.False(File.Exists(gone));
        Assert.False(File.Exists(zeros));
        foreach (var kept in new[] { young, youngEmpty, paired, pairedEmpty, foreign, foreignPath, notInfo })
        {
            Assert.True(File.Exists(kept), kept + " was removed");
        }

        Assert.True(Directory.Exists(folder));
        Assert.NotNull(new FileInfo(link).LinkTarget);

        // still-there.bin's stale info was removed before its real trashing took the name again.
        Assert.NotEqual(old, File.GetLastWriteTimeUtc(complete));
        Assert.StartsWith("[Trash Info]\nPath=" + stillThere + "\n", await File.ReadAllTextAsync(complete), StringComparison.Ordinal);
        Assert.Equal(Content, await File.ReadAllBytesAsync(Path.Combine(files, "still-there.bin")));
        Assert.Equal(Content, await File.ReadAllBytesAsync(Path.Combine(files, "b.bin")));
    }
}
