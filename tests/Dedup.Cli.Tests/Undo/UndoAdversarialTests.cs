using System.Text;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Undo;

/// <summary>
/// Issue #38 point 2's safety protocol, where the library's interference tests do not reach, through the CLI: a folder
/// on the path swapped for a symbolic link to a copy outside the roots is not followed; a name deleted since the action
/// is not recreated; and a journal a crash cut short in the middle of a line, then appended to by the next run, is
/// still read and that run undone.
/// </summary>
public sealed class UndoAdversarialTests
{
    [LinuxFact(RequiresRoot = true)]
    public async Task A_folder_swapped_for_a_link_to_a_copy_outside_the_roots_is_not_followed_and_a_deleted_name_is_not_recreated()
    {
        using var world = UndoWorld.Create(null, seed: 95, WorldShape.Empty);
        var contents = Enumerable.Range(0, 3).Select(i => TempTree.RandomBytes(6000, 200 + i)).ToArray();
        string[] copies = ["dup/moved/m.bin", "dup/deleted.bin", "dup/plain.bin"];
        for (var i = 0; i < copies.Length; i++)
        {
            Write(world.PathOf("scan/keep/k" + i + ".bin"), contents[i]);
            Write(world.PathOf("scan/" + copies[i]), contents[i]);
        }

        var (exit, stdout, stderr) = await CliProcess.RunAsync(UndoKind.Hard.ActionArguments(world, "--keep", "prefix:" + world.PathOf("scan/keep")));
        Assert.True(exit == 0, stdout + stderr);
        Assert.Equal(3, JournalLines.Begun(world.Journal).Count);

        // The folder of one linked name now lives outside the root, and a link to it stands in its place; another name is gone.
        Directory.Move(world.PathOf("scan/dup/moved"), world.PathOf("outside/moved"));
        File.CreateSymbolicLink(world.PathOf("scan/dup/moved"), world.PathOf("outside/moved"));
        File.Delete(world.PathOf("scan/dup/deleted.bin"));
        var outsideInode = RawFs.Status(RawFs.Bytes(world.PathOf("outside/moved/m.bin")))!.Value.Inode;

        var undo = await CliProcess.RunAsync(["undo", world.Journal, "--yes"]);

        var said = undo.Stdout + undo.Stderr;
        Assert.True(undo.ExitCode == 1, $"exit {undo.ExitCode}: {said}");
        Assert.Contains("1 restored", said, StringComparison.Ordinal);
        Assert.Equal(RawFs.Status(RawFs.Bytes(world.PathOf("scan/keep/k0.bin")))!.Value.Inode, outsideInode);
        Assert.Equal(outsideInode, RawFs.Status(RawFs.Bytes(world.PathOf("outside/moved/m.bin")))!.Value.Inode);
        Assert.True(RawFs.Status(RawFs.Bytes(world.PathOf("scan/dup/moved")))!.Value.IsLink);
        Assert.Null(RawFs.Status(RawFs.Bytes(world.PathOf("scan/dup/deleted.bin"))));
        Assert.NotEqual(RawFs.Status(RawFs.Bytes(world.PathOf("scan/keep/k2.bin")))!.Value.Inode, RawFs.Status(RawFs.Bytes(world.PathOf("scan/dup/plain.bin")))!.Value.Inode);
        Assert.Equal(contents[2], File.ReadAllBytes(world.PathOf("scan/dup/plain.bin")));
        Assert.Contains("m.bin", said, StringComparison.Ordinal);
        Assert.Contains("deleted.bin", said, StringComparison.Ordinal);
        Assert.Empty(world.Manifest().Temporaries);
        Assert.Empty(TreeManifest.Take(world.Outside).Temporaries);
    }

    [LinuxFact(RequiresRoot = true)]
    public async Task A_journal_cut_short_mid_line_by_a_crash_and_appended_to_by_the_next_run_still_undoes_that_run()
    {
        using var world = UndoWorld.Create(null, seed: 97, WorldShape.Empty);
        var contents = Enumerable.Range(0, 4).Select(i => TempTree.RandomBytes(5000, 300 + i)).ToArray();
        for (var i = 0; i < contents.Length; i++)
        {
            Write(world.PathOf($"scan/first/k{i}.bin"), contents[i]);
            Write(world.PathOf($"scan/first/x{i}.bin"), contents[i]);
            Write(world.PathOf($"scan/second/k{i}.bin"), contents[i]);
            Write(world.PathOf($"scan/second/x{i}.bin"), contents[i]);
        }

        var before = world.Manifest();
        var (exit, stdout, stderr) = await CliProcess.RunAsync(["link", "--mode", "hard", "--yes", "--log", world.Journal, world.PathOf("scan/first")]);
        Assert.True(exit == 0, stdout + stderr);

        // A crash (power lost) after part of a line reached the disk: the journal ends mid-line.
        var journal = File.ReadAllBytes(world.Journal);
        var lastLine = Array.LastIndexOf(journal, (byte)'\n', journal.Length - 2) + 1;
        File.WriteAllBytes(world.Journal, journal[..(lastLine + ((journal.Length - lastLine) / 2))]);
        (exit, stdout, stderr) = await CliProcess.RunAsync(["link", "--mode", "hard", "--yes", "--log", world.Journal, world.PathOf("scan/second")]);
        Assert.True(exit == 0, stdout + stderr);

        var undo = await CliProcess.RunAsync(["undo", world.Journal, "--yes"]);

        var failures = new StringBuilder();
        UndoCrashTests.Judge(world, before, "undo of a journal cut mid-line, then appended to", [undo], failures);
        Assert.True(failures.Length == 0, failures.ToString());
    }

    private static void Write(string path, byte[] content)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        File.WriteAllBytes(path, content);
        File.SetLastWriteTimeUtc(path, new DateTime(2011, 3, 4, 5, 6, 7, DateTimeKind.Utc));
    }
}
