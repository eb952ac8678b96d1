namespace Dedup.Core.Scanning;

/// <summary>
/// Files that may hold equal content, as the size barrier hands them on: all of <paramref name="Size"/> bytes, or
/// (media's payload stage) each read through its content map in <paramref name="Maps"/>, all maps that long.
/// </summary>
internal sealed record CandidateSet(long Size, List<FileNode> Files, IReadOnlyDictionary<FileNode, IContentMap>? Maps = null)
{
    /// <summary>Estimated work, to start the longest first.</summary>
    public long Cost => Files.Count * Math.Min(Size, 1L << 40);
}

/// <summary>Files a stage found to have equal content, and whether that rests on comparing bytes (not hashes).</summary>
internal sealed record SettledGroup(FileNode[] Members, bool Verified);
