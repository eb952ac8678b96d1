using Dedup.Core.IO;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;
using Dedup.Core.Scanning.Features;

namespace Dedup.Core.Catalog;

/// <summary>
/// The file catalog as a scan feature (<see cref="CatalogSession"/>): takes every listed file at the barrier, hashes
/// what the compare stage reads (its read observer) and the rest beside and after it, names this machine in every
/// group, and reports the groups that span machines after the scan's own.
/// </summary>
internal sealed class CatalogFeature(CatalogSession session) : ScanFeature
{
    /// <summary>The feature when the finder has a catalog, else <see langword="null"/>.</summary>
    public static CatalogFeature? For(DuplicateFinderOptions options, (FileCatalog Store, string Machine)? store)
    {
        if (store is not { } catalog)
        {
            return null;
        }

        var logger = options.Logger;
        return new CatalogFeature(new CatalogSession(
            catalog.Store, catalog.Machine, logger is null ? null : message => Diagnostics.ScanLog.CatalogFailed(logger, message)));
    }

    /// <summary>No: the catalog must see every candidate's bytes (another machine may hold a file's twin).</summary>
    public override bool AllowsListingKeys => false;

    /// <summary>The catalog's SHA-256s come from the compare stage's reads: each file is read once.</summary>
    public override IReadObserver ReadObserver => session.Observer;

    /// <summary>The machine's stored stamps, and on a rescan their groups, are asked for while the folders are listed.</summary>
    public override void Started(ScanContext context, CancellationToken cancellationToken) => session.Start(context, cancellationToken);

    public override void Dispose() => session.Dispose();

    /// <summary>Every file, unique sizes included: another machine may have one of the same size.</summary>
    public override Task ListedAsync(ScanContext context, Enumeration.FileTable table, CancellationToken cancellationToken)
        => session.ReplaceAsync(context, table, cancellationToken);

    public override Task<IEnumerable<DuplicateGroup>> FinishAsync(ScanContext context, ScanThreads threads, Task compare, CancellationToken cancellationToken)
        => session.FinishAsync(context, threads, compare, cancellationToken);

    /// <summary>A group of a size another machine holds waits for the catalog's groups, to be reported once with them.</summary>
    public override bool Holds(DuplicateGroup group) => session.Hold(group);

    /// <summary>Named in each of the scan's own files as the whole-file stage makes them (the catalog's groups name each file's).</summary>
    public override string Machine => session.Machine;

    /// <summary>Names this machine in each of the scan's own files not named yet (made by another stage).</summary>
    public override void Settled(List<DuplicateFile> files)
    {
        for (var i = 0; i < files.Count; i++)
        {
            if (!string.Equals(files[i].Machine, session.Machine, StringComparison.Ordinal))
            {
                files[i] = files[i] with { Machine = session.Machine };
            }
        }
    }

    public override ScanSummary AddStatistics(ScanSummary summary) => summary with { Catalog = session.Statistics };
}
