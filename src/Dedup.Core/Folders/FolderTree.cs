using Dedup.Core.Enumeration;
using Dedup.Core.FileSystem;
using Dedup.Core.Paths;

namespace Dedup.Core.Folders;

/// <summary>
/// The scanned folders as a tree over the file table's folder numbers: each folder's files, links and sub-folders
/// (as ranges of flat arrays), and its subtree's totals. A folder is numbered when its listing starts, after its
/// parent's, so a descending pass over the numbers meets every child before its parent.
/// </summary>
internal sealed class FolderTree
{
    private readonly FileTable _table;
    private readonly int[] _fileStart;
    private readonly int[] _files;
    private readonly int[] _childStart;
    private readonly int[] _children;
    private readonly int[] _linkStart;
    private readonly FolderLink[] _links;

    private FolderTree(FileTable table)
    {
        _table = table;
        var count = table.FolderCount;
        Count = count;
        Parent = new int[count];
        Incomplete = new bool[count];
        for (var f = 0; f < count; f++)
        {
            Parent[f] = table.GetParent(f);
            Incomplete[f] = table.IsIncomplete(f);
        }

        // A temporary name of an interrupted action (.dedup-tmp-…) is no part of its folder: the folder still equals
        // its copies, and acting on it removes the leftover first when it is provably ours (LeftoverCleaner).
        (_fileStart, _files) = Group(count, table.Count, r => TemporaryNames.IsTemporaryName(table.Names.GetBytes(table[r].Name)) ? -1 : table[r].Folder);
        (_childStart, _children) = Group(count, count, f => Parent[f]);
        var links = table.Links;
        (_linkStart, var linkOrder) = Group(count, links.Count, i => TemporaryNames.IsTemporaryName(links[i].Name) ? -1 : links[i].Folder);
        _links = linkOrder.Select(i => links[i]).ToArray();

        SubtreeFiles = new long[count];
        SubtreeBytes = new long[count];
        SubtreeEntries = new long[count];
        SubtreeLinks = new long[count];
        for (var f = count - 1; f >= 0; f--)
        {
            long files = 0, bytes = 0;
            foreach (var row in FilesOf(f))
            {
                files++;
                bytes += table[row].Length;
            }

            long linkCount = LinksOf(f).Length;
            long entries = files + linkCount;
            foreach (var child in ChildrenOf(f))
            {
                linkCount += SubtreeLinks[child];
                files += SubtreeFiles[child];
                bytes += SubtreeBytes[child];
                entries += SubtreeEntries[child] + 1;
            }

            SubtreeFiles[f] = files;
            SubtreeBytes[f] = bytes;
            SubtreeEntries[f] = entries;
            SubtreeLinks[f] = linkCount;
        }
    }

    public int Count { get; }

    /// <summary>Each folder's parent, -1 for a root.</summary>
    public int[] Parent { get; }

    /// <summary>Folders whose listing was not complete: never equal to another.</summary>
    public bool[] Incomplete { get; }

    /// <summary>Files (names) in each folder's subtree.</summary>
    public long[] SubtreeFiles { get; }

    /// <summary>Bytes of those files.</summary>
    public long[] SubtreeBytes { get; }

    /// <summary>Symbolic links in each folder's subtree.</summary>
    public long[] SubtreeLinks { get; }

    /// <summary>Files, links and folders below each folder: equal for equal folders, larger for an enclosing one.</summary>
    public long[] SubtreeEntries { get; }

    public FileTable Table => _table;

    public static FolderTree Build(FileTable table) => new(table);

    public ReadOnlySpan<int> FilesOf(int folder) => _files.AsSpan(_fileStart[folder], _fileStart[folder + 1] - _fileStart[folder]);

    public ReadOnlySpan<int> ChildrenOf(int folder) => _children.AsSpan(_childStart[folder], _childStart[folder + 1] - _childStart[folder]);

    public ReadOnlySpan<FolderLink> LinksOf(int folder) => _links.AsSpan(_linkStart[folder], _linkStart[folder + 1] - _linkStart[folder]);

    public AbsolutePath PathOf(int folder) => _table.GetFolder(folder);

    /// <summary>Whether <paramref name="folder"/> lies strictly below <paramref name="ancestor"/>.</summary>
    public bool IsBelow(int folder, int ancestor)
    {
        for (var f = Parent[folder]; f >= 0; f = Parent[f])
        {
            if (f == ancestor)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Items 0..<paramref name="items"/> grouped by key (a folder number; -1 skipped): starts per key and the items in key order.</summary>
    private static (int[] Start, int[] Items) Group(int keys, int items, Func<int, int> keyOf)
    {
        var start = new int[keys + 1];
        var keyOfItem = new int[items];
        for (var i = 0; i < items; i++)
        {
            var key = keyOfItem[i] = keyOf(i);
            if (key >= 0)
            {
                start[key + 1]++;
            }
        }

        for (var k = 0; k < keys; k++)
        {
            start[k + 1] += start[k];
        }

        var next = start.AsSpan(0, keys).ToArray();
        var ordered = new int[start[keys]];
        for (var i = 0; i < items; i++)
        {
            var key = keyOfItem[i];
            if (key >= 0)
            {
                ordered[next[key]++] = i;
            }
        }

        return (start, ordered);
    }
}
