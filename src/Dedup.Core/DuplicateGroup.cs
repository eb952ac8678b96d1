namespace Dedup.Core;

/// <summary>Files whose contents are identical, each distinct file (identity) listed once.</summary>
public sealed class DuplicateGroup
{
    internal DuplicateGroup(long size, IReadOnlyList<DuplicateFile> files, bool verifiedByBytes)
    {
        Size = size;
        Files = files;
        VerifiedByBytes = verifiedByBytes;
    }

    /// <summary>Size of each file in bytes.</summary>
    public long Size { get; }

    /// <summary>The distinct files, at least two, in path order.</summary>
    public IReadOnlyList<DuplicateFile> Files { get; }

    /// <summary>
    /// <see langword="true"/> when every byte was compared; <see langword="false"/> when the group was
    /// accepted on 128-bit hash equality because <see cref="DuplicateFinderBuilder.TrustHashes(bool)"/> was set.
    /// </summary>
    public bool VerifiedByBytes { get; }

    /// <summary>Bytes freed by keeping one file: <c>Size × (Files.Count − 1)</c>.</summary>
    public long WastedBytes => Size * (Files.Count - 1);
}
