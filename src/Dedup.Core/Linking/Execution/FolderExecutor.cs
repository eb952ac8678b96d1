using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Journal;
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
        if (!OperatingSystem.IsLinux())
        {
            // Stryker disable once String : Windows and macOS only
            return Apply(plan, (action, _) => new(action, DuplicateActionStatus.Skipped, "acting on whole folders is implemented for Linux only; act on the file groups", []), cancellationToken, default, run: null);
        }

        return ApplyLinux(plan, progress, cancellationToken);
    }

    [SupportedOSPlatform("linux")]
    private static DuplicateFolderActionReport ApplyLinux(DuplicateFolderActionPlan plan, IProgress<ApplyProgress>? progress, CancellationToken cancellationToken)
    {
        // One journal run for the whole plan, its line synced before anything is touched: every folder's files and removals write to it.
        var run = plan.Journal is { } journal && plan.Actions.Count > 0
            ? JournalRun.Start(journal, plan.Linker.Kind, plan.Actions.SelectMany(a => a.Group.Roots))
            : null;

        // Every root is opened and checked once for the run; the leftovers of an interrupted run go first, as in file plans.
        using var roots = new RootHandles();
        var leftovers = LeftoverCleaner.Remove(
            plan.LeftoverTemporaryFiles,
            plan.Actions.SelectMany(a => a.FileActions).ToArray(),
            path => plan.Actions.FirstOrDefault(a => path.IsUnder(a.Folder) || path.IsUnder(a.Kept))?.Group.Roots ?? [],
            roots);
        return Apply(plan, (action, _) => ApplyOne(plan, action, roots, progress, run, cancellationToken), cancellationToken, leftovers, run);
    }

    /// <summary>
    /// Applies folder after folder until the token is cancelled: then the folders not started are listed on the report
    /// and the run throws, as a file plan does (the folder in progress stops between files; see <see cref="ApplyOne"/>).
    /// </summary>
    private static DuplicateFolderActionReport Apply(
        DuplicateFolderActionPlan plan,
        Func<DuplicateFolderAction, CancellationToken, DuplicateFolderActionOutcome> apply,
        CancellationToken cancellationToken,
        (int Removed, IReadOnlyList<string> LeftAlone) leftovers,
        JournalRun? run)
    {
        var outcomes = new List<DuplicateFolderActionOutcome>(plan.Actions.Count);
        foreach (var action in plan.Actions)
        {
            if (cancellationToken.IsCancellationRequested)
            {
                break;
            }

            var outcome = action.Refusal is not null
                ? new DuplicateFolderActionOutcome(action, DuplicateActionStatus.Skipped, action.Refusal, [])
                : apply(action, cancellationToken);
            outcomes.Add(outcome); // one whose files' run was cancelled ends the loop at the check above
        }

        var report = new DuplicateFolderActionReport(outcomes, leftovers.Removed)
        {
            TemporaryFilesLeftAlone = leftovers.LeftAlone ?? [],
            NotStarted = PlanExecutor.NotStarted(plan.Actions, outcomes.Count),
        };
        var stoppedInFolder = outcomes.LastOrDefault()?.NotStarted.Count > 0; // that run logged the cancel
        if (report.NotStarted.Count == 0 && !stoppedInFolder)
        {
            return report;
        }

        run?.Interrupted(
            outcomes.Sum(o => o.Files.Count(f => f.Status == DuplicateActionStatus.Done)),
            report.NotStarted.Sum(a => a.FileActions.Count) + outcomes.Sum(o => o.NotStarted.Count));

        if (!stoppedInFolder)
        {
            // Cancelled between folders: no file run saw it, so it is logged here, once.
            var files = outcomes.SelectMany(o => o.Files).ToList();
            LinkingLog.ApplyCancelled(
                plan.Logger,
                files.Count(f => f.Status == DuplicateActionStatus.Done),
                report.NotStarted.Sum(a => a.FileActions.Count),
                files.Count(f => f.Status == DuplicateActionStatus.Skipped),
                files.Count(f => f.Status == DuplicateActionStatus.Failed),
                report.ReclaimedBytes);
        }

        throw new ActionsCancelledException(report, cancellationToken);
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

    [SupportedOSPlatform("linux")]
    private static DuplicateFolderActionOutcome ApplyOne(DuplicateFolderActionPlan plan, DuplicateFolderAction action, RootHandles roots, IProgress<ApplyProgress>? progress, JournalRun? run, CancellationToken cancellationToken)
    {
        var snapshots = action.Group.Snapshots!;
        // Stryker disable once Linq : the group holds a snapshot of every folder of its actions (a missing one throws either way)
        var kept = snapshots.First(s => s.Folder == action.Kept);
        // Stryker disable once Linq : as above
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
            using var recheck = new FolderRecheck(action.Group.Roots, roots);
            recheck.RequireUnchanged(kept, "kept folder", checkChangeTime: false);
            recheck.RequireUnchanged(folder, "folder", checkChangeTime: true);
            plan.Faults?.BeforeFolderVerify?.Invoke(folder.Folder.ToString());
            foreach (var file in action.FileActions.DistinctBy(a => a.Duplicate))
            {
                recheck.Verify(file.Kept, file.Duplicate);
            }
        }
        catch (ActionStoppedException stopped)
        {
            return new(action, DuplicateActionStatus.Skipped, stopped.Message + "; nothing in the folder was touched", []);
        }

        var filePlan = new DuplicateActionPlan(plan.Linker, action.FileActions, []) { Logger = plan.Logger, Faults = plan.Faults, JournalRun = run };
        DuplicateActionReport report;
        try
        {
            report = PlanExecutor.Apply(filePlan, progress, cancellationToken);
        }
        catch (ActionsCancelledException cancelled)
        {
            // Stopped between files: the folder is kept as it now is, the files not started are listed on its outcome.
            var partial = cancelled.Report!;
            return new(
                action,
                partial.Done == 0 ? DuplicateActionStatus.Skipped : DuplicateActionStatus.Failed,
                $"cancelled after {partial.Done} of {action.FileActions.Count} {(action.FileActions.Count == 1 ? "file" : "files")}, the folder is kept",
                partial.Outcomes,
                partial.ReclaimedBytes) { NotStarted = partial.NotStarted };
        }

        if (report.Done != report.Outcomes.Count)
        {
            // Stryker disable once Linq : fewer done than outcomes, so one outcome is not done
            var first = report.Outcomes.First(o => o.Status != DuplicateActionStatus.Done);
            return new(
                action,
                report.Done == 0 ? DuplicateActionStatus.Skipped : DuplicateActionStatus.Failed,
                $"{report.Done} of {report.Outcomes.Count} {(report.Outcomes.Count == 1 ? "file" : "files")} done, the folder is kept; {first.Action.Path.ToDisplayString()}: {first.Reason}",
                report.Outcomes,
                report.ReclaimedBytes);
        }

        var isRoot = action.Group.Roots.Any(r => r.Path == folder.Folder);
        if (LinkerCapabilities.Of(plan.Linker).RemovesName && RemoveRest(folder, action.Group.Roots, isRoot, roots, run) is { } problem)
        {
            return new(action, DuplicateActionStatus.Failed, $"every file was handled, but {problem}", report.Outcomes, report.ReclaimedBytes);
        }

        return new(action, DuplicateActionStatus.Done, null, report.Outcomes, report.ReclaimedBytes);
    }

    /// <summary>
    /// Removes what is left of a folder whose files are gone: its links (as links, if unchanged), then its folders,
    /// deepest first, then itself unless it is a scanned root. Each name is removed from its parent opened beneath the
    /// scanned roots, never through a path a link swapped in could redirect; <c>rmdir</c> never removes a folder that
    /// is not empty.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static string? RemoveRest(FolderSnapshot folder, IReadOnlyList<ScanRoot> roots, bool isRoot, RootHandles rootHandles, JournalRun? run)
    {
        foreach (var link in folder.Entries.Where(e => e.Kind == FolderEntryKind.Link))
        {
            var path = Below(folder.Folder, link.RelativePath);
            using var parent = FolderHandle.TryOpenBeneath(roots, path.Parent!, out var problem, rootHandles);
            if (parent is null)
            {
                return $"the symbolic link {PathText.Escape(link.RelativePath)} could not be reached ({problem}); what is left of the folder stays";
            }

            if (Libc.LStatAt(parent.Fd, path.Name, out var status) != 0 || !status.IsSymbolicLink
                || !string.Equals(Libc.ReadLinkTarget(parent.Fd, path.Name), link.LinkTarget, StringComparison.Ordinal))
            {
                return $"the symbolic link {PathText.Escape(link.RelativePath)} changed; what is left of the folder stays";
            }

            if (run is not null && BeginRemoval(run, "removeLink", parent.Fd, path, status, link.LinkTarget) is { } unrecorded)
            {
                return $"the symbolic link {PathText.Escape(link.RelativePath)} {unrecorded}; what is left of the folder stays";
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

            if (run is not null && BeginRemoval(run, "removeFolder", parent.Fd, path, null, null) is { } unrecorded)
            {
                return $"{PathText.Escape(shown)} {unrecorded}; what is left of the folder stays";
            }

            if (Libc.UnlinkAt(parent.Fd, path.Name, RemoveDirectory) != 0)
            {
                return $"{PathText.Escape(shown)} could not be removed ({Libc.Message(Libc.LastErrno)}); what is left of the folder stays";
            }
        }

        return null;
    }

    /// <summary>
    /// Writes the <c>begun</c> line of removing a link (its status and text as just checked) or a folder (its status,
    /// flags and attributes read now, from the folder opened without following a link); the problem, or <see langword="null"/>.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static string? BeginRemoval(JournalRun run, string kind, int parentFd, AbsolutePath path, StatxBuffer? linkStatus, string? target)
    {
        try
        {
            JournalBefore before;
            if (linkStatus is { } status)
            {
                before = JournalBefore.Of(status, 0, JournalMetadata.LinkXattrs(parentFd, path.Name));
            }
            else
            {
                var fd = Libc.OpenAt(parentFd, path.Name, Libc.O_RDONLY | Libc.O_DIRECTORY | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0);
                if (fd < 0)
                {
                    return $"could not be opened for the journal ({Libc.Message(Libc.LastErrno)})";
                }

                try
                {
                    var errno = Libc.FStat(fd, out var folder);
                    if (errno != 0)
                    {
                        return $"could not be read for the journal ({Libc.Message(errno)})";
                    }

                    before = JournalBefore.Of(folder, JournalMetadata.Flags(fd), JournalMetadata.Xattrs(fd));
                }
                finally
                {
                    _ = Libc.Close(fd);
                }
            }

            // The parent's times too: the first removal in a folder of the plan's files holds them as the removal found them.
            var parent = Libc.FStat(parentFd, out var parentStatus) == 0 ? JournalParent.Of(parentStatus) : (JournalParent?)null;
            run.Begun(new BegunEntry(kind, path.ToString(), before) { Target = target, Parent = parent });
            return null;
        }
        catch (ActionStoppedException stopped)
        {
            return $"could not be recorded in the journal ({stopped.Message})";
        }
    }
}
