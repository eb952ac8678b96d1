using System.Runtime.Versioning;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Paths;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Execution;

/// <summary>
/// The checks a folder action makes before touching anything: both folders listed again against the scan, and every
/// pair's bytes compared. As in the file actions, nothing goes through a path: each folder is opened from its scanned
/// root without following links (<see cref="FolderHandle"/>) and listed through its descriptor with the kernel's bytes
/// of each name (a name that is not UTF-8 is the name the scan saw, not one with U+FFFD); each file is opened relative
/// to its folder with <c>O_NOFOLLOW | O_NONBLOCK</c>, so a name swapped for a link, a FIFO or a device is refused,
/// never followed or waited on.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class FolderRecheck(IReadOnlyList<ScanRoot> roots, RootHandles rootHandles) : IDisposable
{
    private OpenedFolder? _keptFolder;
    private OpenedFolder? _duplicateFolder;

    /// <summary>Lists the folder again, recursively and without following links; any entry added, missing or changed stops the action.</summary>
    public void RequireUnchanged(FolderSnapshot snapshot, string which, bool checkChangeTime)
    {
        using var top = FolderHandle.TryOpenBeneath(roots, snapshot.Folder, out var problem, rootHandles)
            ?? throw ActionStoppedException.Skip($"the {which} {snapshot.Folder.ToDisplayString()} is no longer the scanned folder ({problem})");
        var expected = snapshot.Entries.ToDictionary(e => e.RelativePath, StringComparer.Ordinal);
        var seen = new HashSet<string>(StringComparer.Ordinal);
        List(top, string.Empty, expected, seen, which, checkChangeTime);
        if (seen.Count != expected.Count)
        {
            // Stryker disable once Linq : every name seen is expected and fewer were seen, so one is missing
            var missing = snapshot.Entries.First(e => !seen.Contains(e.RelativePath));
            throw Changed(which, missing.RelativePath, "is missing since the scan");
        }
    }

    /// <summary>Compares the pair's bytes, each file opened relative to its folder and checked to be the scanned one.</summary>
    public void Verify(DuplicateFile kept, DuplicateFile duplicate)
    {
        using var a = Open(kept, ref _keptFolder);
        using var b = Open(duplicate, ref _duplicateFolder);
        ContentVerification.RequireEqual(a, b, duplicate.Length);
    }

    public void Dispose()
    {
        _keptFolder?.Handle.Dispose();
        _duplicateFolder?.Handle.Dispose();
    }

    private static void List(FolderHandle folder, string relativeFolder, Dictionary<string, FolderSnapshotEntry> expected, HashSet<string> seen, string which, bool checkChangeTime)
    {
        var names = new List<string>();
        var errno = RootedTree.ListNames(folder.Fd, names);
        if (errno != 0)
        {
            throw ActionStoppedException.Skip($"the {which} cannot be listed again ({PathText.Escape(relativeFolder.Length == 0 ? "." : relativeFolder)}: {Libc.Message(errno)})");
        }

        foreach (var name in names)
        {
            var relative = relativeFolder.Length == 0 ? name : relativeFolder + "/" + name;
            if (!expected.TryGetValue(relative, out var entry))
            {
                throw Changed(which, relative, "appeared since the scan (or was left out of it: hidden, excluded or filtered)");
            }

            seen.Add(relative);
            if (Libc.LStatAt(folder.Fd, name, out var status) != 0)
            {
                throw Changed(which, relative, "vanished while listing");
            }

            var problem = entry.Kind switch
            {
                FolderEntryKind.Folder => status.IsDirectory ? null : "is no longer a folder",
                FolderEntryKind.Link => !status.IsSymbolicLink ? "is no longer a symbolic link"
                    : !string.Equals(Libc.ReadLinkTarget(folder.Fd, name), entry.LinkTarget, StringComparison.Ordinal) ? "points elsewhere now" : null,
                _ => FileProblem(status, entry, checkChangeTime),
            };
            if (problem is not null)
            {
                throw Changed(which, relative, problem);
            }

            if (entry.Kind == FolderEntryKind.Folder)
            {
                // Opened without following a link: a folder swapped for one since the lstat above is refused here.
                using var child = folder.TryOpenChild(name, out var childProblem) ?? throw Changed(which, relative, $"cannot be opened ({childProblem})");
                List(child, relative, expected, seen, which, checkChangeTime);
            }
        }
    }

    private static string? FileProblem(in StatxBuffer status, FolderSnapshotEntry entry, bool checkChangeTime) =>
        !status.IsRegularFile ? "is no longer a regular file"
        : status.Device != entry.Identity.Device || status.Ino != entry.Identity.FileId ? "is now another file (replaced or renamed over)"
        : (long)status.Size != entry.Length ? "changed size"
        : status.LastWriteTimeNs != entry.LastWriteTimeNs ? "was modified"
        : checkChangeTime && entry.ChangeTimeNs != 0 && status.ChangeTimeNs != entry.ChangeTimeNs ? "changed (its change time moved: written, linked, renamed or its permissions changed)"
        : null;

    private static ActionStoppedException Changed(string which, string relative, string what) =>
        ActionStoppedException.Skip($"the {which} changed since the scan: {PathText.Escape(relative)} {what}");

    /// <summary>Opens the file relative to its folder (the last one opened on this side is reused), never following a link nor waiting on a FIFO.</summary>
    private SafeFileHandle Open(DuplicateFile file, ref OpenedFolder? last)
    {
        var parent = file.Path.Parent ?? throw ActionStoppedException.Skip($"{file.Path.ToDisplayString()} is not in a folder");
        if (last is null || !last.Path.Equals(parent))
        {
            last?.Handle.Dispose();
            last = null;
            var handle = FolderHandle.TryOpenBeneath(roots, parent, out var problem, rootHandles)
                ?? throw ActionStoppedException.Skip($"{file.Path.ToDisplayString()} cannot be reached ({problem})");
            last = new OpenedFolder(parent, handle);
        }

        var fd = RootedTree.OpenFile(last.Handle.Fd, file.Path.Name);
        if (fd < 0)
        {
            throw ActionStoppedException.Skip($"{file.Path.ToDisplayString()} cannot be read ({Libc.Message(Libc.LastErrno)})");
        }

        // The name was just listed as this file; the open file must be the same one (not a file, FIFO or device swapped in).
        var opened = new SafeFileHandle((nint)fd, ownsHandle: true);
        if (Libc.FStat(fd, out var status) != 0 || !status.IsRegularFile || status.Device != file.Identity.Device || status.Ino != file.Identity.FileId)
        {
            opened.Dispose();
            throw ActionStoppedException.Skip($"{file.Path.ToDisplayString()} is now another file");
        }

        return opened;
    }

    private sealed record OpenedFolder(AbsolutePath Path, FolderHandle Handle);
}
