using System.Runtime.InteropServices;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Soak;

/// <summary>What a name in the model holds: a file's bytes, a link's target, or a FIFO.</summary>
internal enum EntryKind
{
    File,
    Symlink,
    Fifo,
}

/// <summary>
/// One name as the user left it. <see cref="Pinned"/>: the user changed it after the scan, so no action may touch it
/// (same inode, same content afterwards); otherwise an action may replace it with a link to equal bytes or, for
/// delete and trash, remove it while equal bytes stay under another name.
/// </summary>
internal sealed record Entry(EntryKind Kind, byte[]? Bytes, string? Target, ulong Inode, bool Pinned);

/// <summary>
/// A seeded world for one soak trial: two scanned roots, a folder outside them (which must never change, and which
/// holds same-named, same-content files a swapped-in link could redirect an action to), and a trash home. The model
/// maps every name the user made under the roots to what it must still hold.
/// </summary>
internal sealed partial class SoakWorld : IDisposable
{
    private static readonly string[] FolderNames = ["a", "b", "sp ace", "deep", "photos"];
    private readonly TempTree _tree;

    public SoakWorld(int seed, string? baseFolder, bool folderCopies)
    {
        Random = new Random(seed);
        _tree = new TempTree(baseFolder);
        Roots = [_tree.PathOf("r1"), _tree.PathOf("r2")];
        Outside = _tree.PathOf("outside");
        TrashHome = _tree.PathOf("home/Trash");
        foreach (var folder in Roots.Append(Outside).Append(Path.GetDirectoryName(TrashHome)!))
        {
            Directory.CreateDirectory(folder);
        }

        Generate(folderCopies);
        OutsideBefore = SnapshotOutside();
    }

    public Random Random { get; }

    public string World => _tree.Root;

    public string[] Roots { get; }

    public string Outside { get; }

    public string TrashHome { get; }

    /// <summary>Every name under the roots (absolute path) and what it must hold; guarded by itself for the concurrent mutator.</summary>
    public Dictionary<string, Entry> Model { get; } = new(StringComparer.Ordinal);

    /// <summary>The folder outside the roots as it was made: (type, bytes or target, inode, mtime) per name.</summary>
    public Dictionary<string, string> OutsideBefore { get; }

    private void Generate(bool folderCopies)
    {
        var contents = Random.Next(2, 7);
        for (var c = 0; c < contents; c++)
        {
            var bytes = RandomContent();
            var copies = Random.Next(1, 5);
            string? first = null;
            for (var i = 0; i < copies; i++)
            {
                var path = NewPath($"f{c}_{i}.bin");
                if (first is not null && Random.Next(5) == 0)
                {
                    Libc.Link(first, path);
                }
                else
                {
                    File.WriteAllBytes(path, bytes);
                }

                first ??= path;
                Record(path, pinned: false);
            }

            // The same bytes outside, under a name that also exists inside: a link swapped in could point there.
            if (Random.Next(2) == 0)
            {
                var outside = Path.Combine(Outside, Path.GetRelativePath(Roots[first!.StartsWith(Roots[0] + "/", StringComparison.Ordinal) ? 0 : 1], first));
                Directory.CreateDirectory(Path.GetDirectoryName(outside)!);
                File.WriteAllBytes(outside, bytes);
            }
        }

        // Links the user made: to a file outside (never followed) and to a file inside.
        var files = Model.Keys.ToList();
        for (var i = Random.Next(0, 3); i > 0; i--)
        {
            var link = NewPath($"link{i}");
            var target = Random.Next(2) == 0 && Directory.EnumerateFiles(Outside, "*", SearchOption.AllDirectories).FirstOrDefault() is { } o
                ? o
                : files[Random.Next(files.Count)];
            File.CreateSymbolicLink(link, target);
            Record(link, pinned: false);
        }

        if (folderCopies)
        {
            // A folder and its exact copy elsewhere, for folder-mode actions.
            var album = Path.Combine(Roots[Random.Next(2)], "album" + Random.Next(100));
            var copy = Path.Combine(Roots[Random.Next(2)], "copy" + Random.Next(100), "album");
            for (var i = Random.Next(1, 4); i > 0; i--)
            {
                var bytes = RandomContent();
                foreach (var folder in new[] { album, copy })
                {
                    var path = Path.Combine(folder, i % 2 == 0 ? "sub" : "", $"t{i}.bin");
                    Directory.CreateDirectory(Path.GetDirectoryName(path)!);
                    File.WriteAllBytes(path, bytes);
                    Record(path, pinned: false);
                }
            }
        }
    }

