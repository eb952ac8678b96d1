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

/// <summary>A snapshot of a running scan, reported through <see cref="IProgress{T}"/>.</summary>
/// <param name="Phase">The current stage.</param>
/// <param name="FilesScanned">Regular files found so far.</param>
/// <param name="BytesRead">Bytes read from files so far.</param>
/// <param name="GroupsFound">Duplicate groups confirmed so far.</param>
/// <param name="Errors">Errors reported so far.</param>
public readonly record struct ScanProgress(ScanPhase Phase, long FilesScanned, long BytesRead, int GroupsFound, int Errors);
