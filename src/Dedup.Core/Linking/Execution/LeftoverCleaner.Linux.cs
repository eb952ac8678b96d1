using System.Runtime.Versioning;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Paths;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Execution;

/// <summary>
/// Removes the temporary files an interrupted earlier run left behind, but only those that provably are ours: a
/// name matching <see cref="TemporaryFiles"/> could be a user's file, so a leftover is removed only when losing it
/// loses nothing. That is the case for another name of a file this plan keeps (a hard link whose kept name still
/// leads to it), a symbolic link to a name of the plan's files, a file byte-identical to a kept file (a clone) or an
/// empty file (a replacement created but never filled). Anything else is left alone and reported. Every step works
/// relative to the leftover's folder, opened from its scanned root without following links.
/// </summary>
[SupportedOSPlatform("linux")]
internal static class LeftoverCleaner
{
    /// <summary>Removes the plan's provable leftovers; returns how many, and each one left alone with the reason.</summary>
    public static (int Removed, IReadOnlyList<string> LeftAlone) Remove(DuplicateActionPlan plan, RootHandles roots) =>
        Remove(plan.LeftoverTemporaryFiles, plan.Actions, path => plan.Actions.FirstOrDefault(a => a.Path.Parent == path.Parent)?.Group.Roots ?? [], roots);

    /// <summary>
    /// Removes the provable leftovers among <paramref name="leftovers"/>, given the actions whose kept files and names
    /// make a leftover provably ours and the scanned roots a leftover's folder is opened from.
    /// </summary>
    public static (int Removed, IReadOnlyList<string> LeftAlone) Remove(IReadOnlyList<string> leftovers, IReadOnlyList<DuplicateAction> actions, Func<AbsolutePath, IReadOnlyList<ScanRoot>> rootsOf, RootHandles roots)
    {
        var leftAlone = new List<string>();
        var removed = 0;
        // Stryker disable once Block : an early exit; with no leftovers the loop below finds nothing either
        if (leftovers.Count == 0)
        {
            return (0, leftAlone);
        }

        var kept = actions.Select(a => (a.Kept, a.Group.Roots)).DistinctBy(k => k.Kept.Identity).ToArray();

        // A symbolic link loses no data; it is ours when it leads to a name in the plan's groups (an earlier run may have kept another copy).
        // Stryker disable once Linq : a set of names, whatever their order
        var names = actions.SelectMany(a => a.Group.Files).SelectMany(f => f.OtherLinks.Prepend(f.Path)).Select(p => p.ToString()).ToHashSet(StringComparer.Ordinal);
        foreach (var text in leftovers)
        {
            var path = AbsolutePath.Parse(text);
            var reason = TryRemove(path, rootsOf(path), kept, names, roots);
            if (reason is null)
            {
                removed++;
            }
            else if (reason.Length > 0)
            {
                leftAlone.Add($"{path.ToDisplayString()}: {reason}");
            }
        }

        return (removed, leftAlone);
    }

    /// <summary><see langword="null"/> when removed, empty when it is gone already, else why it was left alone.</summary>
    private static string? TryRemove(AbsolutePath path, IReadOnlyList<ScanRoot> roots, (DuplicateFile Kept, IReadOnlyList<ScanRoot> Roots)[] kept, HashSet<string> names, RootHandles rootHandles)
    {
        var name = path.Name;
        if (path.Parent is null || !TemporaryNames.IsTemporaryName(name))
        {
            return "not a temporary name; left alone";
        }

        // Beside a file root its folder is under no folder root: it is reached through that file root, which must still
        // be the scanned file in the scanned folder.
        var fileRoot = roots.FirstOrDefault(r => r.FolderIdentity != default && path.Parent.Equals(r.Path.Parent))?.Path;
        using var folder = FolderHandle.TryOpenBeneath(roots, path.Parent, out var problem, rootHandles, fileRoot);
        if (folder is null)
        {
            return $"folder {problem}; left alone";
        }

        if (Libc.LStatAt(folder.Fd, name, out var status) != 0)
        {
            return string.Empty;
        }

        if (status.IsSymbolicLink)
        {
            var target = Libc.ReadLinkTarget(folder.Fd, name);
            var resolved = target is null ? null : Path.GetFullPath(target, path.Parent.ToString());
            return resolved is not null && names.Contains(resolved)
                ? Unlink(folder, name, status)
                : $"a symbolic link to {PathText.Escape(target ?? "?")}, not to a file of this plan; left alone";
        }

        return status.IsRegularFile ? TryRemoveFile(folder, name, status, kept, rootHandles) : "not a regular file; left alone";
    }

