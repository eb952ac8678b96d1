using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;

namespace Dedup.Cli.Tests.Undo;

/// <summary>
/// A dedupe keeps the file's identity, so a name with other hard links (outside the scanned root too) is still one
/// file with them after it. Undo must not part them: copying such a name back would be a change the action never made.
/// </summary>
public sealed class UndoDedupeLinksTests
{
    [FactRequiringFolder("DEDUP_TEST_BTRFS", "kernel dedupe", RequiresRoot = true)]
    public async Task A_deduped_file_with_another_name_keeps_it_through_undo()
    {
        using var tree = new TempTree(LinkTree.BtrfsMount);
        var content = new byte[256 * 1024];
        new Random(9).NextBytes(content);
        tree.Write("scan/a.bin", content);
        var b = tree.Write("scan/b.bin", content);
        Directory.CreateDirectory(tree.PathOf("outside"));
        var alias = tree.HardLink("scan/b.bin", "outside/b-alias.bin");
        var journal = tree.PathOf("journal.log");

        var dedupe = await CliProcess.RunAsync(["link", "--mode", "dedupe", "--yes", "--log", journal, tree.PathOf("scan")]);
        Assert.True(dedupe.ExitCode == 0, dedupe.Stdout + dedupe.Stderr);
        Assert.Equal(Inode(alias), Inode(b));

        var undo = await CliProcess.RunAsync(["undo", journal, "--yes", "-v"]);

        Assert.Equal(Inode(alias), Inode(b)); // still one file with two names
        Assert.Equal(content, File.ReadAllBytes(b));
        Assert.True(undo.ExitCode == 0, undo.Stdout + undo.Stderr); // nothing was lost: the name is as it was
        Assert.Contains("already restored", undo.Stdout, StringComparison.Ordinal);
        Assert.Contains("hard links", undo.Stdout, StringComparison.Ordinal);
    }

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "kernel dedupe", RequiresRoot = true)]
    public async Task A_deduped_file_with_another_name_and_inode_flags_keeps_the_hard_links_reason_on_every_undo()
    {
        using var tree = new TempTree(LinkTree.BtrfsMount);
        var content = new byte[128 * 1024];
        new Random(10).NextBytes(content);
        tree.Write("scan/a.bin", content);
        var b = tree.Write("scan/b.bin", content);
        TempTree.Run("chattr", "+d", b); // nodump: undo sets a restored name's flags again, and must still say why it kept this one
        Directory.CreateDirectory(tree.PathOf("outside"));
        tree.HardLink("scan/b.bin", "outside/b-alias.bin");
        var journal = tree.PathOf("journal.log");
        var dedupe = await CliProcess.RunAsync(["link", "--mode", "dedupe", "--yes", "--log", journal, tree.PathOf("scan")]);
        Assert.True(dedupe.ExitCode == 0, dedupe.Stdout + dedupe.Stderr);

        var first = await CliProcess.RunAsync(["undo", journal, "--yes", "-v"]);
        var second = await CliProcess.RunAsync(["undo", journal, "--yes", "-v"]);

        foreach (var undo in new[] { first, second })
        {
            Assert.True(undo.ExitCode == 0, undo.Stdout + undo.Stderr);
            Assert.Contains($"already restored {b}: its bytes, identity and metadata are as before the dedupe", undo.Stdout, StringComparison.Ordinal);
            Assert.Contains("hard links", undo.Stdout, StringComparison.Ordinal);
        }
    }

    private static ulong Inode(string path)
    {
        Assert.Equal(0, Dedup.Core.Interop.Libc.LStat(path, out var status));
        return status.Ino;
    }
}
