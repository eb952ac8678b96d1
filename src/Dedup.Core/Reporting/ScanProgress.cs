namespace Dedup.Core.Reporting;

/// <summary>The stage a scan is in.</summary>
public enum ScanPhase
{
    /// <summary>Listing folders and reading file metadata.</summary>
    Enumerating,

    /// <summary>Reading and comparing candidate files.</summary>
    Comparing,

    /// <summary>The scan has finished.</summary>
    Completed,
}

/// <summary>
/// A snapshot of a running scan, reported through <see cref="IProgress{T}"/>. Not positional (no
/// <c>Deconstruct</c>), so counters can be added without breaking callers; read the properties by name.
/// </summary>
public readonly record struct ScanProgress
{
    /// <summary>The current stage.</summary>
    public ScanPhase Phase { get; init; }

    /// <summary>Regular files found so far.</summary>
    public long FilesScanned { get; init; }

    /// <summary>Bytes read from files so far.</summary>
    public long BytesRead { get; init; }

    /// <summary>Duplicate groups confirmed so far.</summary>
    public int GroupsFound { get; init; }

    /// <summary>Errors reported so far.</summary>
    public int Errors { get; init; }
}
