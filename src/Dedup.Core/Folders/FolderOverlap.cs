using System.IO.Hashing;
using System.Runtime.InteropServices;

namespace Dedup.Core.Folders;

/// <summary>
/// Partial overlaps (named mode): pairs of folders equal but for a few entries — an album copy with one extra or one
/// changed track. Seeds are pairs of folders holding a file of the same name and content; each pair is compared name
/// by name (equal sub-folders taken whole by their class) and kept when at least half the files on each side are
/// equal, then climbed to the enclosing pair while that still holds, so only the topmost pair is listed. Most pairs
/// fail; they are rejected by counting the shared files over each folder's entries sorted by name hash (names compared
/// as stored bytes, nothing decoded), and only a pair that passes is walked by name to list what differs.
/// </summary>
internal sealed class FolderOverlap(FolderTree tree, ContentClasses contents, int[] classOf, bool[] insideCopy, FolderStorage storage)
{
    /// <summary>Content classes with more files than this seed no pairs (the pairs grow with the square).</summary>
    private const int MaxSeedClass = 32;

    private readonly Dictionary<(int, int), Comparison?> _compared = [];
    private readonly NameKey[]?[] _fileKeys = new NameKey[]?[tree.Count];
    private readonly NameKey[]?[] _childKeys = new NameKey[]?[tree.Count];

    private FolderTree Tree => tree;

    private ContentClasses Contents => contents;

    public List<DuplicateFolderGroup> Find(CancellationToken cancellationToken)
    {
        var table = tree.Table;
        var byClass = new Dictionary<int, List<int>>();
        for (var row = 0; row < table.Count; row++)
        {
            if (!contents.IsUnique(row) && !insideCopy[table[row].Folder] && table[row].Length > 0)
            {
                var cls = contents.Of(row);
                if (!byClass.TryGetValue(cls, out var rows))
                {
                    byClass[cls] = rows = [];
                }

                rows.Add(row);
            }
        }

        var seeds = new HashSet<(int, int)>();
        foreach (var rows in byClass.Values)
        {
            if (rows.Count < 2 || rows.Count > MaxSeedClass)
            {
                continue;
            }

            for (var i = 0; i < rows.Count; i++)
            {
                for (var j = i + 1; j < rows.Count; j++)
                {
                    var (a, b) = (table[rows[i]].Folder, table[rows[j]].Folder);
                    if (a != b && table.Names.GetBytes(table[rows[i]].Name).SequenceEqual(table.Names.GetBytes(table[rows[j]].Name)))
                    {
                        seeds.Add(a < b ? (a, b) : (b, a));
                    }
                }
            }
        }

        var found = new HashSet<(int, int)>();
        foreach (var seed in seeds)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (Compare(seed.Item1, seed.Item2) is null)
            {
                continue;
            }

            var top = seed;
            var dropped = false;
            while (tree.Parent[top.Item1] >= 0 && tree.Parent[top.Item2] >= 0)
            {
                var (pa, pb) = (tree.Parent[top.Item1], tree.Parent[top.Item2]);
                if (pa == pb || IsExact(pa, pb))
                {
                    dropped = IsExact(pa, pb); // inside equal folders: the exact groups tell it
                    break;
                }

                if (Compare(pa, pb) is null)
                {
                    break;
                }

                top = (pa, pb);
            }

            if (!dropped)
            {
                found.Add(top);
            }
        }

