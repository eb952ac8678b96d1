using Dedup.Core.Comparison;

namespace Dedup.Core;

/// <summary>
/// Finds duplicate files under the configured roots. Immutable and reusable: each call to
/// <see cref="FindAsync"/> runs a new scan. Create one with <see cref="DuplicateFinderBuilder"/>.
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
    public DuplicateScan FindAsync(CancellationToken cancellationToken = default) => new(Options, cancellationToken);
}
