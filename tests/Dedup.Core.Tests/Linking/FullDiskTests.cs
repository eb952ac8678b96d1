using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>A full file system (<c>DEDUP_TEST_SMALLFS</c>: a small ext4 with few inodes) while acting.</summary>
[Collection(SmallFsCollection.Name)]
public sealed class FullDiskTests
{
    [FactRequiringFolder("DEDUP_TEST_SMALLFS", "a small mounted file system to fill up")]
    public async Task Nothing_is_lost_when_the_disk_is_full()
    {
        using var tree = new LinkTree(LinkTree.SmallMount);
        var content = TempTree.RandomBytes(200_000, 20);
        tree.Write("keep/a.bin", content);
        tree.Write("dups/b.bin", content);
        tree.Write("dups/c.bin", content);
        tree.Write("dups/d.bin", content);
        var groups = await tree.ScanAsync();
        var before = tree.Snapshot();
        var filler = Path.Combine(tree.Root, "filler");
        Fill(filler);
        try
        {
            var linkers = new Linker[] { Linkers.SymbolicLink(relative: false), new TrashLinker(Path.Combine(tree.Root, "home-trash")), Linkers.HardLink };
            foreach (var linker in linkers)
            {
                var report = await LinkTree.Plan(groups, linker, KeepRule.PreferUnder(tree.PathOf("keep"))).ApplyAsync();
                Assert.Equal(3, report.Outcomes.Count); // dups/b.bin, c.bin and d.bin
                Assert.All(report.Outcomes, o => Assert.True(
                    o.Status == DuplicateActionStatus.Done || o.Reason!.Contains("No space left", StringComparison.Ordinal) || o.Reason.Contains("since the scan", StringComparison.Ordinal),
                    $"{linker.Description}: {o}"));
                if (linker.Kind != DuplicateActionKind.HardLink)
                {
                    // Symbolic links and trash info files need an inode, which a full file system does not have.
                    Assert.All(report.Outcomes, o => Assert.Contains("No space left", o.Reason, StringComparison.Ordinal));
                }

                LinkTree.AssertNoContentLost(before);
                tree.AssertNoTemporaryFiles();
            }

            Assert.Null(new FileInfo(tree.PathOf("dups/b.bin")).LinkTarget);
        }
        finally
        {
            Directory.Delete(filler, recursive: true);
        }
    }

    /// <summary>Uses up every block and every inode.</summary>
    private static void Fill(string folder)
    {
        Directory.CreateDirectory(folder);
        var block = new byte[1 << 20];
        try
        {
            using var stream = new FileStream(Path.Combine(folder, "blocks"), FileMode.CreateNew, FileAccess.Write, FileShare.None, 1);
            while (true)
            {
                stream.Write(block);
                stream.Flush();
            }
        }
        catch (IOException)
        {
        }

        try
        {
            for (var i = 0; ; i++)
            {
                File.WriteAllBytes(Path.Combine(folder, "i" + i), []);
            }
        }
        catch (IOException)
        {
        }
    }
}
