using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core;

/// <summary>What a scan saw in one folder of an exact group: every entry below it, by relative path.</summary>
/// <remarks>
/// Acting on whole folders compares a fresh listing with this, so anything added, removed or changed since refuses the folder.
/// Held by <see cref="DuplicateFolderGroup"/>, so it lives with the results; folder mode takes it (<see cref="Folders.FolderSnapshots"/>).
/// </remarks>
internal sealed class FolderSnapshot
{
    internal FolderSnapshot(AbsolutePath folder, IReadOnlyList<FolderSnapshotEntry> entries, bool pairByContent)
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
