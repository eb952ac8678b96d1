namespace Dedup.Core.Folders;

/// <summary>Takes the <see cref="FolderSnapshot"/> of a folder of an exact group from the scan's folder tree.</summary>
internal static class FolderSnapshots
{
    public static FolderSnapshot Take(FolderTree tree, ContentClasses contents, int folder, bool pairByContent)
    {
        var entries = new List<FolderSnapshotEntry>();
        Add(tree, contents, folder, string.Empty, entries);
        entries.Sort(static (a, b) => string.CompareOrdinal(a.RelativePath, b.RelativePath));
        return new FolderSnapshot(tree.PathOf(folder), entries, pairByContent);
    }

    private static void Add(FolderTree tree, ContentClasses contents, int folder, string prefix, List<FolderSnapshotEntry> entries)
    {
        var table = tree.Table;
        foreach (var row in tree.FilesOf(folder))
        {
            ref var r = ref table[row];
            entries.Add(new FolderSnapshotEntry(prefix + table.GetName(row), FolderEntryKind.File, null)
            {
                Identity = r.Identity,
                Length = r.Length,
                LinkCount = r.LinkCount,
                LastWriteTimeNs = r.LastWriteTimeNs,
                ChangeTimeNs = r.ChangeTimeNs,
                ContentClass = contents.Of(row),
            });
        }

        foreach (var link in tree.LinksOf(folder))
        {
            entries.Add(new FolderSnapshotEntry(prefix + link.Name, FolderEntryKind.Link, link.Target));
        }

        foreach (var child in tree.ChildrenOf(folder))
        {
            var name = prefix + tree.PathOf(child).Name;
            entries.Add(new FolderSnapshotEntry(name, FolderEntryKind.Folder, null));
            Add(tree, contents, child, name + "/", entries);
        }
    }
}
