using System.Text.Json.Nodes;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking.Undo;

namespace Dedup.Core.Tests.Linking.PortableUndo;

/// <summary>
/// The free space the portable undo plan counts a copy against: that of the file system the step's folder is on, not
/// the root's (Windows asks the drive's root; elsewhere the folder itself is asked).
/// </summary>
public sealed class PortableUndoSpaceTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(70_000, 3804);
    private static readonly DateTime Seconds = new(2020, 1, 2, 3, 4, 5, DateTimeKind.Utc);

    [FactRequiringFolder("DEDUP_TEST_SMALLFS", "a small file system beside the root's")]
    public async Task The_space_is_that_of_the_steps_file_system_not_the_roots()
    {
        using var tree = new LinkTree(LinkTree.SmallMount);
        using var logs = new TempTree();
        var journal = await HardLinkedAsync(tree, logs);

        var space = Assert.Single(Plan(journal).Space);

        Assert.Equal(tree.PathOf("data"), space.Folder);
        Assert.True(space.Available <= new DriveInfo(LinkTree.SmallMount!).TotalSize, $"{space.Available} bytes free: not the small file system's");
    }

    private static UndoPlan Plan(string journal)
    {
        UndoPlan.PortableOnLinux.Value = true;
        return UndoPlan.Create(journal);
    }

    /// <summary>data/b.bin hard-linked to data/a.bin by a journalled run; the journal's <c>before</c> cut to the portable fields.</summary>
    private static async Task<string> HardLinkedAsync(LinkTree tree, TempTree logs)
    {
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        File.SetLastWriteTimeUtc(a, Seconds);
        File.SetLastWriteTimeUtc(b, Seconds);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, tree.PathOf("data"))).Done);
        var lines = UndoFixtures.Lines(journal);
        var before = (JsonObject)UndoFixtures.Begun(lines)["before"]!;
        foreach (var field in new[] { "mode", "uid", "gid", "atimeNs", "flags", "xattrs" })
        {
            before.Remove(field);
        }

        UndoFixtures.Write(journal, lines);
        return journal;
    }
}
