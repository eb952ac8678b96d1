using System.Text;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking;

/// <summary>
/// Finds the trash for a file as the freedesktop.org Trash specification says: the home trash
/// (<c>$XDG_DATA_HOME/Trash</c>) for files on its file system, otherwise <c>$topdir/.Trash/$uid</c> when
/// <c>$topdir/.Trash</c> is a real folder (not a symbolic link) with the sticky bit, else <c>$topdir/.Trash-$uid</c>.
/// </summary>
internal sealed class TrashDirectory
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

    public static string DefaultHomeTrash()
    {
        var dataHome = Environment.GetEnvironmentVariable("XDG_DATA_HOME");
        if (string.IsNullOrEmpty(dataHome) || !Path.IsPathRooted(dataHome))
        {
            var home = Environment.GetEnvironmentVariable("HOME");
            if (string.IsNullOrEmpty(home))
            {
                home = Environment.GetFolderPath(Environment.SpecialFolder.UserProfile);
            }

            dataHome = Path.Combine(home, ".local", "share");
        }

        return Path.Combine(dataHome, "Trash");
    }

    /// <summary>The trash to use for a file on <paramref name="device"/> at <paramref name="path"/>; created if needed.</summary>
    public static TrashDirectory For(string path, ulong device, string homeTrash)
    {
        if (DeviceOfNearestExisting(homeTrash) == device)
        {
            Directory.CreateDirectory(Path.GetDirectoryName(homeTrash)!);
            var home = new TrashDirectory(homeTrash, null, null);
            return home.EnsureFolders(out var problem)
                ? home
                : throw ActionStoppedException.Fail($"cannot use the trash {PathText.Escape(homeTrash)}: {problem}; not moved");
        }

        var top = TopDirectoryOf(path, device);
        var uid = Interop.Libc.GetEuid().ToString(System.Globalization.CultureInfo.InvariantCulture);
        var shared = Path.Combine(top, ".Trash");
        if (LinkNative.LStat(shared, out var sharedStatus) == 0 && sharedStatus.IsDirectory && (sharedStatus.Mode & LinkNative.S_ISVTX) != 0)
        {
            var perUser = new TrashDirectory(Path.Combine(shared, uid), top, Interop.Libc.GetEuid());
            if (perUser.EnsureFolders(out _))
            {
                return perUser;
            }
        }

        var own = new TrashDirectory(Path.Combine(top, ".Trash-" + uid), top, Interop.Libc.GetEuid());
        return own.EnsureFolders(out var reason)
            ? own
            : throw ActionStoppedException.Fail($"no usable trash on the file system mounted at {PathText.Escape(top)} ({PathText.Escape(own.Root)}: {reason}); not moved");
    }

    /// <summary>The <c>Path=</c> value: relative to the top directory for a mount's trash, absolute for the home trash.</summary>
    public string InfoPathValue(string path)
    {
        var value = TopDirectory is null ? path : Path.GetRelativePath(TopDirectory, LinkNative.CanonicalFolderPath(path));
        var builder = new StringBuilder();
        foreach (var b in Encoding.UTF8.GetBytes(value))
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
        if (LinkNative.FStat(root.Fd, out var status) != 0 || !status.IsDirectory || (_owner is { } uid && status.Uid != uid))
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

    private bool EnsureFolders(out string problem)
    {
        foreach (var folder in new[] { Root, FilesFolder, InfoFolder })
        {
            if (LinkNative.Mkdir(folder, PrivateMode) != 0 && LinkNative.LastErrno is var errno && errno != LinkNative.EEXIST)
            {
                problem = $"cannot create {PathText.Escape(folder)}: {LinkNative.Message(errno)}";
                return false;
            }

            // A symbolic link or a file in place of a trash folder is not used (the specification's safety rule).
            if (LinkNative.LStat(folder, out var status) != 0 || !status.IsDirectory || (_owner is { } uid && folder == Root && status.Uid != uid))
            {
                problem = $"{PathText.Escape(folder)} is not a folder owned by the user (or is a symbolic link)";
                return false;
            }
        }

        problem = string.Empty;
        return true;
    }

    private static ulong? DeviceOfNearestExisting(string path)
    {
        for (var current = path; !string.IsNullOrEmpty(current); current = Path.GetDirectoryName(current))
        {
            if (LinkNative.Statx(LinkNative.AT_FDCWD, current, 0, LinkNative.STATX_BASIC_STATS, out var status) == 0)
            {
                return status.Device;
            }
        }

        return null;
    }

    /// <summary>The highest folder above <paramref name="path"/> still on <paramref name="device"/>: its mount point.</summary>
    private static string TopDirectoryOf(string path, ulong device)
    {
        // Walk up the real folders: through a symbolic link the written path's parents are another mount's.
        var top = Path.GetDirectoryName(LinkNative.CanonicalFolderPath(path))!;
        for (var parent = Path.GetDirectoryName(top); parent is not null; parent = Path.GetDirectoryName(parent))
        {
            if (LinkNative.LStat(parent, out var status) != 0 || status.Device != device)
            {
                break;
            }

            top = parent;
        }

        return top;
    }
}
