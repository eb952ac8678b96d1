namespace Dedup.Core;

/// <summary>Files whose contents are identical, each distinct file (identity) listed once.</summary>
public sealed class DuplicateGroup
{
    internal DuplicateGroup(long size, IReadOnlyList<DuplicateFile> files, bool verifiedByBytes, Media.ContentMatch match = Media.ContentMatch.WholeFile)
    {
        Size = size;
        Files = files;
        VerifiedByBytes = verifiedByBytes;
        Match = match;
    }

    /// <summary>
    /// Length of the content compared: each file's size, or with <see cref="Match"/> =
    /// <see cref="Media.ContentMatch.MediaPayload"/> the payload's length (file sizes then differ).
    /// </summary>
    public long Size { get; }

    /// <summary>Whether whole files or media payloads (tags ignored) were found equal.</summary>
    public Media.ContentMatch Match { get; }

    /// <summary>The distinct files, at least two, in path order.</summary>
    public IReadOnlyList<DuplicateFile> Files { get; }

    /// <summary>
    /// <see langword="true"/> when every byte was compared; <see langword="false"/> when the group was
    /// accepted on 128-bit hash equality because <see cref="DuplicateFinderBuilder.TrustHashes(bool)"/> was set.
    /// </summary>
    public bool VerifiedByBytes { get; }

    /// <summary>
    /// The roots the group was found under, with the identities they had when the scan started (shared by every
    /// group of a scan): actions reach each file from its root without following links.
    /// </summary>
    internal IReadOnlyList<ScanRoot> Roots { get; init; } = [];

    /// <summary>
    /// Bytes freed by keeping one file: <c>Size × (Files.Count − 1)</c>; for media payload matches, the
    /// files' total size less the largest one.
    /// </summary>
    public long WastedBytes => Match == Media.ContentMatch.WholeFile
        ? Size * (Files.Count - 1)
        : Files.Sum(f => f.Length) - Files.Max(f => f.Length);
}
