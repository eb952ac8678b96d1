using Dedup.Core.Comparison;
using Dedup.Core.Reporting;

namespace Dedup.Core;

/// <summary>The finder <see cref="DuplicateFinderBuilder.Build"/> makes: its validated settings, a scan per call.</summary>
internal sealed class BuiltDuplicateFinder : DuplicateFinder
{
    internal BuiltDuplicateFinder(DuplicateFinderOptions options)
    {
        Options = options;
    }

    public override IReadOnlyList<string> Roots => Options.Roots.Select(r => r.ToString()).ToArray();

    public override IComparerStrategy Strategy => Options.Strategy;

    internal DuplicateFinderOptions Options { get; }

    public override DuplicateScan FindAsync(ScanCallbacks callbacks, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(callbacks);
        return new(Options, callbacks, cancellationToken);
    }

    public override void CheckRoots() => DuplicateScan.CheckRoots(Options, logger: null);
}
