using Dedup.Core.IO;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;
using Dedup.Core.Scanning.Features;

namespace Dedup.Core.Caching;

/// <summary>
/// The hash cache as a scan feature (<see cref="CacheSession"/>): loaded once the folders are listed, it settles
/// whole-file sets from what it knows (<see cref="CachedSetComparison"/>) with the digests the comparer makes, and
/// saves what the scan learned only when the compare stage completed.
/// </summary>
internal sealed class CacheFeature(CacheSession session) : ScanFeature, IWholeFileSettler
{
    /// <summary>The feature when the finder has a cache, else <see langword="null"/>.</summary>
    public static CacheFeature? For(DuplicateFinderOptions options, HashCache? cache, bool required)
    {
        if (cache is null)
        {
            return null;
        }

        var logger = options.Logger;
        return new CacheFeature(new CacheSession(
            cache,
            options.Roots,
            options.HashAlgorithm,
            logger is null ? null : (message, exception) => Diagnostics.ScanLog.CacheWarning(logger, message, exception),
            required));
    }

    /// <summary>No: the cache's point is not to read unchanged files.</summary>
    public override bool AllowsListingKeys => false;

    public override IWholeFileSettler Settler => this;

    public override ContentDigests Digests => session.Digests;

    /// <summary>Starts loading, beside the barrier: read during the listing, it took the two cores from the walk and made a rescan slower (docs/cache.md).</summary>
    public override Task ListedAsync(ScanContext context, Enumeration.FileTable table, CancellationToken cancellationToken)
    {
        session.Start(context.Live, cancellationToken);
        return Task.CompletedTask;
    }

    /// <summary>Settles the set with the cache when it could be read, else declines.</summary>
    public List<SettledGroup>? TrySettle(
        WholeFileStage stage, List<FileNode> files, long size, ReaderFanOut readers, bool rotational, Func<IDisposable> enterDevices, CancellationToken cancellationToken)
        => session.IsUsable
            ? new CachedSetComparison(stage, session, size, readers, rotational, enterDevices).Run(files, cancellationToken)
            : null;

    /// <summary>Only a completed compare stage saves its cache.</summary>
    public override void Compared(CancellationToken cancellationToken) => session.Finish(cancellationToken);

    public override ScanSummary AddStatistics(ScanSummary summary) => summary with { Cache = session.Statistics };

    /// <summary>Discards an uncommitted save (a cancelled or failed scan) and waits for the writer's thread.</summary>
    public override void Dispose() => session.Dispose();
}
