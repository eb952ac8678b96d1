using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Paths;

namespace Dedup.Core.Topology;

// Linux: where a folder really is, as the kernel resolves it.
internal sealed partial class TrashLocator
{
    /// <summary>Real folders seen so far (a path with no symbolic link in it): whether each is in a trash.</summary>
    private readonly Dictionary<string, bool> _realVerdicts = new(StringComparer.Ordinal);

    /// <summary>Each folder's real path (<see langword="null"/>: gone or unreadable).</summary>
    private readonly Dictionary<AbsolutePath, string?> _realPaths = new();

    private HashSet<(ulong Device, ulong Inode)>? _homeTrash;

    private Dictionary<string, string>? _mountRoots;

    [SupportedOSPlatform("linux")]
    private partial bool LiesInTrashLinux(AbsolutePath folder)
    {
        // A folder that is gone or unreadable has no real location to look at: its names (already checked) decide.
        var real = RealPathOf(folder);
        return real is not null && RealFolderInTrash(real);
    }

    /// <summary>
    /// The folder's real path: its parent's real path and its name, unless it is a symbolic link (then <c>realpath</c>).
    /// One <c>lstat</c> a folder, not one per name of the path.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private string? RealPathOf(AbsolutePath folder)
    {
        // Stryker disable once Block : a cache; working the path out again gives the same one
        if (_realPaths.TryGetValue(folder, out var real))
        {
            return real;
        }

        var path = folder.ToString();
        if (folder.Parent is null)
        {
            real = path;
        }
        else if (Libc.LStat(path, out var status) != 0)
        {
            real = null;
        }
        else if (status.IsSymbolicLink)
        {
            real = Libc.RealPathOf(path, out _);
        }
        else
        {
            real = RealPathOf(folder.Parent) is { } parent ? Path.Combine(parent, folder.Name) : null;
        }

        _realPaths[folder] = real;
        return real;
    }

    /// <summary>
    /// Whether the real folder <paramref name="real"/> is a trash or lies below one: by its names, by its identity
    /// against the home trash's (a bind mount, or <c>$XDG_DATA_HOME</c> reached through a symbolic link), and at a
    /// mount point by the mount's root within its file system (a bind mount of a folder below a trash).
    /// </summary>
    [SupportedOSPlatform("linux")]
    private bool RealFolderInTrash(string real)
    {
        if (_realVerdicts.TryGetValue(real, out var known))
        {
            return known;
        }

        // Stryker disable once String : "" is never a real path, and GetDirectoryName("/") is null too
        var parent = real == "/" ? null : Path.GetDirectoryName(real);
        var verdict = parent is not null && RealFolderInTrash(parent);
        if (!verdict && parent is not null)
        {
            var grandParent = Path.GetDirectoryName(parent);
            verdict = IsTrashName(Path.GetFileName(real), NameOf(parent), grandParent is null ? null : NameOf(grandParent))
                || string.Equals(real, _xdgTrash, StringComparison.Ordinal);
        }

        if (!verdict && Libc.LStat(real, out var status) == 0)
        {
            // Stryker disable once Assignment : a cache; reading the identities again gives the same set
            _homeTrash ??= HomeTrashIdentities();
            verdict = _homeTrash.Contains((status.Device, status.Ino))
                || (MountRoots().TryGetValue(real, out var root) // a bind mount of the same file system keeps the device: by the table
                    && IsTrashByNames(root.Split(['/'], StringSplitOptions.RemoveEmptyEntries)));
        }

        _realVerdicts[real] = verdict;
        return verdict;
    }

    // Stryker disable once String : "" is never a folder passed here (real paths are absolute)
    private static string? NameOf(string folder) => folder == "/" ? null : Path.GetFileName(folder);

    /// <summary>The home trash (as <c>$XDG_DATA_HOME</c> names it, and the default one) and its <c>files/</c>, as they resolve now.</summary>
    [SupportedOSPlatform("linux")]
    private static HashSet<(ulong Device, ulong Inode)> HomeTrashIdentities()
    {
        var found = new HashSet<(ulong, ulong)>();
        var home = Environment.GetEnvironmentVariable("HOME");
        var candidates = new List<string> { DefaultHomeTrash() };
        if (!string.IsNullOrEmpty(home))
        {
            candidates.Add(Path.Combine(home, ".local", "share", "Trash"));
        }

        foreach (var trash in candidates)
        {
            foreach (var folder in new[] { trash, Path.Combine(trash, "files") })
            {
                // Followed: a home trash that is a symbolic link still holds the user's trashed files.
                if (Libc.RealPathOf(folder, out _) is { } real && Libc.LStat(real, out var status) == 0 && status.IsDirectory)
                {
                    found.Add((status.Device, status.Ino));
                }
            }
        }

        return found;
    }

    /// <summary>Each mount point with its root within its file system (<c>/proc/self/mountinfo</c>); a later mount on a point hides earlier ones.</summary>
    private Dictionary<string, string> MountRoots()
    {
        // Stryker disable once Block : a cache; reading the mount table again gives the same map
        if (_mountRoots is not null)
        {
            return _mountRoots;
        }

        _mountRoots = new Dictionary<string, string>(StringComparer.Ordinal);
        try
        {
            foreach (var line in File.ReadLines("/proc/self/mountinfo"))
            {
                // id parent major:minor root mountpoint options ...
                var fields = line.Split(' ');
                if (fields.Length > 4)
                {
                    _mountRoots[LinuxDriveTopology.Unescape(fields[4])] = LinuxDriveTopology.Unescape(fields[3]);
                }
            }
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }

        return _mountRoots;
    }
}
