using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core.Folders;

/// <summary>What a scan saw in one folder of an exact group: every entry below it, by relative path.</summary>
/// <remarks>Acting on whole folders compares a fresh listing with this, so anything added, removed or changed since refuses the folder.</remarks>
internal sealed class FolderSnapshot
{
    private FolderSnapshot(AbsolutePath folder, IReadOnlyList<FolderSnapshotEntry> entries, bool pairByContent)
    {
        Folder = folder;
        Entries = entries;
        PairByContent = pairByContent;
    }

    public AbsolutePath Folder { get; }

    /// <summary>Whether files pair with the kept folder's by <see cref="FolderSnapshotEntry.ContentClass"/> (found ignoring names) rather than by relative path.</summary>
    public bool PairByContent { get; }

    /// <summary>Every file, link and sub-folder below <see cref="Folder"/>, ordinally by relative path.</summary>
    public IReadOnlyList<FolderSnapshotEntry> Entries { get; }

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

/// <summary>One entry of a <see cref="FolderSnapshot"/>; the file fields are set for files only.</summary>
internal sealed record FolderSnapshotEntry(string RelativePath, FolderEntryKind Kind, string? LinkTarget)
{
    public FileIdentity Identity { get; init; }

    public long Length { get; init; }

    public int LinkCount { get; init; }

    public long LastWriteTimeNs { get; init; }

    /// <summary>0 when the platform records none.</summary>
    public long ChangeTimeNs { get; init; }

    /// <summary>The scan's content class: files of one class were found equal (acting compares their bytes again).</summary>
    public int ContentClass { get; init; }
}

internal enum FolderEntryKind
{
    File,
    Link,
    Folder,
}
