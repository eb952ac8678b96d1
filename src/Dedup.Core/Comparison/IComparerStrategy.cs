namespace Dedup.Core.Comparison;

/// <summary>
/// Decides which of a set of equal-length files have equal content. The scan calls it after the cheap
/// stages (size, hard links, prefix and suffix probes) for each set of files that are still candidates.
/// Built-in strategies are on <see cref="ComparerStrategies"/>.
/// </summary>
public interface IComparerStrategy
{
    /// <summary>A short name for reports and benchmarks, such as <c>hybrid</c>.</summary>
    string Name { get; }

    /// <summary>
    /// Partitions <paramref name="set"/> into groups of equal content and reports each group of two or
    /// more files through <see cref="ComparisonSet.AddGroup"/>. Unless
    /// <see cref="ComparisonSet.TrustHashes"/> is set, a group may only be reported once every byte of
    /// its files was compared equal.
    /// </summary>
    /// <param name="set">The candidate files and access to their content.</param>
    /// <param name="cancellationToken">Cancels the comparison.</param>
    void Partition(ComparisonSet set, CancellationToken cancellationToken = default);
}
