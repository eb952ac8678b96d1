using System.Globalization;
using System.Text;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Undo;

/// <summary>How big and how varied an <see cref="UndoWorld"/> is.</summary>
/// <param name="Groups">Groups of equal files written into the scanned root.</param>
/// <param name="MaxSize">The largest file, in bytes (sizes are drawn between 1 KiB and this).</param>
/// <param name="Folders">Whether to add a pair of equal nested folders (for <c>--folders</c>).</param>
/// <param name="Cases">Whether to add the fixed cases (names not UTF-8, 255 bytes, second names, inode flags).</param>
internal sealed record WorldShape(int Groups, int MaxSize, bool Folders, bool Cases = true)
{
    /// <summary>Nothing but the folders: the test writes its own files.</summary>
    public static WorldShape Empty { get; } = new(Groups: 0, MaxSize: 2048, Folders: false, Cases: false);

    /// <summary>Big enough that a link run acts for about a second here (for the kill tests), small enough for ten kills a test.</summary>
    public static WorldShape Crash { get; } = new(Groups: 70, MaxSize: 64 * 1024, Folders: false);

    /// <summary>Small and quick, every case present (for the matrix).</summary>
    public static WorldShape Small { get; } = new(Groups: 12, MaxSize: 24 * 1024, Folders: true);
}

/// <summary>
/// A seeded world for undo tests, in a temporary folder (on the temp folder's file system or a test mount):
/// <c>scan/</c> is the root given to dedup, <c>outside/</c> holds second names of files in the root (hard links with
/// more names than the scan sees), <c>xdg/</c> is the home trash (<c>XDG_DATA_HOME</c>), <c>journal.log</c> the
/// <c>--log</c>. The groups vary what undo must give back: modes 600/644/755, owners 0 and 1234, past modification
/// times with nanoseconds, a <c>user.*</c> attribute, the nodump inode flag, names that are not UTF-8, a 255-byte name,
/// nested folders of different modes, and (with <see cref="WorldShape.Folders"/>) a pair of equal folder trees.
/// Everything is written through <see cref="RawFs"/> with exact name bytes.
/// </summary>
internal sealed class UndoWorld : IDisposable
{
    public const uint OtherUser = 1234;
    private static readonly uint[] Modes = [0x180, 0x1A4, 0x1ED]; // 600, 644, 755
    private static readonly uint[] FolderModes = [0x1ED, 0x1E8, 0x1C0, 0x1FD]; // 755, 750, 700, 775
    private readonly TempTree _temp;
    private readonly Random _random;
    private readonly List<byte[]> _folders = [];
    private int _serial;

    private UndoWorld(string? baseFolder, int seed)
    {
        _temp = new TempTree(baseFolder);
        _random = new Random(seed);
        Seed = seed;
    }

    public int Seed { get; }

    public string Base => _temp.Root;

    public string Root => _temp.PathOf("scan");

    public string PathOf(string relative) => _temp.PathOf(relative);

    public string Outside => _temp.PathOf("outside");

    public string Journal => _temp.PathOf("journal.log");

    public string Trash => _temp.PathOf("xdg/Trash");

    /// <summary>The environment of a run: the home trash inside this world.</summary>
    public Dictionary<string, string> Environment => new() { ["XDG_DATA_HOME"] = _temp.PathOf("xdg") };

    /// <summary>Names of files that are not the first of their group, in the scanned root: about the actions a run makes.</summary>
    public int DuplicateNames { get; private set; }

    /// <summary>Scanned names (relative to the world, as <see cref="TreeManifest"/> keys them) owned by <see cref="OtherUser"/>.</summary>
    public List<string> OtherUsersNames { get; } = [];

    public static UndoWorld Create(string? baseFolder, int seed, WorldShape shape)
    {
        var world = new UndoWorld(baseFolder, seed);
        world.Build(shape);
        return world;
    }

    /// <summary>The manifest of the world: the root and the outside names, not the trash or the journal.</summary>
    public TreeManifest Manifest() => TreeManifest.Take(Base, "xdg", "journal.log");

