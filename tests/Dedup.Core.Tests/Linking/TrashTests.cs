using Dedup.Core.Linking;
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
}
