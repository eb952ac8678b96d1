using Dedup.Core.Enumeration;

namespace Dedup.Core.Folders;

/// <summary>
/// What removing the folders of an exact group but one frees. A file's blocks are freed only when its last name goes:
/// a file counts when every one of its names (its link count) lies in the removed folders, so a name of it in the
/// kept folder, elsewhere in the scan or outside it keeps it. Each file counts once, however many names it has.
/// </summary>
internal static class FolderWaste
{
    /// <summary>The bytes freed by removing every folder of <paramref name="group"/> but one, keeping the one that leaves the most to free.</summary>
    /// <param name="tree">The folders.</param>
    /// <param name="group">The group's folders.</param>
    public static long Freed(FolderTree tree, IReadOnlyList<int> group)
    {
        var table = tree.Table;
        var files = new Dictionary<FileIdentity, FileNames>();
        var stack = new Stack<int>();
        for (var m = 0; m < group.Count; m++)
        {
            stack.Push(group[m]);
            while (stack.Count > 0)
            {
                var folder = stack.Pop();
                foreach (var row in tree.FilesOf(folder))
                {
                    ref var r = ref table[row];
                    if (!files.TryGetValue(r.Identity, out var file))
                    {
                        files[r.Identity] = file = new FileNames(r.Length, r.LinkCount);
                    }

                    file.Names++;
                    if (file.Members.Count == 0 || file.Members[^1] != m)
                    {
                        file.Members.Add(m);
                    }
                }

                foreach (var child in tree.ChildrenOf(folder))
                {
                    stack.Push(child);
                }
            }
        }

        // Keeping folder k frees every file with all its names in the group and none in k: all such files less those in k.
        long all = 0;
        var inMember = new long[group.Count];
        foreach (var file in files.Values)
        {
            if (file.Names < Math.Max(1, file.LinkCount))
            {
                continue; // a name outside the group keeps it whichever folders go
            }

            all += file.Length;
            foreach (var m in file.Members)
            {
                inMember[m] += file.Length;
            }
        }

        return all - inMember.Min();
    }

    private sealed class FileNames(long length, int linkCount)
    {
        public long Length { get; } = length;

        public int LinkCount { get; } = linkCount;

        public int Names { get; set; }

        public List<int> Members { get; } = new(1);
    }
}
