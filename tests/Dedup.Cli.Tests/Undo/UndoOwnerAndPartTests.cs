using System.Text;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Undo;

/// <summary>
/// Issue #38 points 4 and 7: undo run by a user who owns only some of the names restores those and refuses the others
/// (never giving a file the wrong owner), and root's undo then restores the rest; <c>--only PATH</c> restores just the
/// names given, and a later full undo the rest.
/// </summary>
public sealed class UndoOwnerAndPartTests
{
    [LinuxFact(RequiresRoot = true, Tool = "setpriv")]
    public async Task Undo_by_an_unprivileged_user_restores_its_own_names_and_refuses_the_others()
    {
        using var world = UndoWorld.Create(null, seed: 91, WorldShape.Empty);
        var scan = RawFs.Bytes(world.Root);
        var mine = RawFs.Join(scan, "mine");
        var theirs = RawFs.Join(scan, "theirs");
        RawFs.MakeFolder(mine);
        RawFs.MakeFolder(theirs);
        RawFs.Chown(mine, UndoWorld.OtherUser, UndoWorld.OtherUser);

        // path-order keeps mine/ before theirs/, and a* before b*.
        var a = TempTree.RandomBytes(9000, 1);
        var b = TempTree.RandomBytes(9000, 2);
        var c = TempTree.RandomBytes(9000, 3);
        Write(RawFs.Join(mine, "a-kept.bin"), a, UndoWorld.OtherUser);
        Write(RawFs.Join(mine, "a-copy.bin"), a, UndoWorld.OtherUser);          // the user's file in the user's folder: restored
        Write(RawFs.Join(mine, "b-kept.bin"), b, 0);
        Write(RawFs.Join(mine, "b-roots-copy.bin"), b, 0);                      // root's file in the user's folder: refused
        Write(RawFs.Join(mine, "c-kept.bin"), c, UndoWorld.OtherUser);
        Write(RawFs.Join(theirs, "c-copy.bin"), c, UndoWorld.OtherUser);        // the user's file in root's folder: cannot be renamed over
        CliAsNobody.MakeTraversable(world.Root);
        var before = world.Manifest();

        var (exit, stdout, stderr) = await CliProcess.RunAsync(UndoKind.Hard.ActionArguments(world, "--keep", "path-order"), environment: world.Environment);
        Assert.True(exit == 0, stdout + stderr);
        Assert.Equal(3, JournalLines.Begun(world.Journal).Count);
        RawFs.Chown(RawFs.Bytes(world.Journal), UndoWorld.OtherUser, UndoWorld.OtherUser); // undo appends its undone lines

        using var user = new CliAsUser(UndoWorld.OtherUser);
        var asUser = await user.RunAsync("undo", world.Journal, "--yes");

        var said = asUser.Stdout + asUser.Stderr;
        var diff = world.Manifest().DiffFrom(before);
        Assert.DoesNotContain("a-copy.bin", diff, StringComparison.Ordinal);
        Assert.Contains("changed scan/mine/b-roots-copy.bin", diff, StringComparison.Ordinal);
        Assert.Contains("changed scan/theirs/c-copy.bin", diff, StringComparison.Ordinal);
        Assert.Equal(RawFs.Status(RawFs.Join(mine, "b-kept.bin"))!.Value.Inode, RawFs.Status(RawFs.Join(mine, "b-roots-copy.bin"))!.Value.Inode);
        Assert.Equal(RawFs.Status(RawFs.Join(mine, "c-kept.bin"))!.Value.Inode, RawFs.Status(RawFs.Join(theirs, "c-copy.bin"))!.Value.Inode);
        Assert.True(said.Contains("b-roots-copy.bin", StringComparison.Ordinal) && said.Contains("c-copy.bin", StringComparison.Ordinal), said);
        Assert.True(asUser.ExitCode != 0, "names were left alone, yet the exit code is 0: " + said);
        Assert.DoesNotContain("Unhandled", said, StringComparison.Ordinal);
        Assert.Empty(world.Manifest().Temporaries);

        var failures = new StringBuilder();
        RawFs.Chown(RawFs.Bytes(world.Journal), 0, 0); // root acts only on a journal only root can write
        var asRoot = await CliProcess.RunAsync(["undo", world.Journal, "--yes"]);
        UndoCrashTests.Judge(world, before, "root's undo after the user's", [asUser, asRoot], failures);
        Assert.True(failures.Length == 0, failures.ToString());
    }

    [LinuxFact(RequiresRoot = true)]
    public async Task Only_restores_the_names_given_and_a_full_undo_then_the_rest()
    {
        using var world = UndoWorld.Create(null, seed: 93, WorldShape.Small);
        var before = world.Manifest();
        var (exit, stdout, stderr) = await CliProcess.RunAsync(UndoKind.Symbolic.ActionArguments(world), environment: world.Environment);
        Assert.True(exit is 0 or 1, stdout + stderr);
        var begun = JournalLines.Begun(world.Journal);
        Assert.True(begun.Count >= 6, $"{begun.Count} begun lines");
        var chosen = begun.Select(JournalLines.PathBytes).Where(p => !p.Contains((byte)0xFF) && !p.Contains((byte)0xFE) && !p.Contains((byte)0xC3)).Take(2).ToArray();
        var chosenKeys = chosen.Select(p => RawFs.Show(p.AsSpan(RawFs.Bytes(world.Base).Length + 1))).ToArray();
        var linked = world.Manifest();

        var only = await CliProcess.RunAsync(["undo", world.Journal, "--yes", "--only", Encoding.UTF8.GetString(chosen[0]), "--only", Encoding.UTF8.GetString(chosen[1])]);

        Assert.True(only.ExitCode == 0, only.Stdout + only.Stderr);
        var now = world.Manifest();
        Assert.Equal(string.Empty, now.DiffFrom(before, name => chosenKeys.Contains(name)));
        // The folders holding them moved with the restores; their times wait for the rest of their steps.
        var chosenFolders = chosenKeys.Select(k => k[..k.LastIndexOf('/')]).ToHashSet(StringComparer.Ordinal);
        Assert.Equal(string.Empty, now.DiffFrom(linked, name => !chosenKeys.Contains(name) && !chosenFolders.Contains(name)));

        var failures = new StringBuilder();
        var rest = await CliProcess.RunAsync(["undo", world.Journal, "--yes"]);
        UndoCrashTests.Judge(world, before, "full undo after --only", [only, rest], failures);
        Assert.True(failures.Length == 0, failures.ToString());
    }

    private static long _time = 1_200_000_000_123_456_789;

    /// <summary>Each file its own modification time, so a name that is still a link of its kept file shows in the manifest.</summary>
    private static void Write(byte[] path, byte[] content, uint owner)
    {
        RawFs.WriteFile(path, content);
        RawFs.Chown(path, owner, owner);
        RawFs.Chmod(path, 0x1A4);
        _time += 86_400_000_000_007;
        RawFs.SetTimes(path, 1_300_000_000_000_000_000, _time);
    }
}
