using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core.Enumeration;

/// <summary>What an <see cref="IFileEnumerator"/> needs for one scan: roots, filters and error reporting.</summary>
public sealed class FileEnumerationContext
{
    private readonly GlobPattern[] _includes;
    private readonly GlobPattern[] _excludes;
    private readonly ScanErrorSink _errors;

    /// <summary>Made by the scan (<c>Scanning.EnumerationContexts</c>), which knows the finder's settings.</summary>
    internal FileEnumerationContext(
        IReadOnlyList<AbsolutePath> roots,
        GlobPattern[] includes,
        GlobPattern[] excludes,
        EnumerationFlags flags,
        long minSize,
        long maxSize,
        int maxDegreeOfParallelism,
        ScanErrorSink errors)
    {
        Roots = roots;
        _includes = includes;
        _excludes = excludes;
        IncludeHidden = (flags & EnumerationFlags.IncludeHidden) != 0;
        FollowSymbolicLinks = (flags & EnumerationFlags.FollowSymbolicLinks) != 0;
        StayOnOneFileSystem = (flags & EnumerationFlags.StayOnOneFileSystem) != 0;
        MinSize = minSize;
        MaxSize = maxSize;
        MaxDegreeOfParallelism = maxDegreeOfParallelism;
        _errors = errors;
    }

    /// <summary>
    /// The scan's name table: the library's enumerator interns the names it finds here, so equal names share one
    /// string for as long as the scan's paths live, and nothing outlives the scan.
    /// </summary>
    internal NameTable Names { get; } = new();

    /// <summary>The folders to scan, absolute and without duplicates.</summary>
    public IReadOnlyList<AbsolutePath> Roots { get; }

    /// <summary>Whether names starting with a dot are scanned.</summary>
    public bool IncludeHidden { get; }

    /// <summary>Whether symbolic links are followed (loops are detected and reported).</summary>
    public bool FollowSymbolicLinks { get; }

    /// <summary>Whether folders on other file systems than their root's are skipped.</summary>
    public bool StayOnOneFileSystem { get; }

    /// <summary>Smallest file size considered, in bytes.</summary>
    public long MinSize { get; }

    /// <summary>Largest file size considered, in bytes.</summary>
    public long MaxSize { get; }

    /// <summary>How many folders may be read at once.</summary>
    public int MaxDegreeOfParallelism { get; }

    /// <summary>Whether a file of this size passes the size filters.</summary>
    /// <param name="length">The file size.</param>
    /// <returns><see langword="true"/> when within the bounds.</returns>
    public bool IsSizeIncluded(long length) => length >= MinSize && length <= MaxSize;

    /// <summary>Whether any include or exclude glob is set (else every file passes, and its name need not be decoded).</summary>
    internal bool HasFilePatterns => _excludes.Length > 0 || _includes.Length > 0;

    /// <summary>Whether a file passes the include and exclude globs.</summary>
    /// <param name="relativePath">Its path relative to the root, with <c>/</c> separators.</param>
    /// <returns><see langword="true"/> when the file should be scanned.</returns>
    public bool IsFileIncluded(ReadOnlySpan<char> relativePath)
    {
        foreach (var exclude in _excludes)
        {
            if (exclude.IsMatch(relativePath))
            {
                return false;
            }
        }

        if (_includes.Length == 0)
        {
            return true;
        }

        foreach (var include in _includes)
        {
            if (include.IsMatch(relativePath))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Whether a folder is pruned by an exclude glob.</summary>
    /// <param name="relativePath">Its path relative to the root, with <c>/</c> separators.</param>
    /// <returns><see langword="true"/> when the folder should not be entered.</returns>
    public bool IsDirectoryExcluded(ReadOnlySpan<char> relativePath)
    {
        foreach (var exclude in _excludes)
        {
            if (exclude.IsMatch(relativePath))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Reports a problem with one path; the scan goes on.</summary>
    /// <param name="path">The absolute path.</param>
    /// <param name="kind">The kind of problem.</param>
    /// <param name="message">The reason.</param>
    /// <remarks>The error is passed on at once to the scan's error callback and logger, and kept for the summary.</remarks>
    public void ReportError(string path, ScanErrorKind kind, string message) => _errors.Report(path, kind, message);
}

/// <summary>The walk's switches, as one value (keeps the context's constructor short).</summary>
[Flags]
internal enum EnumerationFlags
{
    None = 0,
    IncludeHidden = 1,
    FollowSymbolicLinks = 2,
    StayOnOneFileSystem = 4,
}
