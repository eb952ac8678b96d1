using System.Runtime.Versioning;
using System.Text.RegularExpressions;
using System.Text;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Dedup.Core.Pooling;

namespace Dedup.Core.Linking.Trash;

/// <summary>
/// Finds the trash for a file as the freedesktop.org Trash specification says: the home trash
/// (<c>$XDG_DATA_HOME/Trash</c>) for files on its file system, otherwise <c>$topdir/.Trash/$uid</c> when
/// <c>$topdir/.Trash</c> is a real folder (not a symbolic link) with the sticky bit, else <c>$topdir/.Trash-$uid</c>.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed partial class TrashDirectory
{
    private const int PrivateMode = 0x1C0; // 0700

    private readonly uint? _owner;

    private TrashDirectory(string root, string? topDirectory, uint? owner)
    {
        Root = root;
        TopDirectory = topDirectory;
        _owner = owner;
    }

    /// <summary>The trash folder, holding <c>files/</c> and <c>info/</c>.</summary>
    public string Root { get; }

    /// <summary>The mount point the trash belongs to, or <see langword="null"/> for the home trash.</summary>
    public string? TopDirectory { get; }

    public string FilesFolder => Path.Combine(Root, "files");

    public string InfoFolder => Path.Combine(Root, "info");

    public static string DefaultHomeTrash() => Topology.TrashLocator.DefaultHomeTrash();

    /// <summary>
    /// The trash to use for a file on <paramref name="device"/> at <paramref name="path"/>, created if needed: the first
    /// of <see cref="Candidates"/> that may be used (the home trash; else <c>$topdir/.Trash/$uid</c> when
    /// <c>$topdir/.Trash</c> is a real folder with the sticky bit, else <c>$topdir/.Trash-$uid</c>).
    /// </summary>
    public static TrashDirectory For(string path, ulong device, string homeTrash)
    {
        var (top, candidates) = Locate(path, device, homeTrash);
        if (top is null)
        {
            var homeRoot = candidates[0];
            Directory.CreateDirectory(Path.GetDirectoryName(homeRoot)!);
            var home = new TrashDirectory(homeRoot, null, null);
            return home.EnsureFolders(out var problem)
                ? home
                : throw ActionStoppedException.Fail($"cannot use the trash {PathText.Escape(homeRoot)}: {problem}; not moved");
        }

        var shared = Path.GetDirectoryName(candidates[0])!; // $topdir/.Trash
        if (Libc.LStat(shared, out var sharedStatus) == 0 && sharedStatus.IsDirectory && (sharedStatus.Mode & Libc.S_ISVTX) != 0)
        {
            var perUser = new TrashDirectory(candidates[0], top, Interop.Libc.GetEuid());
            if (perUser.EnsureFolders(out _))
            {
                return perUser;
            }
        }

        var own = new TrashDirectory(candidates[1], top, Interop.Libc.GetEuid());
        return own.EnsureFolders(out var reason)
            ? own
            : throw ActionStoppedException.Fail($"no usable trash on the file system mounted at {PathText.Escape(top)} ({PathText.Escape(own.Root)}: {reason}); not moved");
    }

    /// <summary>
    /// The trash folders <see cref="For"/> may choose for a file on <paramref name="device"/> at <paramref name="path"/>
    /// (the home trash when it is on that device, else the mount's <c>.Trash/UID</c> or <c>.Trash-UID</c>), created
    /// nowhere: undo takes a file back only from one of these.
    /// </summary>
    public static IReadOnlyList<string> Candidates(string path, ulong device, string homeTrash) => Locate(path, device, homeTrash).Candidates;

    /// <summary>
    /// The one decision <see cref="For"/> and <see cref="Candidates"/> share: the home trash (no top directory) when it is
    /// on <paramref name="device"/>, else the mount's top directory with <c>.Trash/UID</c> and <c>.Trash-UID</c>, in that order.
    /// </summary>
    private static (string? Top, string[] Candidates) Locate(string path, ulong device, string homeTrash)
    {
        if (Topology.DeviceLookup.OfNearestExisting(homeTrash) == device)
        {
            return (null, [Path.GetFullPath(homeTrash)]);
        }

        var top = TopDirectoryOf(path, device);
        var uid = Interop.Libc.GetEuid().ToString(System.Globalization.CultureInfo.InvariantCulture);
        return (top, [Path.Combine(top, ".Trash", uid), Path.Combine(top, ".Trash-" + uid)]);
    }

    /// <summary>The <c>Path=</c> value: relative to the top directory for a mount's trash, absolute for the home trash.</summary>
    public string InfoPathValue(string path)
    {
        var value = TopDirectory is null ? path : Path.GetRelativePath(TopDirectory, Libc.CanonicalFolderPath(path));
        using var rented = StringBuilderPool.Shared.RentScoped();
        var builder = rented.Builder;
        foreach (var b in Paths.KernelNames.TryGetBytes(value, out var exact) ? exact : Encoding.UTF8.GetBytes(value))
        {
            var c = (char)b;
            if (char.IsAsciiLetterOrDigit(c) || c is '/' or '-' or '_' or '.' or '~')
            {
                builder.Append(c);
            }
            else
            {
                builder.Append('%').Append(b.ToString("X2", System.Globalization.CultureInfo.InvariantCulture));
            }
        }

        return builder.ToString();
    }

    /// <summary>
    /// Opens <c>files/</c> and <c>info/</c> once for the steps that follow (the <c>*at</c> calls), each a real folder
    /// and not a symbolic link in its place, under a trash folder that is still the user's.
    /// </summary>
    public (FolderHandle Files, FolderHandle Info) Open()
    {
        using var root = FolderHandle.TryOpen(Root, followLast: false, out var problem)
            ?? throw ActionStoppedException.Fail($"cannot open the trash {PathText.Escape(Root)}: {problem}; not moved");
        if (Libc.FStat(root.Fd, out var status) != 0 || !status.IsDirectory || (_owner is { } uid && status.Uid != uid))
        {
            throw ActionStoppedException.Fail($"the trash {PathText.Escape(Root)} is not a folder owned by the user; not moved");
        }

        var files = root.TryOpenChild("files", out problem)
            ?? throw ActionStoppedException.Fail($"cannot open {PathText.Escape(FilesFolder)}: {problem}; not moved");
        var info = root.TryOpenChild("info", out problem);
        if (info is null)
        {
            files.Dispose();
            throw ActionStoppedException.Fail($"cannot open {PathText.Escape(InfoFolder)}: {problem}; not moved");
        }

        return (files, info);
    }

    /// <summary>
    /// How old an info file without its file must be (by modification time) before it counts as an interrupted
    /// trashing: a trashing in progress (this run's or another program's) writes its info file moments before it moves the file.
    /// </summary>
    public static readonly TimeSpan OrphanGracePeriod = TimeSpan.FromMinutes(2);

    private const string InfoSuffix = TrashNames.InfoSuffix;
    private const int MaxInfoLength = 8192;

    /// <summary>Exactly what <see cref="Operations.TrashOperation"/> writes: the header, <c>Path=</c> in its encoding and <c>DeletionDate=</c>.</summary>
#if NET
    [GeneratedRegex("^\\[Trash Info\\]\nPath=[A-Za-z0-9/_.~%-]+\nDeletionDate=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\n\\z", RegexOptions.CultureInvariant | RegexOptions.ExplicitCapture)]
    private static partial Regex OurInfo();
#else
    private static readonly Regex OurInfoRegex = new("^\\[Trash Info\\]\nPath=[A-Za-z0-9/_.~%-]+\nDeletionDate=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\n\\z", RegexOptions.CultureInvariant | RegexOptions.ExplicitCapture);

    private static Regex OurInfo() => OurInfoRegex; // netstandard2.0 has no regex generator
#endif

    /// <summary>
    /// Removes what an interrupted trashing (a run killed, a power loss) left in <c>info/</c>: an info file whose
    /// <c>files/</c> name does not exist, that is empty or holds exactly what this tool writes, and that is older than
    /// <see cref="OrphanGracePeriod"/>. Such a file restores nothing (its file never moved, or is gone). An info file
    /// with its file, a young one, another program's, or anything that is not a regular file is never touched.
    /// </summary>
    /// <returns>The info file names removed.</returns>
    public static List<string> RemoveIncompleteTrashings(FolderHandle files, FolderHandle info, DateTime nowUtc)
    {
        var removed = new List<string>();
        foreach (var infoName in ListNames(info.Fd))
        {
            if (!infoName.EndsWith(InfoSuffix, StringComparison.Ordinal) || infoName.Length == InfoSuffix.Length)
            {
                continue;
            }

            var name = infoName[..^InfoSuffix.Length];
            if (Libc.LStatAt(files.Fd, name, out _) != Libc.ENOENT
                || ReadIncompleteTrashing(info.Fd, infoName, nowUtc) is not { } content
                || Libc.UnlinkAt(info.Fd, infoName, 0) != 0)
            {
                continue;
            }

            // A trashing that was only slow may have moved its file in meanwhile: it gets its info file back.
            if (Libc.LStatAt(files.Fd, name, out _) != Libc.ENOENT)
            {
                Restore(info.Fd, infoName, content);
                continue;
            }

            removed.Add(infoName);
        }

        return removed;
    }

    /// <summary><c>fsync</c> of a folder opened with <c>O_PATH</c> (which cannot be synced itself): 0 or an errno.</summary>
    public static int SyncFolder(int folderFd)
    {
        // Stryker disable once Bitwise : "." of anything but a folder fails with ENOTDIR anyway; closed below before any exec could inherit it
        var fd = Libc.OpenAt(folderFd, ".", Libc.O_RDONLY | Libc.O_DIRECTORY | Libc.O_CLOEXEC, 0);
        if (fd < 0)
        {
            return Libc.LastErrno;
        }

        // Stryker disable once Equality,Conditional : differs only when fsync of a folder fails (an I/O error no test can cause)
        var errno = Libc.Fsync(fd) == 0 ? 0 : Libc.LastErrno;
        _ = Libc.Close(fd);
        return errno;
    }

    /// <summary>The info file's bytes when it is a regular file older than the grace period, empty or ours; otherwise <see langword="null"/>.</summary>
    private static byte[]? ReadIncompleteTrashing(int infoFolder, string infoName, DateTime nowUtc)
    {
        var fd = Libc.OpenAt(infoFolder, infoName, Libc.O_RDONLY | Libc.O_NOFOLLOW | Libc.O_NONBLOCK | Libc.O_CLOEXEC, 0);
        // Stryker disable once Block : without the return, fstat(-1) fails and null is returned as well
        if (fd < 0)
        {
            return null;
        }

        using var handle = new Microsoft.Win32.SafeHandles.SafeFileHandle((nint)fd, ownsHandle: true);
        if (Libc.FStat(fd, out var status) != 0 || !status.IsRegularFile || status.Size > MaxInfoLength
            || nowUtc - status.LastWriteTimeUtc < OrphanGracePeriod)
        {
            return null;
        }

        var content = new byte[(int)status.Size];
        try
        {
            if (RandomAccess.Read(handle, content, 0) != content.Length)
            {
                return null;
            }
        }
        catch (IOException)
        {
            return null;
        }

        // Empty: killed between creating the info file and writing it. NUL bytes: a power loss before the write reached the disk.
        return content.AsSpan().IndexOfAnyExcept((byte)0) < 0 || OurInfo().IsMatch(Encoding.UTF8.GetString(content)) ? content : null;
    }

    /// <summary>Gives back an info file removed as an orphan (its file arrived meanwhile): never over a name that exists.</summary>
    internal static void Restore(int infoFolder, string infoName, byte[] content)
    {
        var fd = Libc.OpenAt(infoFolder, infoName, Libc.O_WRONLY | Libc.O_CREAT | Libc.O_EXCL | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0x180);
        if (fd >= 0)
        {
            using var handle = new Microsoft.Win32.SafeHandles.SafeFileHandle((nint)fd, ownsHandle: true);
            RandomAccess.Write(handle, content, 0);
            // Stryker disable once Statement : durability only; no test can observe a sync
            _ = Libc.Fsync(fd);
        }
    }

    /// <summary>The names in a folder that are UTF-8 (a name that is not could not be named back exactly: left alone).</summary>
    private static List<string> ListNames(int folderFd)
    {
        var names = new List<string>();
        _ = RootedTree.ListNames(folderFd, names); // a read that fails ends the list: nothing unlisted is removed
        names.RemoveAll(KernelNames.HasEscapedBytes);
        return names;
    }

    private bool EnsureFolders(out string problem)
    {
        foreach (var folder in new[] { Root, FilesFolder, InfoFolder })
        {
            if (Libc.Mkdir(folder, PrivateMode) != 0 && Libc.LastErrno is var errno && errno != Libc.EEXIST)
            {
                problem = $"cannot create {PathText.Escape(folder)}: {Libc.Message(errno)}";
                return false;
            }

            // A symbolic link or a file in place of a trash folder is not used (the specification's safety rule).
            if (Libc.LStat(folder, out var status) != 0 || !status.IsDirectory || (_owner is { } uid && folder == Root && status.Uid != uid))
            {
                problem = $"{PathText.Escape(folder)} is not a folder owned by the user (or is a symbolic link)";
                return false;
            }
        }

        // Stryker disable once String : the problem is read only when false is returned
        problem = string.Empty;
        return true;
    }

    /// <summary>The highest folder above <paramref name="path"/> still on <paramref name="device"/>: its mount point.</summary>
    private static string TopDirectoryOf(string path, ulong device)
    {
        // Walk up the real folders: through a symbolic link the written path's parents are another mount's.
        var top = Path.GetDirectoryName(Libc.CanonicalFolderPath(path))!;
        for (var parent = Path.GetDirectoryName(top); parent is not null; parent = Path.GetDirectoryName(parent))
        {
            if (Libc.LStat(parent, out var status) != 0 || status.Device != device)
            {
                break;
            }

            top = parent;
        }

        return top;
    }
}
