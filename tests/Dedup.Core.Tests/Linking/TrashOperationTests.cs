using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Moving into the trash when a step is refused: the duplicate stays where it was, no info file is left without its
/// file, and the reason names the step and the errno. A name taken in <c>files/</c> alone (no info file) is skipped too.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class TrashOperationTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, 353);

    [LinuxFact(RequiresRoot = true, Tool = "chattr", TempFileSystem = "ext4")]
    public async Task An_info_folder_that_refuses_the_info_file_fails_the_action_and_moves_nothing()
    {
        using var tree = new LinkTree();
        var home = PrepareTrash(tree);
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("data")), new TrashLinker(home));
        tree.MakeImmutable(Path.Combine(home, "info"));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Failed, outcome.Status);
        Assert.Equal($"cannot create the trash info file {Path.Combine(home, "info", "b.bin.trashinfo")}: Operation not permitted; duplicate unchanged", outcome.Reason);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.Empty(Directory.GetFileSystemEntries(Path.Combine(home, "files")));
    }

    [LinuxFact(RequiresRoot = true, Tool = "chattr", TempFileSystem = "ext4")]
    public async Task A_files_folder_that_refuses_the_move_fails_the_action_and_removes_the_info_file()
    {
        using var tree = new LinkTree();
        var home = PrepareTrash(tree);
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("data")), new TrashLinker(home));
        tree.MakeImmutable(Path.Combine(home, "files"));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Failed, outcome.Status);
        Assert.Equal($"cannot move into the trash {home}: Operation not permitted; duplicate unchanged", outcome.Reason);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.Empty(Directory.GetFileSystemEntries(Path.Combine(home, "info")));
    }

    [LinuxFact]
    public async Task A_name_taken_in_files_without_an_info_file_is_not_reused()
    {
        using var tree = new LinkTree();
        var home = PrepareTrash(tree);
        await File.WriteAllTextAsync(Path.Combine(home, "files", "b.bin"), "another program's trashed file");
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("data")), new TrashLinker(home));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.False(File.Exists(b));
        Assert.Equal("another program's trashed file", await File.ReadAllTextAsync(Path.Combine(home, "files", "b.bin")));
        Assert.Equal(Content, await File.ReadAllBytesAsync(Path.Combine(home, "files", "b.2.bin")));
        Assert.Equal(["b.2.bin.trashinfo"], Directory.GetFileSystemEntries(Path.Combine(home, "info")).Select(Path.GetFileName));
        Assert.StartsWith($"[Trash Info]\nPath={b}\nDeletionDate=", await File.ReadAllTextAsync(Path.Combine(home, "info", "b.2.bin.trashinfo")), StringComparison.Ordinal);
    }

    private static string PrepareTrash(LinkTree tree)
    {
        var home = tree.PathOf("home/Trash");
        Directory.CreateDirectory(Path.Combine(home, "files"));
        Directory.CreateDirectory(Path.Combine(home, "info"));
        return home;
    }
}
