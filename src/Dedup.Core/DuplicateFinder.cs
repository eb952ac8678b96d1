using Dedup.Core.Comparison;
using Dedup.Core.Reporting;

namespace Dedup.Core;

/// <summary>
/// Finds duplicate files under its roots. Each call to <see cref="FindAsync(CancellationToken)"/> runs a new scan.
/// Create one with <see cref="DuplicateFinderBuilder"/> (immutable and reusable); code that takes a finder can be
/// tested with a subclass of its own that returns <see cref="DuplicateScan.FromResults(IEnumerable{DuplicateGroup})"/>.
/// </summary>
/// <remarks>
/// An abstract class rather than an interface so that members can be added in later versions without breaking a
/// subclass: each one added gets a default.
/// </remarks>
public abstract class DuplicateFinder
{
    private static readonly ScanCallbacks NoCallbacks = new();

    /// <summary>Initializes a finder (for subclasses, such as a test's fake).</summary>
    protected DuplicateFinder()
    {
    }

    /// <summary>The folders this finder scans, as absolute paths.</summary>
    public abstract IReadOnlyList<string> Roots { get; }

    /// <summary>The comparison strategy in use.</summary>
    public abstract IComparerStrategy Strategy { get; }

    /// <summary>
    /// Starts a scan. Groups are yielded as soon as each is confirmed; after enumeration completes,
    /// <see cref="DuplicateScan.Summary"/> holds the totals and the errors met along the way.
    /// </summary>
    /// <param name="cancellationToken">Cancels the scan.</param>
    /// <returns>The scan, to enumerate once.</returns>
    public DuplicateScan FindAsync(CancellationToken cancellationToken = default) => FindAsync(NoCallbacks, cancellationToken);

    /// <summary>
    /// Starts a scan that reports to its own <paramref name="callbacks"/> (progress, errors as they happen) instead of
    /// the finder's defaults, so one finder can serve many runs, each with its own sinks.
    /// </summary>
    /// <param name="callbacks">This scan's callbacks; a property left <see langword="null"/> keeps the finder's default.</param>
    /// <param name="cancellationToken">Cancels the scan.</param>
    /// <returns>The scan, to enumerate once.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="callbacks"/> is <see langword="null"/>.</exception>
    public abstract DuplicateScan FindAsync(ScanCallbacks callbacks, CancellationToken cancellationToken = default);

    /// <summary>
    /// Checks now that every root is an existing folder (or, on Linux, a regular file), as each scan does when it starts. A finder can be built
    /// before its roots exist (a service starting before its backup disk is mounted); call this for an early, clear
    /// error before opening outputs or taking locks. The base implementation checks nothing.
    /// </summary>
    /// <exception cref="DirectoryNotFoundException">A root does not exist, or is a file that cannot be a root (folder mode, a FIFO or device, a link not followed, another system than Linux); the message names it.</exception>
    public virtual void CheckRoots()
    {
    }
}