    /// <summary>The trash's files/ and info/ entries (empty once everything trashed is back).</summary>
    public List<string> TrashEntries()
    {
        var found = new List<string>();
        foreach (var sub in (string[])["files", "info", "expunged"])
        {
            var folder = RawFs.Bytes(Path.Combine(Trash, sub));
            if (RawFs.Status(folder) is { IsFolder: true })
            {
                found.AddRange(RawFs.List(folder).Select(n => sub + "/" + RawFs.Show(n)));
            }
        }

        return found;
    }

    private void Build(WorldShape shape)
    {
        var root = RawFs.Bytes(Root);
        RawFs.MakeFolder(root);
        RawFs.MakeFolder(RawFs.Bytes(Outside));
        _folders.Add(root);
        byte[][] stems = [RawFs.Bytes("d"), RawFs.Bytes("Фото"), [(byte)'r', 0xFE, (byte)'w'], RawFs.Bytes("with space")];
        for (var i = 0; i < (shape.Cases || shape.Groups > 0 ? 8 : 0); i++)
        {
            var parent = _folders[_random.Next(_folders.Count)];
            var folder = RawFs.Join(parent, [.. stems[i % stems.Length], .. Encoding.ASCII.GetBytes(i.ToString("D2", CultureInfo.InvariantCulture))]);
            RawFs.MakeFolder(folder);
            _folders.Add(folder);
        }

        for (var g = 0; g < shape.Groups; g++)
        {
            var content = RandomBytes(_random.Next(1024, shape.MaxSize));
            var copies = _random.Next(2, 5);
            var mixed = _random.NextDouble() < 0.2; // owner and mode differ inside the group: links refuse it, clone/trash act
            var (mode, owner) = (Modes[_random.Next(Modes.Length)], _random.NextDouble() < 0.3 ? OtherUser : 0u);
            for (var c = 0; c < copies; c++)
            {
                if (mixed)
                {
                    (mode, owner) = (Modes[_random.Next(Modes.Length)], _random.NextDouble() < 0.5 ? OtherUser : 0u);
                }

                var path = RawFs.Join(_folders[_random.Next(_folders.Count)], NextName());
                WriteFile(path, content, mode, owner);
                DuplicateNames += c > 0 ? 1 : 0;
            }
        }

        if (shape.Cases)
        {
            WriteSpecialCases(root);
        }

        if (shape.Folders)
        {
            WriteFolderPair(root);
        }

        // Folder modes last: a 700 folder of root's is still writable to root, so the order matters only for readability.
        foreach (var folder in _folders.Skip(1))
        {
            RawFs.Chmod(folder, FolderModes[_random.Next(FolderModes.Length)]);
        }
    }

    /// <summary>The cases every world has, whatever the seed.</summary>
    private void WriteSpecialCases(byte[] root)
    {
        // A 255-byte name (the longest a name can be) and a name that is not UTF-8, each with a copy.
        var longName = Encoding.ASCII.GetBytes(new string('L', 251) + ".bin");
        var content = RandomBytes(5000);
        WriteFile(RawFs.Join(_folders[1], longName), content, 0x1A4, 0);
        WriteFile(RawFs.Join(root, "long-copy.bin"), content, 0x1A4, 0);
        content = RandomBytes(6000);
        WriteFile(RawFs.Join(root, [(byte)'a', 0xFF, (byte)'.', (byte)'b', (byte)'i', (byte)'n']), content, 0x1A4, 0);
        WriteFile(RawFs.Join(_folders[2], [(byte)'b', 0xC3, (byte)'.', (byte)'b', (byte)'i', (byte)'n']), content, 0x1A4, 0);
        DuplicateNames += 2;

        // A file with a second name outside the root (the scan sees one name of two), and a copy of it in the root; and
        // a file with two names inside the root and a copy.
        content = RandomBytes(7000);
        var inside = RawFs.Join(root, "h-inside.bin");
        WriteFile(inside, content, 0x1A4, 0);
        RawFs.Link(inside, RawFs.Join(RawFs.Bytes(Outside), "h-outside.bin"));
        WriteFile(RawFs.Join(_folders[3], "h-copy.bin"), content, 0x1A4, 0);
        content = RandomBytes(8000);
        var twice = RawFs.Join(_folders[4], "two-names.bin");
        WriteFile(twice, content, 0x1ED, 0);
        RawFs.Link(twice, RawFs.Join(_folders[5], "two-names-too.bin"));
        WriteFile(RawFs.Join(root, "two-names-copy.bin"), content, 0x1ED, 0);
        DuplicateNames += 3;

        // Inode flags (nodump) on both copies of a pair; a unique file; a symbolic link no action touches.
        content = RandomBytes(9000);
        foreach (var name in (string[])["nodump-1.bin", "nodump-2.bin"])
        {
            var path = RawFs.Join(_folders[6], name);
            WriteFile(path, content, 0x1A4, 0);
            RawFs.AddInodeFlags(path, 0x40);
        }

        WriteFile(RawFs.Join(root, "unique.bin"), RandomBytes(3000), 0x1A4, 0);
        RawFs.Symlink(RawFs.Bytes("unique.bin"), RawFs.Join(root, "link-to-unique"));
        DuplicateNames += 1;
    }

