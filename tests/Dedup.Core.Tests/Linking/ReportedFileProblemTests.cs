using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// <see cref="ReportedDuplicates.FromReport"/>, name by name: each way a reported name can stop leading to the reported
/// file is left out with its own reason, and what is kept carries the file's status as it is now.
/// </summary>
public sealed class ReportedFileProblemTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(4000, 21);

    [LinuxFact]
    public void A_name_now_a_symbolic_link_a_folder_or_modified_is_left_out_with_its_reason()
    {
        using var tree = new TempTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var link = tree.Write("link.bin", Content);
        var folder = tree.Write("folder.bin", Content);
        var modified = tree.Write("modified.bin", Content);
        var gone = tree.Write("gone.bin", Content);
        ReportedFile[] reported = [Reported(a), Reported(b), Reported(link), Reported(folder), Reported(modified), Reported(a, "/"), Reported(gone)];
        File.Delete(gone);
        File.Delete(link);
        tree.Symlink("a.bin", "link.bin");
        File.Delete(folder);
        Directory.CreateDirectory(folder);
        File.SetLastWriteTimeUtc(modified, new DateTime(2001, 1, 1, 0, 0, 0, DateTimeKind.Utc));

        var group = ReportedDuplicates.FromReport([Root(tree)], Content.Length, reported, out var problems);

        Assert.Equal(
            [
                $"{link}: is now a symbolic link",
                $"{folder}: is no longer a regular file",
                $"{modified}: modified since the report",
                "/: not a file name",
                $"{gone}: {Libc.Message(2)}", // ENOENT, as the system says it
            ],
            problems);
        Assert.NotNull(group);
        Assert.Equal([a, b], group.Files.Select(f => f.Path.ToString()));
    }

    [LinuxFact]
    public void A_name_of_another_file_or_another_size_says_what_it_is_now_and_what_the_report_says()
    {
        using var tree = new TempTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var reportedB = Reported(b);
        File.Move(b, tree.PathOf("b.old")); // kept, so the inode is not reused
        tree.Write("b.bin", Content);
        var now = Reported(b);

        var group = ReportedDuplicates.FromReport([Root(tree)], Content.Length, [Reported(a), reportedB], out var problems);
        Assert.Null(group); // one file left
        Assert.Equal([$"{b}: is now another file (device and inode {now.Identity}, the report says {reportedB.Identity})"], problems);

        ReportedDuplicates.FromReport([Root(tree)], Content.Length + 1, [Reported(a) with { Length = Content.Length + 1 }], out problems);
        Assert.Equal([$"{a}: size is now {Content.Length}, the report says {Content.Length + 1}"], problems);
    }

    [LinuxFact]
    public void A_report_without_change_times_does_not_compare_them_and_names_of_one_file_become_its_links()
    {
        using var tree = new TempTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        TempTree.Run("ln", b, tree.PathOf("b2.bin"));
        var noChangeTime = Reported(b) with { LastChangeTimeUtc = DateTime.MinValue };
        Thread.Sleep(20);
        TempTree.Run("chmod", "u+x", b); // only the change time moves
        TempTree.Run("chmod", "u-x", b);

        var group = ReportedDuplicates.FromReport([Root(tree)], Content.Length, [Reported(tree.PathOf("b2.bin")), Reported(a), noChangeTime], out var problems);

        Assert.Empty(problems);
        Assert.NotNull(group);
        Assert.Equal(Content.Length, group.Size);
        var first = group.Files[0];
        var second = group.Files[1];
        Assert.Equal((a, 1, Content.Length), (first.Path.ToString(), first.LinkCount, first.Length));
        Assert.Equal((b, 2), (second.Path.ToString(), second.LinkCount));
        Assert.Equal([tree.PathOf("b2.bin")], second.OtherLinks.Select(p => p.ToString()));
        Assert.Equal(0, Libc.LStat(b, out var status));
        Assert.Equal((status.LastWriteTimeUtc, status.ChangeTimeUtc), (second.LastWriteTimeUtc, second.LastChangeTimeUtc));
        Assert.Equal(new FileIdentity(status.Device, status.Ino), second.Identity);
        Assert.Equal($"{a} ({group.Files[0].Identity})", Reported(a).ToString());
    }

    private static ScanRoot Root(TempTree tree) => ScanRoot.Capture(AbsolutePath.Parse(tree.Root));

    private static ReportedFile Reported(string path, string? name = null)
    {
        Assert.Equal(0, Libc.LStat(path, out var status));
        return new ReportedFile(AbsolutePath.Parse(name ?? path), new FileIdentity(status.Device, status.Ino), (long)status.Size, status.LastWriteTimeUtc, status.ChangeTimeUtc);
    }
}
