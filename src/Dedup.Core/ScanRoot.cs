using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core;

/// <summary>
/// A folder a scan started from, and the identity (device and inode) that folder had when the scan started.
/// Actions on the scan's duplicates open the root, check it is still that folder, and reach each file from it
/// without following a symbolic link; reports carry the roots so that actions taken from them can do the same.
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

    /// <summary>The root folder as given to the scan (it may itself be reached through a symbolic link).</summary>
    public AbsolutePath Path
    {
        get => _path;
        init => _path = value ?? throw new ArgumentNullException(nameof(value));
    }

    /// <summary>The folder's device and inode when the scan started; the default value where the platform records none.</summary>
    public FileIdentity Identity { get; init; }

    /// <inheritdoc />
    public override string ToString() => $"{Path} ({Identity})";

    /// <summary>The root with the identity the folder has now (following a link at the root itself, as the scan does).</summary>
    internal static ScanRoot Capture(AbsolutePath path)
    {
        if (OperatingSystem.IsLinux()
            && Interop.Libc.Statx(Interop.Libc.AT_FDCWD, path.ToString(), 0, Interop.Libc.STATX_BASIC_STATS, out var status) == 0
            && status.IsDirectory)
        {
            return new ScanRoot(path, new FileIdentity(status.Device, status.Ino));
        }

        return new ScanRoot(path, default);
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
