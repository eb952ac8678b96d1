using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Paths;
using Dedup.Core.Scanning;

namespace Dedup.Core.Folders;

/// <summary>
/// Folder mode, a pipeline of its own composing the whole-file stage. Every file is kept past the size barrier (a
/// file of a unique size is a class of its own and is never read); same-size sets are settled byte by byte exactly as
/// in whole-file mode, giving each file a content class. Folders are then classed bottom-up over the tree
/// (<see cref="ExactFolders"/>), the topmost equal ones reported as <see cref="DuplicateFolderGroup"/>s, and only then
/// the file groups, without the files inside the copies: they wait until the folders are known.
/// </summary>
internal sealed class FolderScan(DuplicateFinderOptions options) : ICompareStage
{
    public bool KeepsSingles => true;

    public bool AllowsListingKeys => false; // its table keeps every file, and a file's content class needs its bytes

    public IReadObserver? Observer => null;

    /// <summary>Folder mode reports its (empty) folder totals even when it did not finish.</summary>
    public StageOutcome Unfinished { get; } = StageOutcome.OfFolders([]);

    /// <summary>Publishes the file groups once the folders are known; returns the folder groups found, exact ones first.</summary>
    public StageOutcome Run(ScanContext context, List<CandidateSet> sets, ScanOutput output, CancellationToken cancellationToken)
    {
        var table = sets.Find(s => s.Table is not null)?.Table;
        if (table is null)
        {
            return Unfinished; // no file at all: no folder worth reporting
        }

        var contents = new ContentClasses(table.Count);
        var settled = new List<(CandidateSet Set, List<SettledGroup> Groups)>();
        var wholeFile = new WholeFileStage(context);
        ScanThreads.Required.ForEach(sets, candidate =>
        {
            if (candidate.Count < 2)
            {
                contents.Assign(candidate, null); // a unique size (or one file under several names): nothing to read
            }
            else if (candidate.Size == 0 && !options.IncludeEmptyFiles)
            {
                contents.Assign(candidate, null, allEqual: true); // empty files are equal; not reported as groups
            }
            else
            {
                var groups = wholeFile.Compare(candidate, cancellationToken);
                contents.Assign(candidate, groups);
                lock (settled)
                {
                    settled.Add((candidate, groups));
                }

                candidate.Release(); // the groups keep their own nodes
            }

            context.Compared.Settled(candidate);
        }, cancellationToken);
        cancellationToken.ThrowIfCancellationRequested();

        var tree = FolderTree.Build(table);
        int[]? classOf = null;
        var storage = new FolderStorage(tree);
        var (groups, insideCopy) = options.IgnoreFolderNames
            ? ExactFolders.Topmost(tree, ExactFolders.ByContents(tree, contents), f => tree.SubtreeFiles[f] + tree.SubtreeLinks[f], storage)
            : ExactFolders.Topmost(tree, ExactFolders.ByNames(tree, contents, out classOf), f => tree.SubtreeEntries[f], storage);
        var results = groups
            .Select(g => new DuplicateFolderGroup(
                g.Select(tree.PathOf).ToArray(),
                tree.SubtreeFiles[g[0]],
                tree.SubtreeBytes[g[0]],
                verifiedByBytes: g.All(f => IsVerified(tree, contents, f)))
            {
                // What acting on the folders checks against: the name-ignoring mode pairs files by content class, not path.
                Snapshots = g.Select(f => FolderSnapshots.Take(tree, contents, f, options.IgnoreFolderNames)).ToArray(),
                Roots = context.Roots,
                FreedBytes = FolderWaste.Freed(tree, g),
            })
            .OrderByDescending(g => g.WastedBytes)
            .ThenBy(g => g.Folders[0])
            .ToList();
        if (classOf is not null)
        {
            results.AddRange(new FolderOverlap(tree, contents, classOf, insideCopy, storage).Find(cancellationToken));
        }

        foreach (var (set, found) in settled)
        {
            foreach (var group in found)
            {
                output.Publish(set.Size, Outside(tree, set, group, insideCopy), group.Verified, ContentMatch.WholeFile);
            }
        }

        return StageOutcome.OfFolders(results);
    }

    /// <summary>The group's files, each with only its names outside the copies; files with none left are dropped.</summary>
    private static List<DuplicateFile> Outside(FolderTree tree, CandidateSet set, SettledGroup group, bool[] insideCopy)
    {
        var table = tree.Table;
        var files = new List<DuplicateFile>(group.Members.Length);
        Dictionary<FileIdentity, List<AbsolutePath>>? outside = null;
        foreach (var row in set.Rows)
        {
            if (insideCopy[table[row].Folder])
            {
                outside ??= [];
                outside.TryAdd(table[row].Identity, []);
            }
        }

        if (outside is not null)
        {
            // Some names are inside copies: each file keeps the names outside them.
            foreach (var row in set.Rows)
            {
                if (outside.TryGetValue(table[row].Identity, out var names) && !insideCopy[table[row].Folder])
                {
                    names.Add(table.GetPath(row));
                }
            }
        }

        foreach (var member in group.Members)
        {
            if (outside is null || !outside.TryGetValue(member.Primary.Identity, out var names))
            {
                files.Add(member.ToDuplicateFile());
            }
            else if (names.Count > 0)
            {
                names.Sort();
                var primary = member.Primary;
                files.Add(new DuplicateFile(names[0], names.GetRange(1, names.Count - 1), primary.Identity, primary.Length, primary.LinkCount, primary.LastWriteTimeUtc)
                {
                    LastChangeTimeUtc = member.LastChangeTimeUtc,
                });
            }
        }

        return files;
    }

    private static bool IsVerified(FolderTree tree, ContentClasses contents, int folder)
    {
        foreach (var row in tree.FilesOf(folder))
        {
            if (contents.IsUnverified(row))
            {
                return false;
            }
        }

        foreach (var child in tree.ChildrenOf(folder))
        {
            if (!IsVerified(tree, contents, child))
            {
                return false;
            }
        }

        return true;
    }
}