        // One pair per two storages, the first by path: a pair is found from either side (parallel listing numbers
        // folders in any order), and a hard-linked copy or bind mount of a folder would repeat that folder's pair.
        var listed = new HashSet<(int, int)>();
        return found
            .Select(pair => (Storage: StoragePair(pair.Item1, pair.Item2), Group: ToGroup(pair.Item1, pair.Item2, Compare(pair.Item1, pair.Item2)!)))
            .OrderBy(p => p.Group.Folders[0])
            .ThenBy(p => p.Group.Folders[1])
            .Where(p => listed.Add(p.Storage))
            .Select(p => p.Group)
            .OrderByDescending(g => g.Bytes)
            .ThenBy(g => g.Folders[0])
            .ToList();
    }

    private (int, int) StoragePair(int a, int b)
    {
        // Folders of the same storage are of the same class; one in none is its own storage (and costs no listing).
        var (x, y) = (StorageOf(a), StorageOf(b));
        return x < y ? (x, y) : (y, x);
    }

    private int StorageOf(int folder) => classOf[folder] >= 0 ? storage.Of(folder) : -1 - folder;

    private bool IsExact(int a, int b) => classOf[a] >= 0 && classOf[a] == classOf[b];

    /// <summary>The pair's comparison when it is a partial overlap worth listing; <see langword="null"/> when not.</summary>
    private Comparison? Compare(int a, int b)
    {
        if (_compared.TryGetValue((a, b), out var known))
        {
            return known;
        }

        // At least half the files on each side must be equal: sides more than twice apart fail without a walk.
        Comparison? result = null;
        var (filesA, filesB) = (tree.SubtreeFiles[a], tree.SubtreeFiles[b]);
        if (Math.Min(filesA, filesB) * 2 >= Math.Max(filesA, filesB)
            && !IsExact(a, b) && !insideCopy[a] && !insideCopy[b] && !tree.IsBelow(a, b) && !tree.IsBelow(b, a)
            && Shared(a, b) is var (files, bytes) && bytes > 0 && files * 2 >= Math.Max(filesA, filesB))
        {
            var comparison = new Comparison();
            comparison.Walk(this, a, b, string.Empty);
            var most = Math.Max(tree.SubtreeFiles[a], tree.SubtreeFiles[b]);
            if (comparison.Differences.Count > 0 && comparison.SharedBytes > 0 && comparison.SharedFiles * 2 >= most)
            {
                result = comparison;
            }
        }

        _compared[(a, b)] = result;
        return result;
    }

    /// <summary>
    /// Files with the same relative name and content below both folders (equal sub-folders taken whole): what
    /// <see cref="Comparison.Walk"/> counts, without decoding a name or listing a difference.
    /// </summary>
    private (long Files, long Bytes) Shared(int a, int b)
    {
        var table = tree.Table;
        long files = 0, bytes = 0;
        var (keysA, keysB) = (FileKeys(a), FileKeys(b));
        for (int i = 0, j = 0; i < keysA.Length && j < keysB.Length;)
        {
            if (keysA[i].Hash != keysB[j].Hash)
            {
                _ = keysA[i].Hash < keysB[j].Hash ? i++ : j++;
                continue;
            }

            // A run of one hash on each side (a collision is rare): names compared byte for byte.
            var (endA, endB) = (RunEnd(keysA, i), RunEnd(keysB, j));
            for (var x = i; x < endA; x++)
            {
                for (var y = j; y < endB; y++)
                {
                    var (rowA, rowB) = (keysA[x].Item, keysB[y].Item);
                    if (contents.Of(rowA) == contents.Of(rowB)
                        && table.Names.GetBytes(table[rowA].Name).SequenceEqual(table.Names.GetBytes(table[rowB].Name)))
                    {
                        files++;
                        bytes += table[rowA].Length;
                    }
                }
            }

            (i, j) = (endA, endB);
        }

        var (childrenA, childrenB) = (ChildKeys(a), ChildKeys(b));
        for (int i = 0, j = 0; i < childrenA.Length && j < childrenB.Length;)
        {
            if (childrenA[i].Hash != childrenB[j].Hash)
            {
                _ = childrenA[i].Hash < childrenB[j].Hash ? i++ : j++;
                continue;
            }

            var (endA, endB) = (RunEnd(childrenA, i), RunEnd(childrenB, j));
            for (var x = i; x < endA; x++)
            {
                for (var y = j; y < endB; y++)
                {
                    var (childA, childB) = (childrenA[x].Item, childrenB[y].Item);
                    if (tree.PathOf(childA).Name != tree.PathOf(childB).Name)
                    {
                        continue;
                    }

                    var (f, n) = IsExact(childA, childB) ? (tree.SubtreeFiles[childA], tree.SubtreeBytes[childA]) : Shared(childA, childB);
                    files += f;
                    bytes += n;
                }
            }

            (i, j) = (endA, endB);
        }

        return (files, bytes);
    }

    private static int RunEnd(NameKey[] keys, int start)
    {
        var end = start + 1;
        while (end < keys.Length && keys[end].Hash == keys[start].Hash)
        {
            end++;
        }

        return end;
    }

    /// <summary>The folder's files (rows) sorted by the hash of their stored name bytes; made once per folder.</summary>
    private NameKey[] FileKeys(int folder)
    {
        if (_fileKeys[folder] is { } known)
        {
            return known;
        }

        var table = tree.Table;
        var rows = tree.FilesOf(folder);
        var keys = new NameKey[rows.Length];
        for (var k = 0; k < rows.Length; k++)
        {
            keys[k] = new NameKey(XxHash3.HashToUInt64(table.Names.GetBytes(table[rows[k]].Name)), rows[k]);
        }

        Array.Sort(keys, static (x, y) => x.Hash.CompareTo(y.Hash));
        return _fileKeys[folder] = keys;
    }

    /// <summary>The folder's sub-folders sorted by the hash of their names; made once per folder.</summary>
    private NameKey[] ChildKeys(int folder)
    {
        if (_childKeys[folder] is { } known)
        {
            return known;
        }

        var children = tree.ChildrenOf(folder);
        var keys = new NameKey[children.Length];
        for (var k = 0; k < children.Length; k++)
        {
            keys[k] = new NameKey(XxHash3.HashToUInt64(MemoryMarshal.AsBytes(tree.PathOf(children[k]).Name.AsSpan())), children[k]);
        }

        Array.Sort(keys, static (x, y) => x.Hash.CompareTo(y.Hash));
        return _childKeys[folder] = keys;
    }

    private DuplicateFolderGroup ToGroup(int a, int b, Comparison comparison)
    {
        var (pathA, pathB) = (tree.PathOf(a), tree.PathOf(b));
        var swap = pathB.CompareTo(pathA) < 0;
        var differences = comparison.Differences
            .Select(d => swap ? d with { Kind = Swapped(d.Kind) } : d)
            .OrderBy(d => d.RelativePath, StringComparer.Ordinal)
            .ToArray();
        return new DuplicateFolderGroup(swap ? [pathB, pathA] : [pathA, pathB], comparison.SharedFiles, comparison.SharedBytes, comparison.Verified, differences);
    }

    // Only the sides swap with the folders: a changed or unknown entry is so from either side.
    private static FolderDifferenceKind Swapped(FolderDifferenceKind kind) => kind switch
    {
        FolderDifferenceKind.OnlyInFirst => FolderDifferenceKind.OnlyInSecond,
        FolderDifferenceKind.OnlyInSecond => FolderDifferenceKind.OnlyInFirst,
        _ => kind,
    };

    /// <summary>Two folders compared entry by entry, by name.</summary>
    private sealed class Comparison
    {
        public long SharedFiles { get; private set; }

        public long SharedBytes { get; private set; }

        public bool Verified { get; private set; } = true;

        public List<FolderDifference> Differences { get; } = [];

        public void Walk(FolderOverlap overlap, int a, int b, string prefix)
        {
            var tree = overlap.Tree;
            var table = tree.Table;
            var entriesB = new Dictionary<string, Entry>(StringComparer.Ordinal);
            foreach (var row in tree.FilesOf(b))
            {
                entriesB[table.GetName(row)] = new Entry(Kind.File, row);
            }

            foreach (var link in tree.LinksOf(b))
            {
                entriesB[link.Name] = new Entry(Kind.Link, 0, link.Target);
            }

            foreach (var child in tree.ChildrenOf(b))
            {
                entriesB[tree.PathOf(child).Name] = new Entry(Kind.Folder, child);
            }

            var entriesA = new List<(string Name, Entry Entry)>();
            foreach (var row in tree.FilesOf(a))
            {
                entriesA.Add((table.GetName(row), new Entry(Kind.File, row)));
            }

            foreach (var link in tree.LinksOf(a))
            {
                entriesA.Add((link.Name, new Entry(Kind.Link, 0, link.Target)));
            }

            foreach (var child in tree.ChildrenOf(a))
            {
                entriesA.Add((tree.PathOf(child).Name, new Entry(Kind.Folder, child)));
            }

            foreach (var (name, entry) in entriesA)
            {
                var path = prefix + name;
                if (!entriesB.TryGetValue(name, out var other))
                {
                    Differences.Add(new FolderDifference(entry.Kind == Kind.Folder ? path + "/" : path, FolderDifferenceKind.OnlyInFirst));
                    continue;
                }

                entriesB.Remove(name); // what is left in it at the end is only in the second folder
                if (entry.Kind != other.Kind)
                {
                    Differences.Add(new FolderDifference(path, FolderDifferenceKind.Changed));
                }
                else if (entry.Kind == Kind.File)
                {
                    if (overlap.Contents.Of(entry.Number) == overlap.Contents.Of(other.Number))
                    {
                        SharedFiles++;
                        SharedBytes += table[entry.Number].Length;
                        Verified &= !overlap.Contents.IsUnverified(entry.Number);
                    }
                    else
                    {
                        Differences.Add(new FolderDifference(path, FolderDifferenceKind.Changed));
                    }
                }
                else if (entry.Kind == Kind.Link)
                {
                    if (entry.Target != other.Target)
                    {
                        Differences.Add(new FolderDifference(path, FolderDifferenceKind.Changed));
                    }
                }
                else if (overlap.IsExact(entry.Number, other.Number))
                {
                    SharedFiles += tree.SubtreeFiles[entry.Number];
                    SharedBytes += tree.SubtreeBytes[entry.Number];
                }
                else if (tree.Incomplete[entry.Number] || tree.Incomplete[other.Number])
                {
                    // Not read whole on one side (unreadable, or holding entries no scan compares): what it holds is
                    // unknown, not missing; walking it would list the other side's entries as only there.
                    Differences.Add(new FolderDifference(path + "/", FolderDifferenceKind.Unknown));
                }
                else
                {
                    Walk(overlap, entry.Number, other.Number, path + "/");
                }
            }

            foreach (var (name, entry) in entriesB)
            {
                Differences.Add(new FolderDifference(prefix + name + (entry.Kind == Kind.Folder ? "/" : string.Empty), FolderDifferenceKind.OnlyInSecond));
            }
        }
    }

    private enum Kind
    {
        File,
        Link,
        Folder,
    }

    /// <summary>A file's row or a sub-folder's number with the hash of its name.</summary>
    private readonly record struct NameKey(ulong Hash, int Item);

    /// <summary>An entry of a folder: a file (its row), a link (its target) or a sub-folder (its number).</summary>
    private readonly record struct Entry(Kind Kind, int Number, string? Target = null);
}
