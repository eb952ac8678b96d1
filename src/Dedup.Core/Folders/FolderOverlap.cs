namespace Dedup.Core.Folders;

/// <summary>Partial overlaps: pairs of folders equal but for a few entries (named mode).</summary>
internal static class FolderOverlap
{
    public static List<DuplicateFolderGroup> Find(FolderTree tree, ContentClasses contents, bool[] insideCopy, CancellationToken cancellationToken) => [];
}
