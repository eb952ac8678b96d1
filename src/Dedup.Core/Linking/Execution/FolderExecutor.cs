using System.Runtime.Versioning;
using Dedup.Core.Folders;
using Dedup.Core.Interop;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking.Execution;

/// <summary>
/// Applies folder actions: re-list both folders against the scan, compare every pair's bytes, and only then run the
/// per-file actions through <see cref="PlanExecutor"/> (which checks each file again) and, for delete and trash,
/// remove the emptied folders bottom-up. Never follows a symbolic link: links are listed, compared and removed as links.
/// </summary>
internal static class FolderExecutor
{
    /// <summary><c>AT_REMOVEDIR</c>: <c>unlinkat</c> removes an empty folder, as <c>rmdir</c>.</summary>
    private const int RemoveDirectory = 0x200;

    public static DuplicateFolderActionReport Apply(DuplicateFolderActionPlan plan, IProgress<ApplyProgress>? progress, CancellationToken cancellationToken)
    {
        var outcomes = new List<DuplicateFolderActionOutcome>(plan.Actions.Count);
        foreach (var action in plan.Actions)
        {
            outcomes.Add(cancellationToken.IsCancellationRequested
                ? new DuplicateFolderActionOutcome(action, DuplicateActionStatus.Skipped, "cancelled before this folder", [])
                : ApplyOne(plan, action, progress, cancellationToken));
        }

        return new DuplicateFolderActionReport(outcomes);
    }

    /// <summary>The path of <paramref name="relativePath"/> ('/' between names) below <paramref name="folder"/>.</summary>
    public static AbsolutePath Below(AbsolutePath folder, string relativePath)
    {
        var path = folder;
        foreach (var name in relativePath.Split('/'))
        {
            path = path.Child(name);
        }

        return path;
    }

    private static DuplicateFolderActionOutcome ApplyOne(DuplicateFolderActionPlan plan, DuplicateFolderAction action, IProgress<ApplyProgress>? progress, CancellationToken cancellationToken)
    {
        if (action.Refusal is not null)
        {
            return new(action, DuplicateActionStatus.Skipped, action.Refusal, []);
        }

        if (!OperatingSystem.IsLinux())
        {
            return new(action, DuplicateActionStatus.Skipped, "acting on whole folders is implemented for Linux only; act on the file groups", []);
        }

        var snapshots = action.Group.Snapshots!;
        var kept = snapshots.First(s => s.Folder == action.Kept);
        var folder = snapshots.First(s => s.Folder == action.Folder);
        try
        {
            if (!action.Group.Roots.Any(r => folder.Folder.IsUnder(r.Path)) || !action.Group.Roots.Any(r => kept.Folder.IsUnder(r.Path) || kept.Folder == r.Path))
            {
                throw ActionStoppedException.Skip("the folder is not below the scanned roots");
            }

            // Nothing is touched unless both folders are exactly as scanned and every pair is byte-identical now.
            // The kept files' change time is not held to the scan's: linking an earlier copy of the group to them moves
            // it (as in file plans, which check identity, size and modification time); their bytes are compared below.
            RequireUnchanged(kept, "kept folder", checkChangeTime: false);
            RequireUnchanged(folder, "folder", checkChangeTime: true);
            foreach (var file in action.FileActions.DistinctBy(a => a.Duplicate))
            {
                Verify(file.Kept, file.Duplicate);
            }
        }
        catch (ActionStoppedException stopped)
        {
            return new(action, DuplicateActionStatus.Skipped, stopped.Message + "; nothing in the folder was touched", []);
        }

        var filePlan = new DuplicateActionPlan(plan.Linker, action.FileActions, []) { Logger = plan.Logger };
        var report = PlanExecutor.Apply(filePlan, progress, cancellationToken);
        if (report.Done != report.Outcomes.Count)
        {
            var first = report.Outcomes.First(o => o.Status != DuplicateActionStatus.Done);
            return new(
                action,
                report.Done == 0 ? DuplicateActionStatus.Skipped : DuplicateActionStatus.Failed,
                $"{report.Done} of {report.Outcomes.Count} files done, the folder is kept; {first.Action.Path.ToDisplayString()}: {first.Reason}",
                report.Outcomes,
                report.ReclaimedBytes);
        }

        var isRoot = action.Group.Roots.Any(r => r.Path == folder.Folder);
        if (action.Kind is DuplicateActionKind.Delete or DuplicateActionKind.Trash && RemoveRest(folder, action.Group.Roots, isRoot) is { } problem)
        {
            return new(action, DuplicateActionStatus.Failed, $"every file was handled, but {problem}", report.Outcomes, report.ReclaimedBytes);
        }

        return new(action, DuplicateActionStatus.Done, null, report.Outcomes, report.ReclaimedBytes);
    }

