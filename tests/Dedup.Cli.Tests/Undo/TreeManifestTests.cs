using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Undo;

/// <summary>
/// The manifest the undo tests judge by sees each thing undo must give back: a change of content, mode, owner,
/// modification time (a folder's too), extended attribute, inode flag or link text, a name gone or new, a leftover
/// temporary file; and it does not see what undo may change (inode numbers, link counts, access times).
/// </summary>
public sealed class TreeManifestTests
{
    [LinuxFact(RequiresRoot = true)]
    public void The_manifest_sees_every_change_undo_must_undo_and_nothing_it_may_change()
    {
        using var world = UndoWorld.Create(null, seed: 7, WorldShape.Small);
        var before = world.Manifest();
        Assert.Equal(string.Empty, world.Manifest().DiffFrom(before));
        Assert.Contains(before.Entries, e => e.Key.Contains(@"\xFF", StringComparison.Ordinal));
        Assert.Contains(before.Entries, e => e.Key.EndsWith(new string('L', 251) + ".bin", StringComparison.Ordinal));
        Assert.Contains(before.Entries, e => e.Value.Uid == UndoWorld.OtherUser);
        Assert.Contains(before.Entries, e => e.Value.Xattrs.StartsWith("user.tag=", StringComparison.Ordinal));
        Assert.Contains(before.Entries, e => e.Value.Flags == 0x40);
        Assert.Contains(before.Entries, e => e.Value.Kind == "link");

        // What undo may change: a hard link more (inode numbers and link counts), access times (a folder's too).
        var unique = RawFs.Bytes(world.PathOf("scan/unique.bin"));
        var outside = RawFs.Bytes(world.PathOf("outside"));
        var outsideTimes = RawFs.Status(outside)!.Value.MtimeNs;
        RawFs.Link(unique, RawFs.Bytes(world.PathOf("outside/unique-again")));
        RawFs.SetTimes(outside, 0, outsideTimes);
        var status = RawFs.Status(unique)!.Value;
        RawFs.SetTimes(unique, 42, status.MtimeNs);
        var root = RawFs.Bytes(world.Root);
        RawFs.SetTimes(root, 42, RawFs.Status(root)!.Value.MtimeNs);
        var diff = world.Manifest().DiffFrom(before);
        Assert.Equal("  new outside/unique-again (" + before.Entries["scan/unique.bin"] + ")" + Environment.NewLine, diff);
        File.Delete(world.PathOf("outside/unique-again"));
        RawFs.SetTimes(outside, 0, outsideTimes);

        // A folder's modification time is seen (every rename in it moves it; undo gives it back).
        var rootTime = RawFs.Status(root)!.Value.MtimeNs;
        RawFs.SetTimes(root, 42, rootTime + 1);
        AssertSeen(world, before, $"changed scan: mtime {rootTime} -> {rootTime + 1}");
        RawFs.SetTimes(root, 42, rootTime);

        // What undo must give back, each seen.
        var file = world.PathOf("scan/long-copy.bin");
        var raw = RawFs.Bytes(file);
        var mtime = RawFs.Status(raw)!.Value.MtimeNs;
        RawFs.Chmod(raw, 0x180);
        AssertSeen(world, before, "changed scan/long-copy.bin: mode 100644 -> 100600");
        RawFs.Chmod(raw, 0x1A4);
        RawFs.Chown(raw, UndoWorld.OtherUser, 0);
        AssertSeen(world, before, "changed scan/long-copy.bin: owner 0:0 -> 1234:0");
        RawFs.Chown(raw, 0, 0);
        RawFs.SetTimes(raw, 0, mtime + 1);
        AssertSeen(world, before, $"changed scan/long-copy.bin: mtime {mtime} -> {mtime + 1}");
        RawFs.SetTimes(raw, 0, mtime);
        RawFs.SetXattr(raw, "user.new", [1, 2]);
        AssertSeen(world, before, "changed scan/long-copy.bin: xattrs");
        RawFs.RemoveXattr(raw, "user.new");
        RawFs.AddInodeFlags(raw, 0x40);
        AssertSeen(world, before, "changed scan/long-copy.bin: flags 0x0 -> 0x40");
        TempTree.Run("chattr", "-d", file);
        using (var stream = new FileStream(file, FileMode.Open, FileAccess.Write))
        {
            stream.WriteByte(0);
        }

        RawFs.SetTimes(raw, 0, mtime);
        AssertSeen(world, before, "changed scan/long-copy.bin: content");
        File.Delete(file);
        AssertSeen(world, before, "missing scan/long-copy.bin");
        File.Delete(world.PathOf("scan/link-to-unique"));
        File.CreateSymbolicLink(world.PathOf("scan/link-to-unique"), "elsewhere");
        AssertSeen(world, before, "changed scan/link-to-unique: content");
        File.WriteAllText(world.PathOf("scan/.dedup-tmp-x"), "x");
        Assert.Equal(["scan/.dedup-tmp-x"], world.Manifest().Temporaries);
    }

    private static void AssertSeen(UndoWorld world, TreeManifest before, string expected)
    {
        var diff = world.Manifest().DiffFrom(before);
        Assert.True(diff.Contains(expected, StringComparison.Ordinal), $"expected '{expected}' in:\n{diff}");
    }
}
