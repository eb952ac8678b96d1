using Dedup.Core.Enumeration;

namespace Dedup.Core.Folders;

/// <summary>
/// Which folders are the same storage: the same names, each a name of the same file (device and inode), the same
/// links and sub-folders of the same storage. A hard-linked copy (<c>cp -al</c>, rsnapshot) is the same storage as its
/// original, and so is a folder seen twice through a bind mount: removing one frees nothing, and deleting "one of them"
/// through a bind mount deletes both. Classes are interned by their full key, computed on demand once per folder.
/// </summary>
internal sealed class FolderStorage(FolderTree tree)
{
    private const long FileKind = 0;
    private const long LinkKind = 1L << 32;
    private const long FolderKind = 2L << 32;

    private readonly int[] _classOf = Enumerable.Repeat(-1, tree.Count).ToArray();
    private readonly Dictionary<long[], int> _keys = new(ExactFolders.SequenceComparer.Instance);
    private readonly Dictionary<string, int> _names = new(StringComparer.Ordinal);
    private readonly Dictionary<string, int> _targets = new(StringComparer.Ordinal);
    private readonly Dictionary<FileIdentity, int> _identities = [];

    /// <summary>The folder's storage class: equal for two folders only when they are the same storage.</summary>
    /// <remarks>Asked only of folders in a class of equal folders and those below them, whose listings are all complete.</remarks>
    public int Of(int folder)
    {
        if (_classOf[folder] >= 0)
        {
            return _classOf[folder];
        }

        var table = tree.Table;
        var entries = new List<(long Name, long Value)>();
        foreach (var row in tree.FilesOf(folder))
        {
            entries.Add((FileKind | (uint)Id(_names, table.GetName(row)), Id(_identities, table[row].Identity)));
        }

        foreach (var link in tree.LinksOf(folder))
        {
            entries.Add((LinkKind | (uint)Id(_names, link.Name), Id(_targets, link.Target)));
        }

        foreach (var child in tree.ChildrenOf(folder))
        {
            entries.Add((FolderKind | (uint)Id(_names, tree.PathOf(child).Name), Of(child)));
        }

        entries.Sort(static (a, b) => a.Name.CompareTo(b.Name));
        var key = new long[entries.Count * 2];
        for (var i = 0; i < entries.Count; i++)
        {
            key[2 * i] = entries[i].Name;
            key[(2 * i) + 1] = entries[i].Value;
        }

        if (!_keys.TryGetValue(key, out var id))
        {
            _keys[key] = id = _keys.Count;
        }

        return _classOf[folder] = id;
    }

    private static int Id<T>(Dictionary<T, int> ids, T item)
        where T : notnull
    {
        if (!ids.TryGetValue(item, out var id))
        {
            ids[item] = id = ids.Count;
        }

        return id;
    }
}
