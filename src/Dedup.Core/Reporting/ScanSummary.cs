namespace Dedup.Core.Reporting;

/// <summary>The totals of a completed scan.</summary>
public sealed class ScanSummary
{
    internal ScanSummary(long filesScanned, long bytesRead, int groups, long duplicateFiles, long wastedBytes, IReadOnlyList<ScanError> errors, TimeSpan elapsed)
    {
        FilesScanned = filesScanned;
        BytesRead = bytesRead;
        Groups = groups;
        DuplicateFiles = duplicateFiles;
        WastedBytes = wastedBytes;
        Errors = errors;
        Elapsed = elapsed;
    }

    /// <summary>Regular files found by the enumerator (each name counted once).</summary>
    public long FilesScanned { get; }

    /// <summary>Bytes read from file contents.</summary>
    public long BytesRead { get; }

    /// <summary>Duplicate groups reported.</summary>
    public int Groups { get; }

    /// <summary>Files in all groups beyond the first of each group.</summary>
    public long DuplicateFiles { get; }

    /// <summary>Bytes that removing all but one file of each group would free.</summary>
    public long WastedBytes { get; }

    /// <summary>Paths that could not be read or changed during the scan, with reasons.</summary>
    public IReadOnlyList<ScanError> Errors { get; }

    /// <summary>Wall time of the scan.</summary>
    public TimeSpan Elapsed { get; }
}
