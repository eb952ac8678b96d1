using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core;

/// <summary>
/// A folder a scan started from, and the identity (device and inode) that folder had when the scan started.
/// Actions on the scan's duplicates open the root, check it is still that folder, and reach each file from it
/// without following a symbolic link; reports carry the roots so that actions taken from them can do the same.
/// On Linux a root may also be a file (as jdupes and rmlint accept): its identity is then the file's, and an action
/// may touch that one name in its folder, once the name is checked to be still that file, and nothing beside it.
/// </summary>
public sealed record ScanRoot
{
    private readonly AbsolutePath _path = null!;

    /// <summary>Creates a root record (for example from a report).</summary>
    /// <param name="path">The root folder as given to the scan.</param>
    /// <param name="identity">The identity the folder had when it was scanned.</param>
    public ScanRoot(AbsolutePath path, FileIdentity identity)
    {
        Path = path;
        Identity = identity;
    }

    /// <summary>The root folder (or file) as given to the scan (it may itself be reached through a symbolic link).</summary>
    public AbsolutePath Path
    {
        get => _path;
        init => _path = value ?? throw new ArgumentNullException(nameof(value));
    }

    /// <summary>The folder's (or file's) device and inode when the scan started; the default value where the platform records none.</summary>
    public FileIdentity Identity { get; init; }

    /// <summary>
    /// A root that is a file: the identity its folder had when the scan started, so that an action also refuses the
    /// folder swapped (for a link to a folder holding another name of the file); the default value when not known
    /// (a folder root, or a root read from a report, which records the file's identity only).
    /// </summary>
    internal FileIdentity FolderIdentity { get; init; }

    /// <inheritdoc />
    public override string ToString() => $"{Path} ({Identity})";

    /// <summary>The root with the identity the folder or regular file has now (following a link at the root itself, as the scan does).</summary>
    internal static ScanRoot Capture(AbsolutePath path)
    {
        if (OperatingSystem.IsLinux()
            && Interop.Libc.Statx(Interop.Libc.AT_FDCWD, path.ToString(), 0, Interop.Libc.STATX_BASIC_STATS, out var status) == 0
            && (status.IsDirectory || status.IsRegularFile))
        {
            var folder = default(FileIdentity);
            if (!status.IsDirectory && path.Parent is { } parent
                && Interop.Libc.Statx(Interop.Libc.AT_FDCWD, parent.ToString(), 0, Interop.Libc.STATX_BASIC_STATS, out var parentStatus) == 0)
            {
                folder = new FileIdentity(parentStatus.Device, parentStatus.Ino);
            }

            return new ScanRoot(path, new FileIdentity(status.Device, status.Ino)) { FolderIdentity = folder };
        }

        return new ScanRoot(path, default);
    }

    /// <summary>
    /// Whether an action may reach the file <paramref name="file"/> from <paramref name="roots"/>: a root holds its
    /// folder, or a root is that very name (a root that is a file; by path here, by identity when acted on).
    /// </summary>
    internal static bool Reaches(IReadOnlyList<ScanRoot> roots, AbsolutePath file) =>
        (file.Parent is { } folder && Holding(roots, folder) is not null) || Named(roots, file) is not null;

    /// <summary>The root that is the name <paramref name="file"/> itself (a root that is a file), or <see langword="null"/>.</summary>
    internal static ScanRoot? Named(IReadOnlyList<ScanRoot> roots, AbsolutePath file)
    {
        foreach (var root in roots)
        {
            if (root.Path.Equals(file))
            {
                return root;
            }
        }

        return null;
    }

    /// <summary>The root that holds <paramref name="path"/> (the deepest, when roots nest), or <see langword="null"/>.</summary>
    internal static ScanRoot? Holding(IReadOnlyList<ScanRoot> roots, AbsolutePath path)
    {
        ScanRoot? best = null;
        foreach (var root in roots)
        {
            if (path.IsUnder(root.Path) && (best is null || root.Path.Depth > best.Path.Depth))
            {
                best = root;
            }
        }

        return best;
    }
}
