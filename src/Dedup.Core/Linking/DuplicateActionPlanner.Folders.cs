using Dedup.Core.Enumeration;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking;

/// <summary>Plans for whole duplicate folders: the file machinery, one action per name, gathered per folder.</summary>
public sealed partial class DuplicateActionPlanner
{
    /// <summary>
    /// Plans actions on whole duplicate folders; nothing on disk is changed. The keep rules pick the folder that stays
    /// as they pick a file, each folder standing for a file with the folder's path and the latest modification time
    /// of its files (so <see cref="KeepRule.Oldest"/> keeps the folder whose files were last changed longest ago).
    /// Files pair by relative path, or, for groups found ignoring names, by the scan's content class (bytes are compared
    /// again either way). Every other folder of the group gets one action, refused when it cannot be acted on safely:
    /// partial overlaps, groups made by hand (no scan listing to check against), a custom linker, and for delete
    /// and trash a file already shared with the kept folder (hard links); for trash, a folder holding symbolic links.
    /// </summary>
    /// <param name="groups">Folder groups from <see cref="DuplicateScan.FolderGroups"/>.</param>
    /// <returns>The plan.</returns>
    public DuplicateFolderActionPlan PlanFolders(IEnumerable<DuplicateFolderGroup> groups)
    {
        ArgumentNullException.ThrowIfNull(groups);
        var actions = new List<DuplicateFolderAction>();
        var undecided = new List<DuplicateFolderGroup>();
        var trash = Topology.TrashLocator.Create();
        var protection = Protection.Begin();
        foreach (var group in groups.Where(protection.IsReferenced)) // a group with no folder under a reference folder is not ours to act on
        {
            PlanFolderGroup(group, actions, undecided, trash, protection);
        }

        return new DuplicateFolderActionPlan(Linker, actions, undecided, _logger, TemporaryFiles.FindLeftovers(actions.SelectMany(FoldersActedOn).Select(f => f.ToString())))
        {
            Journal = Journal,
        };
    }

    /// <summary>
    /// Plans the file groups of a folder-mode scan, as <see cref="Plan(IEnumerable{DuplicateGroup})"/> does, with one
    /// difference when there are reference folders (<see cref="DuplicateActionPlanBuilder.Reference"/>): a folder group
    /// that <see cref="PlanFolders"/> leaves alone, none of its folders being under a reference folder, is given back
    /// to the file groups. The scan left the files inside its copies out of them; each joins the group of its counterpart
    /// in the group's first folder, so a file with a copy under a reference folder is acted on wherever it lies, as
    /// rmlint's <c>B // A -k -m</c> does.
    /// </summary>
    /// <param name="groups">File groups of a <see cref="DuplicateScan"/>.</param>
    /// <param name="folderGroups">Folder groups of the same scan (<see cref="DuplicateScan.FolderGroups"/>).</param>
    /// <returns>The plan.</returns>
    public DuplicateActionPlan Plan(IEnumerable<DuplicateGroup> groups, IEnumerable<DuplicateFolderGroup> folderGroups)
    {
        ArgumentNullException.ThrowIfNull(groups);
        ArgumentNullException.ThrowIfNull(folderGroups);
        return Plan(Protection.Reference.Count == 0 ? groups : GiveBack(groups.ToList(), folderGroups));
    }