    /// <summary>Sizes around the probe's 4 KiB prefix and suffix and the small-file key, never empty.</summary>
    public byte[] RandomContent()
    {
        int[] sizes = [1, 100, 4095, 4096, 4097, 8192, 8193, 20_000, 70_000];
        var bytes = new byte[sizes[Random.Next(sizes.Length)] + (Random.Next(3) == 0 ? Random.Next(50) : 0)];
        Random.NextBytes(bytes);
        return bytes;
    }

    /// <summary>A fresh path under a random root and folder (folders created).</summary>
    public string NewPath(string name)
    {
        var folder = Roots[Random.Next(Roots.Length)];
        for (var depth = Random.Next(0, 3); depth > 0; depth--)
        {
            var next = Path.Combine(folder, FolderNames[Random.Next(FolderNames.Length)]);
            if (Libc.LStat(next, out var status) == 0 && !status.IsDirectory)
            {
                break; // a folder swapped for a link: the user would not create through it into the decoy outside
            }

            folder = next;
        }

        Directory.CreateDirectory(folder);
        var path = Path.Combine(folder, name);
        while (Path.Exists(path) || Model.ContainsKey(path))
        {
            path += "x";
        }

        return path;
    }

    /// <summary>Records what <paramref name="path"/> holds now.</summary>
    public void Record(string path, bool pinned)
    {
        lock (Model)
        {
            Model[path] = Read(path, pinned) ?? throw new InvalidOperationException(path + " vanished while recorded");
        }
    }

    /// <summary>What is at <paramref name="path"/> now, without following a final link; null when nothing is.</summary>
    public static Entry? Read(string path, bool pinned = false)
    {
        if (Libc.LStat(path, out var status) != 0)
        {
            return null;
        }

        var info = new FileInfo(path);
        return status.IsSymbolicLink ? new Entry(EntryKind.Symlink, null, info.LinkTarget, status.Ino, pinned)
            : status.IsRegularFile ? new Entry(EntryKind.File, File.ReadAllBytes(path), null, status.Ino, pinned)
            : (status.Mode & 0xF000) == 0x1000 ? new Entry(EntryKind.Fifo, null, null, status.Ino, pinned)
            : throw new InvalidOperationException($"{path}: unexpected kind of file");
    }

    /// <summary>The outside folder, every name with its type, bytes or target, inode and modification time.</summary>
    public Dictionary<string, string> SnapshotOutside()
    {
        var result = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var path in Directory.EnumerateFileSystemEntries(Outside, "*", new EnumerationOptions { RecurseSubdirectories = true, AttributesToSkip = 0 }))
        {
            Assert.Equal(0, Libc.LStat(path, out var status));
            var what = status.IsDirectory ? "dir" : status.IsSymbolicLink ? "link " + new FileInfo(path).LinkTarget : Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(path)));
            result[path] = $"{what} ino={status.Ino} mtime={status.MtimeSec}.{status.MtimeNsec}";
        }

        return result;
    }

    public void Dispose() => _tree.Dispose();

    /// <summary>The test-side system calls the soak needs: status of a name, hard links and FIFOs without a process each.</summary>
    internal static partial class Libc
    {
        public static int LStat(string path, out Dedup.Core.Interop.StatxBuffer status) => Dedup.Core.Interop.Libc.LStat(path, out status);

        [LibraryImport("libc", EntryPoint = "link", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
        private static partial int LinkNative(string existing, string link);

        [LibraryImport("libc", EntryPoint = "mkfifo", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
        private static partial int MkfifoNative(string path, uint mode);

        public static void Link(string existing, string link) =>
            Assert.True(TryLink(existing, link), $"link {existing} {link}: {Marshal.GetLastPInvokeError()}");

        public static bool TryLink(string existing, string link) => LinkNative(existing, link) == 0;

        public static void Mkfifo(string path) =>
            Assert.True(MkfifoNative(path, 0x1A4) == 0, $"mkfifo {path}: {Marshal.GetLastPInvokeError()}");
    }
}
