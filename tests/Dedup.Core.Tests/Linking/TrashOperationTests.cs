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

    [LinuxFact]
    public async Task A_taken_info_name_is_skipped_and_its_info_file_left_as_it_was()
    {
        using var tree = new LinkTree();
        var home = PrepareTrash(tree);
        var taken = Path.Combine(home, "info", "b.bin.trashinfo");
        await File.WriteAllTextAsync(taken, "another program's info file");
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);

        var outcome = Assert.Single((await LinkTree.Plan(await tree.ScanAsync(tree.PathOf("data")), new TrashLinker(home)).ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.False(File.Exists(b));
        Assert.Equal("another program's info file", await File.ReadAllTextAsync(taken));
        Assert.Equal(["b.2.bin"], Directory.GetFileSystemEntries(Path.Combine(home, "files")).Select(Path.GetFileName));
        Assert.StartsWith($"[Trash Info]\nPath={b}\nDeletionDate=", await File.ReadAllTextAsync(Path.Combine(home, "info", "b.2.bin.trashinfo")), StringComparison.Ordinal);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public async Task The_ten_thousandth_name_is_tried_and_after_it_the_action_fails_naming_the_trash()
    {
        using var tree = new LinkTree();
        var home = PrepareTrash(tree);
        var files = Path.Combine(home, "files");
        File.WriteAllBytes(Path.Combine(files, "b.bin"), []);
        for (var attempt = 2; attempt < 10_000; attempt++)
        {
            File.WriteAllBytes(Path.Combine(files, $"b.{attempt}.bin"), []);
        }

        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var first = Assert.Single((await LinkTree.Plan(await tree.ScanAsync(tree.PathOf("data")), new TrashLinker(home)).ApplyAsync()).Outcomes);
        Assert.Equal(DuplicateActionStatus.Done, first.Status);
        Assert.Equal(Content, await File.ReadAllBytesAsync(Path.Combine(files, "b.10000.bin")));

        tree.Write("data/b.bin", Content);
        var second = Assert.Single((await LinkTree.Plan(await tree.ScanAsync(tree.PathOf("data")), new TrashLinker(home)).ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Failed, second.Status);
        Assert.Equal($"no free name in the trash {home} for b.bin", second.Reason);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.Equal(["b.10000.bin.trashinfo"], Directory.GetFileSystemEntries(Path.Combine(home, "info")).Select(Path.GetFileName));
    }

    [LinuxFact]
    public async Task A_trash_is_repaired_on_first_use_and_again_only_after_the_grace_period()
    {
        using var tree = new LinkTree();
        var home = PrepareTrash(tree);
        var orphan = Path.Combine(home, "info", "gone.bin.trashinfo");
        await TrashOne(tree, home, "first");

        // An interrupted trashing's info file appears; the trash was repaired moments ago: not again yet.
        await File.WriteAllBytesAsync(orphan, []);
        File.SetLastWriteTimeUtc(orphan, DateTime.UtcNow.AddMinutes(-3));
        await TrashOne(tree, home, "second");
        Assert.True(File.Exists(orphan));

        // Once the last repair is older than the grace period, the next use repairs.
        var repaired = (Dictionary<string, DateTime>)typeof(Dedup.Core.Linking.Operations.TrashOperation)
            .GetField("s_repaired", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Static)!.GetValue(null)!;
        lock (repaired)
        {
            repaired[home] = DateTime.UtcNow - Dedup.Core.Linking.Trash.TrashDirectory.OrphanGracePeriod - TimeSpan.FromSeconds(1);
        }

        await TrashOne(tree, home, "third");
        Assert.False(File.Exists(orphan));
    }

    private static async Task TrashOne(LinkTree tree, string home, string folder)
    {
        var content = System.Text.Encoding.UTF8.GetBytes(folder);
        tree.Write(folder + "/a.bin", content);
        var b = tree.Write(folder + "/b.bin", content);
        var outcome = Assert.Single((await LinkTree.Plan(await tree.ScanAsync(tree.PathOf(folder)), new TrashLinker(home)).ApplyAsync()).Outcomes);
        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.False(File.Exists(b));
    }

    private static string PrepareTrash(LinkTree tree)
    {
        var home = tree.PathOf("home/Trash");
        Directory.CreateDirectory(Path.Combine(home, "files"));
        Directory.CreateDirectory(Path.Combine(home, "info"));
        return home;
    }
}