    /// <summary>Two equal folder trees (same names and bytes, their own modes, times and attributes) for <c>--folders</c>.</summary>
    private void WriteFolderPair(byte[] root)
    {
        var albums = RawFs.Join(root, "albums");
        RawFs.MakeFolder(albums);
        string[] files = ["01.bin", "02.bin", "disc 2/03.bin", "disc 2/04.bin"];
        var contents = files.Select(_ => RandomBytes(_random.Next(2000, 20000))).ToArray();
        foreach (var (copy, folderMode) in (ValueTuple<string, uint>[])[("a-kept", 0x1ED), ("b-copy", 0x1E8)])
        {
            var top = RawFs.Join(albums, copy);
            RawFs.MakeFolder(top);
            RawFs.MakeFolder(RawFs.Join(top, "disc 2"));
            for (var i = 0; i < files.Length; i++)
            {
                WriteFile(RawFs.Join(top, files[i]), contents[i], 0x1A4, 0);
            }

            RawFs.Chmod(RawFs.Join(top, "disc 2"), 0x1C0);
            RawFs.Chmod(top, folderMode);
        }

        // The copy's folders have more to give back than a mode: an owner of their own and an extended attribute.
        RawFs.Chown(RawFs.Join(albums, "b-copy/disc 2"), OtherUser, OtherUser);
        RawFs.SetXattr(RawFs.Join(albums, "b-copy"), "user.folder", RawFs.Bytes("kept with the folder"));

        DuplicateNames += files.Length;
    }

    private void WriteFile(byte[] path, byte[] content, uint mode, uint owner)
    {
        RawFs.WriteFile(path, content);
        RawFs.Chown(path, owner, owner);
        RawFs.Chmod(path, mode);
        if (_random.NextDouble() < 0.4)
        {
            RawFs.SetXattr(path, "user.tag", RandomBytes(_random.Next(1, 40)));
        }

        // A past time, 2005 to 2022, with nanoseconds; the access time apart.
        var mtime = (1_104_537_600L + _random.NextInt64(0, 560_000_000)) * 1_000_000_000 + _random.Next(0, 1_000_000_000);
        RawFs.SetTimes(path, mtime + 1_000_000_000, mtime);
        if (owner == OtherUser)
        {
            OtherUsersNames.Add(RawFs.Show(path.AsSpan(RawFs.Bytes(Base).Length + 1)));
        }
    }

    private byte[] NextName()
    {
        var serial = _serial++;
        return _random.Next(6) == 0
            ? [(byte)'n', 0xFF, .. Encoding.ASCII.GetBytes(serial.ToString("D4", CultureInfo.InvariantCulture)), (byte)'.', (byte)'b']
            : Encoding.ASCII.GetBytes($"f{serial:D4}.bin");
    }

    private byte[] RandomBytes(int length)
    {
        var bytes = new byte[length];
        _random.NextBytes(bytes);
        return bytes;
    }

    public void Dispose()
    {
        // rm -rf first: Directory.Delete cannot name a file whose name is not UTF-8, and would leave the world behind.
        // It removes the trash too (inside the temporary folder). Immutable flags are never set here.
        try
        {
            TempTree.Run("rm", "-rf", Base);
        }
        catch (InvalidOperationException)
        {
        }

        _temp.Dispose();
    }
}
