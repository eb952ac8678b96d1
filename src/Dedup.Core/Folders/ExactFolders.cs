namespace Dedup.Core.Folders;

/// <summary>
/// Finds folders with equal subtrees and keeps the topmost. Equality is exact by construction: a folder's class is
/// interned by its full canonical key (sorted children with their classes), compared entry by entry, never by a hash
/// alone; ignoring names, candidates grouped by a multiset hash are verified by their sorted content lists.
/// </summary>
internal static class ExactFolders
{
    private const long FileKind = 0;
    private const long LinkKind = 1L << 32;
    private const long FolderKind = 2L << 32;
    private const long LinkTag = 1L << 40;

    /// <summary>Classes of folders with the same relative names and contents, each with at least two folders.</summary>
    /// <param name="tree">The folders.</param>
    /// <param name="contents">The files' content classes.</param>
    /// <param name="classOf">Each folder's class; -1 for a folder equal to none.</param>
    public static List<int[]> ByNames(FolderTree tree, ContentClasses contents, out int[] classOf)
    {
        var table = tree.Table;
        classOf = new int[tree.Count];
        var keys = new Dictionary<long[], int>(SequenceComparer.Instance);
        var names = new Dictionary<string, int>(StringComparer.Ordinal);
        var targets = new Dictionary<string, int>(StringComparer.Ordinal);
        var entries = new List<(long Name, long Class)>();
        var members = new List<List<int>>();
        for (var f = tree.Count - 1; f >= 0; f--)
        {
            classOf[f] = -1;
            if (!CanMatch(tree, contents, classOf, f))
            {
                continue; // a folder holding anything unique is unique; its names are never decoded
            }

            entries.Clear();
            foreach (var row in tree.FilesOf(f))
            {
                entries.Add((FileKind | (uint)Id(names, table.GetName(row)), contents.Of(row)));
            }

            foreach (var link in tree.LinksOf(f))
            {
                entries.Add((LinkKind | (uint)Id(names, link.Name), Id(targets, link.Target)));
            }

            foreach (var child in tree.ChildrenOf(f))
            {
                entries.Add((FolderKind | (uint)Id(names, tree.PathOf(child).Name), classOf[child]));
            }

            // Names are unique within a folder and kind, so the order is total.
            entries.Sort(static (a, b) => a.Name.CompareTo(b.Name));
            var key = new long[entries.Count * 2];
            for (var i = 0; i < entries.Count; i++)
            {
                key[2 * i] = entries[i].Name;
                key[(2 * i) + 1] = entries[i].Class;
            }

            if (!keys.TryGetValue(key, out var id))
            {
                keys[key] = id = members.Count;
                members.Add([]);
            }

            classOf[f] = id;
            members[id].Add(f);
        }

        return members.Where(m => m.Count >= 2).Select(m => m.ToArray()).ToList();
    }

    /// <summary>Classes of folders with the same multiset of contents anywhere below them (names and layout ignored).</summary>
    public static List<int[]> ByContents(FolderTree tree, ContentClasses contents)
    {
        var unique = new bool[tree.Count];
        var hash = new ulong[tree.Count];
        var count = new long[tree.Count];
        var targets = new Dictionary<string, int>(StringComparer.Ordinal);
        for (var f = tree.Count - 1; f >= 0; f--)
        {
            var isUnique = tree.Incomplete[f];
            ulong h = 0;
            long n = 0;
            foreach (var row in tree.FilesOf(f))
            {
                isUnique |= contents.IsUnique(row);
                h += Mix((ulong)contents.Of(row));
                n++;
            }

            foreach (var link in tree.LinksOf(f))
            {
                h += Mix((ulong)(LinkTag | (long)Id(targets, link.Target)));
                n++;
            }

            foreach (var child in tree.ChildrenOf(f))
            {
                isUnique |= unique[child];
                h += hash[child];
                n += count[child];
            }

            (unique[f], hash[f], count[f]) = (isUnique, h, n);
        }

        // Candidates share count, bytes and the (commutative) hash; each is then verified by its sorted contents.
        var candidates = new Dictionary<(long Count, long Bytes, ulong Hash), List<int>>();
        for (var f = 0; f < tree.Count; f++)
        {
            if (unique[f] || tree.SubtreeBytes[f] == 0)
            {
                continue;
            }

            var key = (count[f], tree.SubtreeBytes[f], hash[f]);
            if (!candidates.TryGetValue(key, out var list))
            {
                candidates[key] = list = [];
            }

            list.Add(f);
        }

        var classes = new List<int[]>();
        var stack = new Stack<int>();
        foreach (var list in candidates.Values)
        {
            if (list.Count < 2)
            {
                continue;
            }

            var verified = new Dictionary<long[], List<int>>(SequenceComparer.Instance);
            foreach (var f in list)
            {
                var items = new List<long>((int)count[f]);
                stack.Push(f);
                while (stack.Count > 0)
                {
                    var folder = stack.Pop();
                    foreach (var row in tree.FilesOf(folder))
                    {
                        items.Add(contents.Of(row));
                    }

                    foreach (var link in tree.LinksOf(folder))
                    {
                        items.Add(LinkTag | (long)Id(targets, link.Target));
                    }

                    foreach (var child in tree.ChildrenOf(folder))
                    {
                        stack.Push(child);
                    }
                }

                var key = items.ToArray();
                Array.Sort(key);
                if (!verified.TryGetValue(key, out var same))
                {
                    verified[key] = same = [];
                }

                same.Add(f);
            }

            classes.AddRange(verified.Values.Where(v => v.Count >= 2).Select(v => v.ToArray()));
        }

        return classes;
    }

