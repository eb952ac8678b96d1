using Dedup.Core.Comparison;
using Dedup.Core.Reporting;

namespace Dedup.Core;

/// <summary>
/// Finds duplicate files under the configured roots. Immutable and reusable: each call to
/// <see cref="FindAsync(CancellationToken)"/> runs a new scan. Create one with <see cref="DuplicateFinderBuilder"/>.
/// </summary>
public sealed class DuplicateFinder
{
    internal DuplicateFinder(DuplicateFinderOptions options)
    {
        Options = options;
    }

    /// <summary>The folders this finder scans, as absolute paths.</summary>
    public IReadOnlyList<string> Roots => Options.Roots.Select(r => r.ToString()).ToArray();

    /// <summary>The comparison strategy in use.</summary>
    public IComparerStrategy Strategy => Options.Strategy;

    internal DuplicateFinderOptions Options { get; }

    /// <summary>
    /// Starts a scan. Groups are yielded as soon as each is confirmed; after enumeration completes,
    /// <see cref="DuplicateScan.Summary"/> holds the totals and the errors met along the way.
    /// </summary>
    /// <param name="cancellationToken">Cancels the scan.</param>
    /// <returns>The scan, to enumerate once.</returns>
    public DuplicateScan FindAsync(CancellationToken cancellationToken = default) => new(Options, null, cancellationToken);

    /// <summary>
    /// Starts a scan that reports to its own <paramref name="callbacks"/> (progress, errors as they happen) instead of
    /// the finder's defaults, so one finder can serve many runs, each with its own sinks.
    /// </summary>
    /// <param name="callbacks">This scan's callbacks; a property left <see langword="null"/> keeps the finder's default.</param>
    /// <param name="cancellationToken">Cancels the scan.</param>
    /// <returns>The scan, to enumerate once.</returns>
    public DuplicateScan FindAsync(ScanCallbacks callbacks, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(callbacks);
        return new(Options, callbacks, cancellationToken);
    }

    /// <summary>
    /// Checks now that every root is an existing folder, as each scan does when it starts. A finder can be built
    /// before its roots exist (a service starting before its backup disk is mounted); call this for an early, clear
    /// error before opening outputs or taking locks.
    /// </summary>
    /// <exception cref="DirectoryNotFoundException">A root does not exist or is a file; the message names it.</exception>
    public void CheckRoots() => DuplicateScan.CheckRoots(Options, logger: null);
}
