using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary><see cref="ReportedDuplicates.FromReport"/> when a reported name's folder cannot be opened beneath the scanned roots.</summary>
public sealed class ReportedFolderProblemTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(2000, 81);

    [LinuxFact]
    public void A_name_outside_the_scanned_roots_or_in_a_folder_now_a_link_is_left_out_with_its_reason()
    {
        using var tree = new TempTree();
        var a = tree.Write("root/a.bin", Content);
        var b = tree.Write("root/b.bin", Content);
        var outside = tree.Write("other/c.bin", Content);
        var moved = tree.Write("root/sub/d.bin", Content);
        ReportedFile[] reported = [Reported(a), Reported(b), Reported(outside), Reported(moved)];
        Directory.Move(tree.PathOf("root/sub"), tree.PathOf("other/sub"));
        tree.Symlink("../other/sub", "root/sub"); // the same file, now reached through a link

        var group = ReportedDuplicates.FromReport([ScanRoot.Capture(AbsolutePath.Parse(tree.PathOf("root")))], Content.Length, reported, out var problems);

        Assert.NotNull(group);
        Assert.Equal([a, b], group.Files.Select(f => f.Path.ToString()));
        Assert.Equal(2, problems.Count);
        Assert.Equal($"{outside}: is not under any scanned root", problems[0]);
        Assert.StartsWith($"{moved}: ", problems[1], StringComparison.Ordinal);
    }

    private static ReportedFile Reported(string path)
    {
        Assert.Equal(0, Libc.LStat(path, out var status));
        return new ReportedFile(AbsolutePath.Parse(path), new FileIdentity(status.Device, status.Ino), (long)status.Size, status.LastWriteTimeUtc, status.ChangeTimeUtc);
    }
}