    /// <summary>
    /// The file groups with the files inside the copies of the folder groups no reference folder touches: each joins
    /// the group of its counterpart (same content class) in the first folder, or a new group with it when that file
    /// is in no group (a content found only in these folders; left alone, having no copy under a reference folder).
    /// </summary>
    private List<DuplicateGroup> GiveBack(List<DuplicateGroup> groups, IEnumerable<DuplicateFolderGroup> folderGroups)
    {
        var protection = Protection.Begin();
        var groupOf = new Dictionary<FileIdentity, int>();
        for (var i = 0; i < groups.Count; i++)
        {
            foreach (var file in groups[i].Files)
            {
                groupOf[file.Identity] = i;
            }
        }

        var joining = new Dictionary<int, List<DuplicateFile>>();
        var verified = new Dictionary<int, bool>();
        foreach (var group in folderGroups)
        {
            var snapshots = group.Snapshots;
            if (!group.IsExact || snapshots is null || snapshots.Count < 2 || protection.IsReferenced(group))
            {
                continue;
            }

            var first = snapshots[0];
            var counterparts = first.Entries.Where(e => e.Kind == FolderEntryKind.File).GroupBy(e => e.ContentClass).ToDictionary(c => c.Key, c => c.First());
            foreach (var copy in snapshots.Skip(1))
            {
                foreach (var file in copy.Entries.Where(e => e.Kind == FolderEntryKind.File).GroupBy(e => e.Identity))
                {
                    var entry = file.First();
                    var counterpart = counterparts.TryGetValue(entry.ContentClass, out var found) ? found : null;
                    if (groupOf.ContainsKey(file.Key) || counterpart is null || counterpart.Identity == file.Key)
                    {
                        continue; // already in a group (a name outside the copies), nothing to pair with, or the counterpart itself
                    }

                    if (!groupOf.TryGetValue(counterpart.Identity, out var index))
                    {
                        if (entry.Length == 0)
                        {
                            continue; // empty files are no duplicates unless the scan reported them as such
                        }

                        index = groups.Count;
                        var names = first.Entries.Where(e => e.Kind == FolderEntryKind.File && e.Identity == counterpart.Identity).Select(e => e.RelativePath).ToArray();
                        groups.Add(new DuplicateGroup(entry.Length, [ToFile(first.Folder, names, counterpart), ToFile(copy.Folder, file.Select(e => e.RelativePath).ToArray(), entry)], group.VerifiedByBytes) { Roots = group.Roots });
                        groupOf[counterpart.Identity] = index;
                        groupOf[file.Key] = index;
                        continue;
                    }

                    groupOf[file.Key] = index;
                    if (!joining.TryGetValue(index, out var files))
                    {
                        joining[index] = files = [];
                    }

                    files.Add(ToFile(copy.Folder, file.Select(e => e.RelativePath).ToArray(), entry));
                    verified[index] = (!verified.TryGetValue(index, out var all) || all) && group.VerifiedByBytes;
                }
            }
        }

        foreach (var (index, files) in joining)
        {
            var group = groups[index];
            groups[index] = group with { Files = group.Files.Concat(files).OrderBy(f => f.Path).ToArray(), VerifiedByBytes = group.VerifiedByBytes && verified[index] };
        }

        return groups;
    }

    private void PlanFolderGroup(DuplicateFolderGroup group, List<DuplicateFolderAction> actions, List<DuplicateFolderGroup> undecided, Topology.TrashLocator trash, ProtectionCheck protection)
    {
        if (group.Folders.Count < 2)
        {
            return;
        }

        string? groupRefusal = !group.IsExact
            ? "the folders only partly overlap (some entries differ); only equal folders are acted on whole"
            : group.Snapshots is null
                ? "no scan listing of the folders to check against (the group was not made by a scan); act on the file groups instead"
                : !Capabilities.ActsOnFolders
                    ? "a custom linker acts on file groups only"
                    : null;
        if (groupRefusal is not null)
        {
            foreach (var folder in group.Folders.Skip(1))
            {
                actions.Add(new DuplicateFolderAction(Linker.Kind, group, group.Folders[0], folder, 0, groupRefusal, []));
            }

            return;
        }

        var snapshots = group.Snapshots!;
        var representatives = snapshots.Select(Representative).ToArray();
        var keptFile = KeepRule.SelectKept(representatives, KeepRules, folder => trash.IsInTrash(folder.Path), folder => protection.TouchesProtected(folder.Path)); // the folder itself may be a trash's
        if (keptFile is null)
        {
            undecided.Add(group);
            return;
        }

        var keptIndex = Array.IndexOf(representatives, keptFile);
        var kept = snapshots[keptIndex];
        for (var i = 0; i < snapshots.Count; i++)
        {
            if (i != keptIndex && !protection.TouchesProtected(snapshots[i].Folder)) // a folder under or holding a protected one stays
            {
                actions.Add(PlanFolder(group, kept, snapshots[i], trash));
            }
        }
    }