    /// <summary>Lists the folder again, recursively and without following links; any entry added, missing or changed stops the action.</summary>
    [SupportedOSPlatform("linux")]
    private static void RequireUnchanged(FolderSnapshot snapshot, string which, bool checkChangeTime)
    {
        var root = snapshot.Folder.ToString();
        if (Libc.LStat(root, out var self) != 0 || !self.IsDirectory)
        {
            throw ActionStoppedException.Skip($"the {which} {snapshot.Folder.ToDisplayString()} is no longer a folder");
        }

        var expected = snapshot.Entries.ToDictionary(e => e.RelativePath, StringComparer.Ordinal);
        var seen = 0;
        var pending = new Stack<string>();
        pending.Push(string.Empty);
        while (pending.Count > 0)
        {
            var relativeFolder = pending.Pop();
            var full = relativeFolder.Length == 0 ? root : Path.Combine(root, relativeFolder);
            IEnumerable<string> names;
            try
            {
                names = Directory.EnumerateFileSystemEntries(full).Select(Path.GetFileName).OfType<string>().ToArray();
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                throw ActionStoppedException.Skip($"the {which} cannot be listed again ({ex.Message})");
            }

            foreach (var name in names)
            {
                var relative = relativeFolder.Length == 0 ? name : relativeFolder + "/" + name;
                if (!expected.TryGetValue(relative, out var entry))
                {
                    throw Changed(which, relative, "appeared since the scan (or was left out of it: hidden, excluded or filtered)");
                }

                seen++;
                var path = Path.Combine(root, relative);
                if (Libc.LStat(path, out var status) != 0)
                {
                    throw Changed(which, relative, "vanished while listing");
                }

                var problem = entry.Kind switch
                {
                    FolderEntryKind.Folder => status.IsDirectory ? null : "is no longer a folder",
                    FolderEntryKind.Link => !status.IsSymbolicLink ? "is no longer a symbolic link"
                        : !string.Equals(new FileInfo(path).LinkTarget, entry.LinkTarget, StringComparison.Ordinal) ? "points elsewhere now" : null,
                    _ => FileProblem(status, entry, checkChangeTime),
                };
                if (problem is not null)
                {
                    throw Changed(which, relative, problem);
                }

                if (entry.Kind == FolderEntryKind.Folder)
                {
                    pending.Push(relative);
                }
            }
        }

        if (seen != expected.Count)
        {
            var missing = snapshot.Entries.First(e => !Exists(Path.Combine(root, e.RelativePath)));
            throw Changed(which, missing.RelativePath, "is missing since the scan");
        }
    }

    [SupportedOSPlatform("linux")]
    private static string? FileProblem(in StatxBuffer status, FolderSnapshotEntry entry, bool checkChangeTime) =>
        !status.IsRegularFile ? "is no longer a regular file"
        : status.Device != entry.Identity.Device || status.Ino != entry.Identity.FileId ? "is now another file (replaced or renamed over)"
        : (long)status.Size != entry.Length ? "changed size"
        : status.LastWriteTimeNs != entry.LastWriteTimeNs ? "was modified"
        : checkChangeTime && entry.ChangeTimeNs != 0 && status.ChangeTimeNs != entry.ChangeTimeNs ? "changed (its change time moved: written, linked, renamed or its permissions changed)"
        : null;

    [SupportedOSPlatform("linux")]
    private static bool Exists(string path) => Libc.LStat(path, out _) == 0;

