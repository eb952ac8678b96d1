using Dedup.Core.Diagnostics;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;

namespace Dedup.Core.Enumeration;

/// <summary>What an <see cref="IFileEnumerator"/> needs for one scan: roots, filters and error reporting.</summary>
public sealed class FileEnumerationContext
{
    private readonly GlobPattern[] _includes = [];
    private readonly GlobPattern[] _excludes = [];
    private readonly IReadOnlyList<string> _include = [];
    private readonly IReadOnlyList<string> _exclude = [];
    private readonly ScanErrorSink _errors;

    /// <summary>
    /// Creates a context outside a scan: to test an <see cref="IFileEnumerator"/>, or to run one on its own. Until set,
    /// every file passes: hidden names included, any size, no globs; links are not followed.
    /// </summary>
    /// <param name="roots">The folders to enumerate (duplicates are dropped).</param>
    /// <param name="errors">Receives each <see cref="ReportError"/> at once, on the enumerator's thread; may be <see langword="null"/>.</param>
    public FileEnumerationContext(IEnumerable<AbsolutePath> roots, IProgress<ScanError>? errors = null)
    {
        ArgumentNullException.ThrowIfNull(roots);
        Roots = roots.Distinct().ToArray();
        IncludeHidden = true;
        MaxSize = long.MaxValue;
        MaxDegreeOfParallelism = Environment.ProcessorCount;
        _errors = new ScanErrorSink(errors);
    }

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
        _include = Array.ConvertAll(includes, static g => g.Text);
        _exclude = Array.ConvertAll(excludes, static g => g.Text);
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
    public bool IncludeHidden { get; init; }

    /// <summary>Whether symbolic links are followed (loops are detected and reported).</summary>
    public bool FollowSymbolicLinks { get; init; }

    /// <summary>Whether folders on other file systems than their root's are skipped.</summary>
    public bool StayOnOneFileSystem { get; init; }

    /// <summary>Smallest file size considered, in bytes.</summary>
    public long MinSize { get; init; }

    /// <summary>Largest file size considered, in bytes.</summary>
    public long MaxSize { get; init; }

    /// <summary>How many folders may be read at once.</summary>
    public int MaxDegreeOfParallelism { get; init; }

    /// <summary>The include globs (relative to a root, <c>/</c> separators): when any is set, only files matching one are scanned.</summary>
    public IReadOnlyList<string> Include
    {
        get => _include;
        init
        {
            ArgumentNullException.ThrowIfNull(value);
            _includes = value.Select(GlobPattern.Parse).ToArray();
            _include = value.ToArray();
        }
    }

    /// <summary>The exclude globs: files and folders matching one are skipped.</summary>
    public IReadOnlyList<string> Exclude
    {
        get => _exclude;
        init
        {
            ArgumentNullException.ThrowIfNull(value);
            _excludes = value.Select(GlobPattern.Parse).ToArray();
            _exclude = value.ToArray();
        }
    }

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
