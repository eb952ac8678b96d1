using System.Globalization;

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

    /// <summary>
    /// Distinct files the compare stage was given (those sharing their size with another, small ones also their first
    /// bytes if the listing read them; in media and folder mode every file), known from <see cref="ScanPhase.Comparing"/> on; <see langword="null"/> while
    /// <see cref="ScanPhase.Enumerating"/>, when no listing can tell how many files are left to find.
    /// </summary>
    public long? FilesToCompare { get; init; }

    /// <summary>The total size of <see cref="FilesToCompare"/>, in bytes; <see langword="null"/> while enumerating.</summary>
    /// <remarks>
    /// Not what will be read: probes stop at the first differing page, a cache settles unchanged files without reading
    /// them, and media mode reads tags and payloads beside. Compare it with <see cref="BytesCompared"/>, not
    /// <see cref="BytesRead"/>.
    /// </remarks>
    public long? BytesToCompare { get; init; }

    /// <summary>
    /// Files of <see cref="FilesToCompare"/> whose same-size set is settled (grouped or proven distinct); equals it
    /// when the compare stage is done. Media mode then still compares payloads and folder mode classes folders, neither
    /// counted here.
    /// </summary>
    public long FilesCompared { get; init; }

    /// <summary>The total size of <see cref="FilesCompared"/>: with <see cref="BytesToCompare"/>, the fraction done (<c>BytesCompared / BytesToCompare</c>).</summary>
    public long BytesCompared { get; init; }

    /// <summary>
    /// One line for logs and the debugger, culture-free: for example <c>Comparing: 1200 files, 5.1 MiB read, 3 groups,
    /// 1 error, compared 40/100 files (2.0 MiB/5.0 MiB)</c>; while enumerating (totals unknown) the last part is left out.
    /// </summary>
    /// <returns>The line.</returns>
    public override string ToString()
    {
        var line = string.Create(CultureInfo.InvariantCulture, $"{Phase}: {FilesScanned} files, {ByteCount.Format(BytesRead)} read, {GroupsFound} groups, {Errors} {(Errors == 1 ? "error" : "errors")}");
        return FilesToCompare is { } files && BytesToCompare is { } bytes
            ? string.Create(CultureInfo.InvariantCulture, $"{line}, compared {FilesCompared}/{files} files ({ByteCount.Format(BytesCompared)}/{ByteCount.Format(bytes)})")
            : line;
    }
}
