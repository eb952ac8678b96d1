using Dedup.Core.FileSystem;
using Dedup.Core.Paths;

namespace Dedup.Core.Topology;

/// <summary>
/// Tells whether a folder lies in a trash: by the names in the path held (freedesktop <c>.local/share/Trash</c>,
/// <c>$XDG_DATA_HOME/Trash</c>, <c>.Trash</c>, <c>.Trash-$uid</c>; Windows <c>$RECYCLE.BIN</c> and <c>RECYCLER</c> and
/// macOS <c>.Trashes</c> on a mounted volume) and, on Linux, by where the folder really is: its real path's names, the
/// identities (device, inode) of its real ancestors against the home trash's, and each mount's root within its file
/// system. So a root named through a symbolic link, or a bind mount, into a trash does not hide it.
/// One locator serves one plan (or one HTML report, which marks the copy a plan would keep): each folder is looked at
/// once (verdicts are cached per folder), never per file. In <c>Topology</c>, below the reports and the actions that
/// both ask it, since where a folder really is (its mounts, its identity) is what decides.
/// </summary>
internal sealed partial class TrashLocator
{
    private readonly Dictionary<AbsolutePath, bool> _verdicts = new();

    private readonly string? _xdgTrash;

    private TrashLocator(string? xdgTrash) => _xdgTrash = xdgTrash;

    /// <summary>A locator reading the environment (<c>XDG_DATA_HOME</c>, <c>HOME</c>) now.</summary>
    public static TrashLocator Create()
        => new(Environment.GetEnvironmentVariable("XDG_DATA_HOME") is { Length: > 0 } xdg ? Path.Combine(xdg, "Trash") : null);

    /// <summary>The home trash as the specification places it: <c>$XDG_DATA_HOME/Trash</c>, by default <c>~/.local/share/Trash</c>.</summary>
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

    /// <summary>Whether a file is in a trash folder or is one of our temporary files: such a copy is never the one kept.</summary>
    public bool IsDisposableFile(AbsolutePath file)
        => TemporaryNames.IsTemporaryName(file.Name) || (file.Parent is { } folder && IsInTrash(folder));

    /// <summary>Whether <paramref name="folder"/> is a trash folder or lies below one.</summary>
    public bool IsInTrash(AbsolutePath folder)
    {
        if (_verdicts.TryGetValue(folder, out var verdict))
        {
            return verdict;
        }

        verdict = NamesShowTrash(folder) || (folder.Parent is { } parent && IsInTrash(parent));
        if (!verdict && folder.Parent is not null && OperatingSystem.IsLinux())
        {
            // The real location, once per folder: the parent's verdict came from its own, so only this one is new.
            verdict = LiesInTrashLinux(folder);
        }

        _verdicts[folder] = verdict;
        return verdict;
    }

    /// <summary>Whether the folder named <paramref name="names"/> (root first; the last is the folder) is a trash by its names.</summary>
    internal static bool IsTrashByNames(IReadOnlyList<string> names)
    {
        for (var i = 0; i < names.Count; i++)
        {
            if (IsTrashName(names[i], i > 0 ? names[i - 1] : null, i > 1 ? names[i - 2] : null))
            {
                return true;
            }
        }

        return false;
    }

    private static bool IsTrashName(string name, string? parent, string? grandParent)
        => name == ".Trash" || name.StartsWith(".Trash-", StringComparison.Ordinal)
            || (name == "Trash" && parent == "share" && grandParent == ".local")

            // Other systems' trashes on a volume mounted here; their file systems ignore case.
            || string.Equals(name, "$RECYCLE.BIN", StringComparison.OrdinalIgnoreCase)
            || string.Equals(name, "RECYCLER", StringComparison.OrdinalIgnoreCase)
            || string.Equals(name, ".Trashes", StringComparison.OrdinalIgnoreCase);

    /// <summary>This node's own name (with its parents' for <c>.local/share/Trash</c>), or the whole path against <c>$XDG_DATA_HOME/Trash</c>.</summary>
    private bool NamesShowTrash(AbsolutePath folder)
        => (folder.Parent is not null && IsTrashName(folder.Name, folder.Parent.Name, folder.Parent.Parent?.Name))
            || (_xdgTrash is not null && folder.Name == "Trash" && string.Equals(folder.ToString(), _xdgTrash, StringComparison.Ordinal));

    private partial bool LiesInTrashLinux(AbsolutePath folder);
}