    /// <summary>
    /// Keeps the topmost folders: classes are taken largest first (an enclosing folder's class before those below
    /// it); a folder below a copy (any folder of a group but the first) is left out, and so is one below another
    /// member of its own class (possible when names are ignored), and one that is the same storage as a member
    /// before it in path order (<see cref="FolderStorage"/>: a hard-linked copy or a bind mount is not a copy).
    /// Returns the groups, each in path order, and which folders lie inside a copy.
    /// </summary>
    /// <param name="tree">The folders.</param>
    /// <param name="classes">Classes of equal folders.</param>
    /// <param name="size">A measure equal for the members of a class and larger for an enclosing folder of another class.</param>
    /// <param name="storage">The folders' storage classes.</param>
    public static (List<int[]> Groups, bool[] InsideCopy) Topmost(FolderTree tree, List<int[]> classes, Func<int, long> size, FolderStorage storage)
    {
        var copies = new bool[tree.Count];
        var groups = new List<int[]>();
        foreach (var members in classes.OrderByDescending(c => size(c[0])))
        {
            var kept = members.Where(m => !HasCopyAbove(tree, copies, m)).ToList();
            var set = new HashSet<int>(kept);
            kept.RemoveAll(m => HasAncestorIn(tree, set, m));
            if (kept.Count < 2 || tree.SubtreeBytes[kept[0]] == 0)
            {
                continue; // nothing to reclaim: folders of empty files only are not reported
            }

            var seen = new HashSet<int>();
            var group = kept.Select(m => (Folder: m, Path: tree.PathOf(m))).OrderBy(m => m.Path)
                .Where(m => seen.Add(storage.Of(m.Folder))).Select(m => m.Folder).ToArray();
            if (group.Length < 2)
            {
                continue; // names of the same files, or one folder seen twice: nothing is copied
            }

            for (var i = 1; i < group.Length; i++)
            {
                copies[group[i]] = true;
            }

            groups.Add(group);
        }

        var inside = new bool[tree.Count];
        for (var f = 0; f < tree.Count; f++)
        {
            var parent = tree.Parent[f];
            inside[f] = copies[f] || (parent >= 0 && inside[parent]);
        }

        return (groups, inside);
    }

    private static bool HasCopyAbove(FolderTree tree, bool[] copies, int folder)
    {
        for (var f = tree.Parent[folder]; f >= 0; f = tree.Parent[f])
        {
            if (copies[f])
            {
                return true;
            }
        }

        return false;
    }

    private static bool HasAncestorIn(FolderTree tree, HashSet<int> set, int folder)
    {
        for (var f = tree.Parent[folder]; f >= 0; f = tree.Parent[f])
        {
            if (set.Contains(f))
            {
                return true;
            }
        }

        return false;
    }

    private static bool CanMatch(FolderTree tree, ContentClasses contents, int[] classOf, int folder)
    {
        if (tree.Incomplete[folder])
        {
            return false;
        }

        foreach (var row in tree.FilesOf(folder))
        {
            if (contents.IsUnique(row))
            {
                return false;
            }
        }

        foreach (var child in tree.ChildrenOf(folder))
        {
            if (classOf[child] < 0)
            {
                return false;
            }
        }

        return true;
    }

    private static int Id(Dictionary<string, int> ids, string text)
    {
        if (!ids.TryGetValue(text, out var id))
        {
            ids[text] = id = ids.Count;
        }

        return id;
    }

    /// <summary>SplitMix64's finaliser: spreads a class number over 64 bits for the additive multiset hash.</summary>
    private static ulong Mix(ulong x)
    {
        x += 0x9E3779B97F4A7C15;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EB;
        return x ^ (x >> 31);
    }

    /// <summary>Compares keys item by item (the hash only picks the bucket).</summary>
    internal sealed class SequenceComparer : IEqualityComparer<long[]>
    {
        public static readonly SequenceComparer Instance = new();

        public bool Equals(long[]? x, long[]? y) => x.AsSpan().SequenceEqual(y);

        public int GetHashCode(long[] obj)
        {
            var hash = new HashCode();
            foreach (var item in obj)
            {
                hash.Add(item);
            }

            return hash.ToHashCode();
        }
    }
}
