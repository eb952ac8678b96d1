using Dedup.Core.Comparison;
using Dedup.Core.Reporting;

namespace Dedup.Core;

/// <summary>The finder <see cref="DuplicateFinderBuilder.Build"/> makes: its validated settings, a scan per call.</summary>
internal sealed class BuiltDuplicateFinder : DuplicateFinder
{
    internal BuiltDuplicateFinder(DuplicateFinderOptions options, ScanStores stores)
    {
        Options = options;
        Stores = stores;
    }

    public override IReadOnlyList<string> Roots => Options.Roots.Select(r => r.ToString()).ToArray();

    public override IComparerStrategy Strategy => Options.Strategy;

    internal DuplicateFinderOptions Options { get; }

    /// <summary>The hash cache and file catalog, if any: composed into each scan, not part of <see cref="Options"/>.</summary>
    internal ScanStores Stores { get; }

    public override DuplicateScan FindAsync(ScanCallbacks callbacks, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(callbacks);
        return new(Options, Stores, callbacks, cancellationToken);
    }

    public override void CheckRoots() => DuplicateScan.CheckRoots(Options, logger: null);
}