    /// <summary>
    /// As <see cref="TryRemove"/> for the regular file <paramref name="name"/> of <paramref name="folder"/>, whose
    /// status was just taken: the file opened must be that one.
    /// </summary>
    internal static string? TryRemoveFile(FolderHandle folder, string name, in StatxBuffer status, (DuplicateFile Kept, IReadOnlyList<ScanRoot> Roots)[] kept, RootHandles rootHandles)
    {
        var fd = RootedTree.OpenFile(folder.Fd, name);
        if (fd < 0)
        {
            return $"cannot be opened ({Libc.Message(Libc.LastErrno)}); left alone";
        }

        using var leftover = new SafeFileHandle((nint)fd, ownsHandle: true);
        if (Libc.FStat(fd, out var opened) != 0 || !RootedTree.IsSame(opened, status))
        {
            return "changed while being checked; left alone";
        }

        // Empty: killed between creating the replacement and filling it (a clone's O_EXCL create before FICLONE). Its
        // name loses no byte, whatever other names the file has.
        if (opened.Size == 0)
        {
            return Unlink(folder, name, opened);
        }

        foreach (var (file, fileRoots) in kept)
        {
            if ((long)opened.Size == file.Length && HoldsSameBytes(leftover, opened, file, fileRoots, rootHandles))
            {
                return Unlink(folder, name, opened);
            }
        }

        return "not provably a replacement made by this tool (no file this plan keeps has its bytes); left alone";
    }

    /// <summary>Whether the kept file, reached from its root and still the scanned one, is this file or holds exactly its bytes.</summary>
    private static bool HoldsSameBytes(SafeFileHandle leftover, in StatxBuffer opened, DuplicateFile kept, IReadOnlyList<ScanRoot> roots, RootHandles rootHandles)
    {
        using var folder = kept.Path.Parent is null ? null : FolderHandle.TryOpenBeneath(roots, kept.Path.Parent, out _, rootHandles, kept.Path);
        if (folder is null)
        {
            return false;
        }

        var fd = RootedTree.OpenFile(folder.Fd, kept.Path.Name);
        if (fd < 0)
        {
            return false;
        }

        using var keptHandle = new SafeFileHandle((nint)fd, ownsHandle: true);
        if (Libc.FStat(fd, out var status) != 0 || status.Device != kept.Identity.Device || status.Ino != kept.Identity.FileId || !status.IsRegularFile)
        {
            return false;
        }

        if (RootedTree.IsSame(status, opened))
        {
            return true; // another name of the kept file, whose own name still leads to it
        }

        try
        {
            ContentVerification.RequireEqual(keptHandle, leftover, kept.Length);
            return true;
        }
        catch (ActionStoppedException)
        {
            return false;
        }
    }

    /// <summary>Unlinks the name if it still is the file that was checked (same inode, same change time).</summary>
    internal static string? Unlink(FolderHandle folder, string name, in StatxBuffer checkedStatus)
    {
        if (Libc.LStatAt(folder.Fd, name, out var now) != 0 || !RootedTree.IsSame(now, checkedStatus)
            || now.CtimeSec != checkedStatus.CtimeSec || now.CtimeNsec != checkedStatus.CtimeNsec)
        {
            return "changed while being checked; left alone";
        }

        return Libc.UnlinkAt(folder.Fd, name, 0) == 0 ? null : $"cannot be removed ({Libc.Message(Libc.LastErrno)})";
    }
}
