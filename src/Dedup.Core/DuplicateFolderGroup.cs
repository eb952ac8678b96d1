using System.Runtime.CompilerServices;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core;

/// <summary>
/// Folders found equal by folder mode (<see cref="DuplicateFinderBuilder.UseFolderMode"/>): whole subtrees with the
/// same relative names and byte-identical contents (or, ignoring names, the same multiset of contents). A partial
/// overlap — two folders equal but for a few entries — is a group too, with <see cref="Differences"/> listing what
/// differs. A record for its <c>with</c> copies; equality is by reference, as for <see cref="DuplicateGroup"/>.
/// </summary>
public sealed record DuplicateFolderGroup
{
    private readonly IReadOnlyList<AbsolutePath> _folders = [];
    private readonly IReadOnlyList<FolderDifference> _differences = [];

    /// <summary>Describes a group of folders. Scans make these; the constructor is public for tests of consuming code.</summary>
    /// <param name="folders">The folders, at least two, in path order.</param>
    /// <param name="files">Files in each folder's subtree (for a partial overlap: the files both hold equal).</param>
    /// <param name="bytes">Bytes of those files in each folder.</param>
    /// <param name="verifiedByBytes">Whether every file was compared byte by byte (see <see cref="DuplicateGroup.VerifiedByBytes"/>).</param>
    /// <param name="differences">What differs, for a partial overlap of two folders; empty (or <see langword="null"/>) for equal folders.</param>
    /// <exception cref="ArgumentNullException"><paramref name="folders"/> is <see langword="null"/>.</exception>
    public DuplicateFolderGroup(IReadOnlyList<AbsolutePath> folders, long files, long bytes, bool verifiedByBytes, IReadOnlyList<FolderDifference>? differences = null)
    {
        Folders = folders;
        Files = files;
        Bytes = bytes;
        VerifiedByBytes = verifiedByBytes;
        Differences = differences ?? [];
    }

    /// <summary>The folders, at least two, in path order: the first is the one whose sub-folders may still be reported.</summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public IReadOnlyList<AbsolutePath> Folders
    {
        get => _folders;
        init => _folders = value ?? throw new ArgumentNullException(nameof(Folders));
    }

    /// <summary>Files (names) in each folder's subtree; for a partial overlap, the files that are equal in both.</summary>
    public long Files { get; init; }

    /// <summary>Bytes of <see cref="Files"/> in each folder (a file with several names counted per name).</summary>
    public long Bytes { get; init; }

    /// <summary>Whether every file was compared byte by byte; <see langword="false"/> only with <see cref="DuplicateFinderBuilder.TrustHashes(bool)"/>.</summary>
    public bool VerifiedByBytes { get; init; }

    /// <summary>For a partial overlap, the entries that differ, by path relative to the folders; empty when the folders are equal.</summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public IReadOnlyList<FolderDifference> Differences
    {
        get => _differences;
        init => _differences = value ?? throw new ArgumentNullException(nameof(Differences));
    }

    /// <summary>Whether the folders are equal (no <see cref="Differences"/>).</summary>
    public bool IsExact => Differences.Count == 0;

    /// <summary>
    /// Bytes freed by keeping one folder of an exact group and removing the others; 0 for a partial overlap. For a
    /// group found by a scan, each file counts once and only when all its names (its link count) lie in the removed
    /// folders: a file hard-linked into the kept folder, or named anywhere else, frees nothing. Of the folders, the one
    /// kept is the one that leaves the most to free. For a group made by hand: <c>Bytes × (Folders.Count − 1)</c>.
    /// </summary>
    public long WastedBytes => !IsExact ? 0 : FreedBytes ?? Bytes * (Folders.Count - 1);

    /// <summary>What removing all folders but one frees, from the files' identities and link counts; <see langword="null"/> for groups made by hand.</summary>
    internal long? FreedBytes { get; init; }

    /// <summary>What the scan saw in each folder (same order as <see cref="Folders"/>), for acting on the group; <see langword="null"/> for groups made by hand.</summary>
    internal IReadOnlyList<FolderSnapshot>? Snapshots { get; init; }

    /// <summary>The roots of the scan that found the group; nothing outside them is acted on.</summary>
    internal IReadOnlyList<ScanRoot> Roots { get; init; } = [];

    /// <summary>The totals of <paramref name="groups"/>, exact ones and partial overlaps.</summary>
    internal static FolderSummary Summarize(IEnumerable<DuplicateFolderGroup> groups)
    {
        ArgumentNullException.ThrowIfNull(groups);
        int exact = 0, copies = 0, partial = 0;
        long files = 0, wasted = 0;
        foreach (var group in groups)
        {
            if (!group.IsExact)
            {
                partial++;
                continue;
            }

            exact++;
            copies += group.Folders.Count - 1;
            files += group.Files * (group.Folders.Count - 1);
            wasted += group.WastedBytes;
        }

        return new FolderSummary { Groups = exact, CopiedFolders = copies, CopiedFiles = files, WastedBytes = wasted, PartialOverlaps = partial };
    }

    /// <summary>Reference equality: <see langword="true"/> only for the same group object.</summary>
    /// <param name="other">The other group.</param>
    /// <returns>Whether <paramref name="other"/> is this group.</returns>
    public bool Equals(DuplicateFolderGroup? other) => ReferenceEquals(this, other);

    /// <inheritdoc />
    public override int GetHashCode() => RuntimeHelpers.GetHashCode(this);

    /// <summary>
    /// One line for logs and the debugger, the folders as a text report shows them (control characters escaped): for
    /// example <c>2 folders of 14 files, 3.2 MiB, 3.2 MiB wasted: /a/photos, /b/photos</c>; a partial overlap says
    /// <c>partial overlap, 3 differences</c> in place of what is wasted.
    /// </summary>
    /// <returns>The line.</returns>
    public override string ToString()
    {
        var names = string.Join(", ", Folders.Take(2).Select(static f => f.ToDisplayString()));
        var more = Folders.Count > 2 ? $", {Folders.Count - 2} more" : string.Empty;
        var state = IsExact ? $"{Reporting.ByteCount.Format(WastedBytes)} wasted" : $"partial overlap, {Differences.Count} {(Differences.Count == 1 ? "difference" : "differences")}";
        var hash = VerifiedByBytes ? string.Empty : " (hash match)";
        return $"{Folders.Count} folders of {Files} files, {Reporting.ByteCount.Format(Bytes)}, {state}{hash}: {names}{more}";
    }
}

/// <summary>One entry that differs between the two folders of a partial overlap.</summary>
/// <param name="RelativePath">The entry's path relative to the folders, with '/' between names.</param>
/// <param name="Kind">How it differs.</param>
public sealed record FolderDifference(string RelativePath, FolderDifferenceKind Kind);

/// <summary>How an entry of a partial overlap differs.</summary>
public enum FolderDifferenceKind
{
    /// <summary>Only the first folder holds it.</summary>
    OnlyInFirst,

    /// <summary>Only the second folder holds it.</summary>
    OnlyInSecond,

    /// <summary>Both hold it, with different contents (or a file in one, a folder or link in the other).</summary>
    Changed,

    /// <summary>
    /// Both hold a folder of this name, and at least one of the two could not be read whole (unreadable, or holding
    /// entries no scan compares, such as FIFOs): whether they differ is unknown.
    /// </summary>
    Unknown,
}