    private static ActionStoppedException Changed(string which, string relative, string what) =>
        ActionStoppedException.Skip($"the {which} changed since the scan: {PathText.Escape(relative)} {what}");

    /// <summary>Compares the pair's bytes, each file opened and checked to be the scanned one.</summary>
    [SupportedOSPlatform("linux")]
    private static void Verify(DuplicateFile kept, DuplicateFile duplicate)
    {
        using var a = Open(kept);
        using var b = Open(duplicate);
        ContentVerification.RequireEqual(a, b, duplicate.Length);
    }

    [SupportedOSPlatform("linux")]
    private static Microsoft.Win32.SafeHandles.SafeFileHandle Open(DuplicateFile file)
    {
        Microsoft.Win32.SafeHandles.SafeFileHandle handle;
        try
        {
            handle = File.OpenHandle(file.Path.ToString(), FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw ActionStoppedException.Skip($"{file.Path.ToDisplayString()} cannot be read ({ex.Message})");
        }

        // The name was just listed as this file; opening it must give the same one (not a link or a file swapped in).
        if (Libc.FStat((int)handle.DangerousGetHandle(), out var status) != 0 || status.Device != file.Identity.Device || status.Ino != file.Identity.FileId)
        {
            handle.Dispose();
            throw ActionStoppedException.Skip($"{file.Path.ToDisplayString()} is now another file");
        }

        return handle;
    }

    /// <summary>
    /// Removes what is left of a folder whose files are gone: its links (as links, if unchanged), then its folders,
    /// deepest first, then itself unless it is a scanned root. Each name is removed from its parent opened beneath the
    /// scanned roots, never through a path a link swapped in could redirect; <c>rmdir</c> never removes a folder that
    /// is not empty.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static string? RemoveRest(FolderSnapshot folder, IReadOnlyList<ScanRoot> roots, bool isRoot)
    {
        using var rootHandles = new RootHandles(); // the root resolved and checked once, not per link and folder
        foreach (var link in folder.Entries.Where(e => e.Kind == FolderEntryKind.Link))
        {
            var path = Below(folder.Folder, link.RelativePath);
            using var parent = FolderHandle.TryOpenBeneath(roots, path.Parent!, out var problem, rootHandles);
            if (parent is null)
            {
                return $"the symbolic link {PathText.Escape(link.RelativePath)} could not be reached ({problem}); what is left of the folder stays";
            }

            if (Libc.LStatAt(parent.Fd, path.Name, out var status) != 0 || !status.IsSymbolicLink
                || !string.Equals(new FileInfo(path.ToString()).LinkTarget, link.LinkTarget, StringComparison.Ordinal))
            {
                return $"the symbolic link {PathText.Escape(link.RelativePath)} changed; what is left of the folder stays";
            }

            if (Libc.UnlinkAt(parent.Fd, path.Name, 0) != 0)
            {
                return $"the symbolic link {PathText.Escape(link.RelativePath)} could not be removed ({Libc.Message(Libc.LastErrno)}); what is left of the folder stays";
            }
        }

        var folders = folder.Entries.Where(e => e.Kind == FolderEntryKind.Folder)
            .OrderByDescending(e => e.RelativePath.Count(c => c == '/'))
            .ThenByDescending(e => e.RelativePath, StringComparer.Ordinal)
            .Select(e => (Path: Below(folder.Folder, e.RelativePath), Shown: e.RelativePath + "/"))
            .ToList();
        if (!isRoot)
        {
            folders.Add((folder.Folder, folder.Folder.ToDisplayString() + "/"));
        }

        foreach (var (path, shown) in folders)
        {
            using var parent = FolderHandle.TryOpenBeneath(roots, path.Parent!, out var problem, rootHandles);
            if (parent is null)
            {
                return $"{PathText.Escape(shown)} could not be reached ({problem}); what is left of the folder stays";
            }

            if (Libc.UnlinkAt(parent.Fd, path.Name, RemoveDirectory) != 0)
            {
                return $"{PathText.Escape(shown)} could not be removed ({Libc.Message(Libc.LastErrno)}); what is left of the folder stays";
            }
        }

        return null;
    }
}