    private DuplicateFolderAction PlanFolder(DuplicateFolderGroup group, FolderSnapshot kept, FolderSnapshot folder, Topology.TrashLocator trash)
    {
        var removes = Capabilities.RemovesName;
        var keptEntries = kept.Entries.ToDictionary(e => e.RelativePath, StringComparer.Ordinal);
        var keptByContent = kept.Entries.Where(e => e.Kind == FolderEntryKind.File).ToLookup(e => e.ContentClass);
        var taken = new Dictionary<int, int>();
        var keptIdentities = kept.Entries.Where(e => e.Kind == FolderEntryKind.File).Select(e => e.Identity).ToHashSet();
        string? refusal = null;
        if (folder.Folder.IsUnder(kept.Folder) || kept.Folder.IsUnder(folder.Folder))
        {
            refusal = "one folder lies inside the other";
        }
        else if (trash.IsInTrash(kept.Folder))
        {
            refusal = $"the kept folder {kept.Folder.ToDisplayString()} is in a trash folder; nothing is kept outside it";
        }
        else if (!Capabilities.TakesSymbolicLinks && folder.Entries.Any(e => e.Kind == FolderEntryKind.Link))
        {
            refusal = "holds symbolic links, which the trash does not take; use delete, or act on the file groups";
        }

        var fileActions = new List<DuplicateAction>();
        long freed = 0;
        foreach (var file in folder.Entries.Where(e => e.Kind == FolderEntryKind.File).GroupBy(e => e.Identity))
        {
            var names = file.Select(e => e.RelativePath).ToArray(); // already in path order
            if (keptIdentities.Contains(file.Key))
            {
                // Already the kept folder's file: nothing to link; removing the name would need checks of its own.
                refusal ??= removes ? $"{PathText.Escape(names[0])} is already a hard link of a file in the kept folder; act on the file groups, or remove it by hand" : null;
                continue;
            }

            // Stryker disable once Linq : a GroupBy group is never empty
            var counterpart = folder.PairByContent ? ByContent(keptByContent, taken, file.First().ContentClass) : keptEntries.TryGetValue(names[0], out var byPath) ? byPath : null;
            if (counterpart is not { Kind: FolderEntryKind.File })
            {
                refusal ??= $"{PathText.Escape(names[0])} has no counterpart in the kept folder";
                continue;
            }

            // Stryker disable once Linq : a GroupBy group is never empty
            var first = file.First();
            var duplicate = ToFile(folder.Folder, names, first);
            var keptFile = ToFile(kept.Folder, [counterpart.RelativePath], counterpart);
            var pairGroup = new DuplicateGroup(first.Length, [keptFile, duplicate], group.VerifiedByBytes) { Roots = group.Roots };
            var pairRefusal = RefuseForGroup(pairGroup, keptFile, duplicate, trash) ?? Linker.RefuseAtPlanTime(keptFile, duplicate);
            refusal ??= pairRefusal is null ? null : $"{PathText.Escape(names[0])}: {pairRefusal}";
            var allNames = new[] { duplicate.Path }.Concat(duplicate.OtherLinks).ToArray();
            var bytes = Capabilities.ActsOnData || duplicate.LinkCount <= allNames.Length ? duplicate.Length : 0;
            freed += bytes;
            if (Capabilities.ActsOnData)
            {
                fileActions.Add(new DuplicateAction(Linker.Kind, pairGroup, keptFile, duplicate, duplicate.Path, bytes, null));
                continue;
            }

            for (var n = 0; n < allNames.Length; n++)
            {
                fileActions.Add(new DuplicateAction(Linker.Kind, pairGroup, keptFile, duplicate, allNames[n], n == allNames.Length - 1 ? bytes : 0, null));
            }
        }

        return new DuplicateFolderAction(Linker.Kind, group, kept.Folder, folder.Folder, refusal is null ? freed : 0, refusal, fileActions);
    }

    /// <summary>
    /// Where an interrupted run may have left temporary names: both folders of the action and every folder below them
    /// (an earlier run may have kept another folder of the group). The scan leaves such names out of the folders.
    /// </summary>
    // Stryker disable once Linq : FindLeftovers takes each folder once and sorts what it finds, so the folders' order is not seen
    private static IEnumerable<AbsolutePath> FoldersActedOn(DuplicateFolderAction action) =>
        action.Group.Snapshots?.Where(s => s.Folder == action.Folder || s.Folder == action.Kept)
            .SelectMany(s => s.Entries.Where(e => e.Kind == FolderEntryKind.Folder).Select(e => FolderExecutor.Below(s.Folder, e.RelativePath)).Prepend(s.Folder))
        ?? [];

    /// <summary>Ignoring names: the kept folder's next file of the same content class (each used once while there are enough).</summary>
    private static FolderSnapshotEntry? ByContent(ILookup<int, FolderSnapshotEntry> kept, Dictionary<int, int> taken, int contentClass)
    {
        var candidates = kept[contentClass].ToArray();
        if (candidates.Length == 0)
        {
            return null;
        }

        var next = taken.TryGetValue(contentClass, out var used) ? used : 0;
        taken[contentClass] = next + 1;
        return candidates[next % candidates.Length];
    }

    private static DuplicateFile ToFile(AbsolutePath folder, IReadOnlyList<string> relativePaths, FolderSnapshotEntry entry)
    {
        var paths = relativePaths.Select(p => FolderExecutor.Below(folder, p)).ToArray();
        return new DuplicateFile(paths[0], paths.Skip(1).ToArray(), entry.Identity, entry.Length, entry.LinkCount, FileTable.ToDateTime(entry.LastWriteTimeNs))
        {
            LastChangeTimeUtc = entry.ChangeTimeNs == 0 ? DateTime.MinValue : FileTable.ToDateTime(entry.ChangeTimeNs),
        };
    }

    /// <summary>A folder as the keep rules see it: its path, and its files' latest modification time.</summary>
    private static DuplicateFile Representative(FolderSnapshot snapshot)
    {
        var files = snapshot.Entries.Where(e => e.Kind == FolderEntryKind.File).ToArray();
        var latest = files.Length == 0 ? DateTime.MinValue : FileTable.ToDateTime(files.Max(e => e.LastWriteTimeNs));
        return new DuplicateFile(snapshot.Folder, [], default, files.Sum(e => e.Length), 1, latest);
    }
}
