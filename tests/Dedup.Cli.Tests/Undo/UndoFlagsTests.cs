using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Undo;

/// <summary>
/// Inode flags are set after undo's rename (an immutable file could not be renamed): an undo killed between the two
/// leaves the name restored without them, and the next undo, which finds it already restored, sets them then.
/// </summary>
public sealed class UndoFlagsTests
{
    [LinuxFact(RequiresRoot = true)]
    public async Task A_second_undo_sets_the_inode_flags_a_first_one_killed_before_them_did_not()
    {
        using var tree = new TempTree(); // the temp folder's file system: ext4 here and in CI (chattr +d needs one that keeps flags)
        var content = new byte[10_000];
        new Random(5).NextBytes(content);
        var (a, b) = (tree.Write("a.bin", content), tree.Write("b.bin", content));
        await Chattr("+d", a);
        await Chattr("+d", b);
        var journal = tree.PathOf("../" + Path.GetFileName(tree.Root) + ".log");
        try
        {
            var link = await CliProcess.RunAsync(["link", "--mode", "hard", "--yes", "--log", journal, tree.Root]);
            Assert.True(link.ExitCode == 0, link.Stdout + link.Stderr);
            Assert.Equal(new FileInfo(a).Length, new FileInfo(b).Length);

            var undo = await CliProcess.RunAsync(["undo", journal, "--yes"]);
            Assert.True(undo.ExitCode == 0, undo.Stdout + undo.Stderr);
            Assert.True(await HasNoDump(a) && await HasNoDump(b), "the first undo restored the flags");

            // As if that undo had been killed after its rename: the restored name without its flags.
            await Chattr("-d", a);
            await Chattr("-d", b);
            var again = await CliProcess.RunAsync(["undo", journal, "--yes"]);

            Assert.True(again.ExitCode == 0, again.Stdout + again.Stderr);
            Assert.Contains("1 already restored", again.Stdout, StringComparison.Ordinal);
            Assert.True(await HasNoDump(a) ^ await HasNoDump(b), "only the name the journal restored gets its flag again");
        }
        finally
        {
            File.Delete(journal);
        }
    }

    private static async Task Chattr(string change, string path)
    {
        var (exit, stdout, stderr) = await ProcessRunner.RunAsync("chattr", [change, path]);
        Assert.True(exit == 0, $"chattr {change} {path}: {stdout}{stderr}");
    }

    private static async Task<bool> HasNoDump(string path)
    {
        var (exit, stdout, stderr) = await ProcessRunner.RunAsync("lsattr", ["-d", path]);
        Assert.True(exit == 0, stdout + stderr);
        return stdout.Split(' ')[0].Contains('d', StringComparison.Ordinal);
    }
}
