using System.Runtime.Versioning;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking.Undo;

/// <summary>
/// Temporary names a killed forward run or a killed undo left in a folder undo is about to act in, removed first under
/// <see cref="LeftoverCleaner"/>'s rules: only our exact pattern, only regular files (and links of our own), and only
/// when losing the name loses nothing: an empty file, another name of a file the journal's steps in this folder name
/// (kept or after), or a file with exactly the bytes of one of them. Anything else stays, with a note.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed partial class UndoEngine
{
    /// <summary>Removes the leftovers it can; whether the folder had any (a step of ours was cut short in it).</summary>
    private bool RemoveLeftovers(FolderHandle folder, JournalRun run)
    {
        var names = new List<string>();
        _ = RootedTree.ListNames(folder.Fd, names);
        var leftovers = names.Where(TemporaryNames.IsTemporaryName).ToList();
        if (leftovers.Count == 0)
        {
            return false;
        }

        // (A root's own folder is opened as "root/.": compared as a path, not as text.)
        var folderPath = AbsolutePath.Parse(folder.Path).ToString();

        // What this folder's steps make provable: the files the names led to after the action, and the kept files.
        var here = _journal.Steps.Where(s => s.Run == run.Id && s.Copies && AbsolutePath.Parse(s.Path).Parent?.ToString() == folderPath).ToList();
        var known = new List<(DuplicateFile Kept, IReadOnlyList<ScanRoot> Roots)>();
        var targets = new HashSet<string>(StringComparer.Ordinal);
        foreach (var step in here)
        {
            if (step.After is { } after && step.Kind != UndoKinds.SymbolicLink)
            {
                known.Add((File(step.Path, after), run.Roots));
            }

            if (step.Kept is not null && step.KeptFile is { } kept)
            {
                known.Add((File(step.Kept, kept), run.Roots));
            }

            if (step.Target is not null)
            {
                targets.Add(step.Target);
            }
        }

        // By identity and path: a hard link's after is the kept file's identity under the duplicate's path, and the kept
        // path must stay among them, or a leftover link to it could never be proven redundant.
        var files = known.DistinctBy(k => (k.Kept.Identity, k.Kept.Path)).ToArray();
        foreach (var name in leftovers)
        {
            if (Libc.LStatAt(folder.Fd, name, out var status) != 0)
            {
                continue;
            }

            string? reason;
            if (status.IsSymbolicLink)
            {
                reason = Libc.ReadLinkTarget(folder.Fd, name) is { } target && targets.Contains(target)
                    ? LeftoverCleaner.Unlink(folder, name, status)
                    : "a symbolic link not made by this journal's actions; left alone";
            }
            else if (status.IsDirectory)
            {
                // Undo's own folder, made under a temporary name and killed before its rename: empty, so rmdir takes it
                // (rmdir never removes a folder that holds anything).
                reason = Libc.UnlinkAt(folder.Fd, name, AtRemoveDir) == 0 ? null : "a folder that is not empty; left alone";
            }
            else
            {
                reason = status.IsRegularFile
                    ? LeftoverCleaner.TryRemoveFile(folder, name, status, files, RootsOf(run))
                    : "not a regular file; left alone";
            }

            if (reason is not null)
            {
                Notes.Add($"leftover temporary file {PathText.Escape(System.IO.Path.Join(folderPath, name))}: {reason}");
            }
        }

        return true;
    }

    private RootHandles RootsOf(JournalRun run)
    {
        if (!_roots.TryGetValue(run.Id, out var roots))
        {
            _roots[run.Id] = roots = new RootHandles();
        }

        return roots;
    }

    private static DuplicateFile File(string path, JournalFile file) =>
        new(AbsolutePath.Parse(path), [], new FileIdentity(file.Device, file.Inode), file.Size, 1, DateTime.UnixEpoch.AddTicks(file.MtimeNs / 100));
}
