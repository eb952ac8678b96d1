using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Reporting;

namespace Dedup.Core.Scanning.Features;

/// <summary>
/// Something a scan does beside finding its groups (the hash cache, the file catalog): it declares what it needs and
/// is called at the scan's phases, never per byte or per listed file. The scan core knows features only through this
/// type; each is registered in one line (<c>ScanComposition</c>) and lives in its own folder.
/// </summary>
/// <remarks>
/// Phases, in order: <see cref="Started"/> as the scan starts; <see cref="ListedAsync"/> once the folders are listed; <see cref="FinishAsync"/> started as the
/// compare stage starts; <see cref="Settled"/> for each group found; <see cref="Compared"/> when the compare stage
/// completed; <see cref="Dispose"/> when the scan ends however it ends; <see cref="AddStatistics"/> for each summary.
/// Declarations are read once, when the scan is composed.
/// </remarks>
internal abstract class ScanFeature : IDisposable
{
    /// <summary>
    /// Whether small files may be keyed while they are listed, not read by the compare stage: a feature that must see
    /// every candidate's bytes, or whose point is not to read unchanged files, says no.
    /// </summary>
    public virtual bool AllowsListingKeys => true;

    /// <summary>Sees the compare stage's content reads (given to the scan's reader); <see langword="null"/> when not needed.</summary>
    public virtual IReadObserver? ReadObserver => null;

    /// <summary>Settles whole-file candidate sets in place of the plain comparison; at most one feature per scan has one.</summary>
    public virtual IWholeFileSettler? Settler => null;

    /// <summary>Keeps the whole-content digests the comparer makes, for this feature to take; at most one per scan.</summary>
    public virtual ContentDigests? Digests => null;

    /// <summary>
    /// As the scan starts, before anything is listed: a feature may start work that needs no listing (the catalog's
    /// query of the machine's stored stamps), to be awaited at a later phase. Must not block.
    /// </summary>
    public virtual void Started(ScanContext context, CancellationToken cancellationToken)
    {
    }

    /// <summary>Once the folders are listed, before the size barrier: <paramref name="table"/> is sealed and holds every listed file.</summary>
    public virtual Task ListedAsync(ScanContext context, FileTable table, CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>
    /// Started as the compare stage starts, on the scan's <paramref name="threads"/>; the groups it returns follow the
    /// stage's own, enumerated once and each published as it is reached (a feature can make them one at a time, and a
    /// consumer that keeps none lets each go). <see langword="null"/>: nothing to do.
    /// </summary>
    /// <param name="context">The scan.</param>
    /// <param name="threads">The scan's threads, for blocking work.</param>
    /// <param name="compare">The compare stage's task; its failure is the scan's, not the feature's.</param>
    /// <param name="cancellationToken">Cancels the scan.</param>
    public virtual Task<IEnumerable<DuplicateGroup>>? FinishAsync(ScanContext context, ScanThreads threads, Task compare, CancellationToken cancellationToken) => null;

    /// <summary>
    /// The machine the scan's own files are on (a catalog's), set on each file as the whole-file stage makes it: a copy of
    /// every file of every group renamed at <see cref="Settled"/> was ~14 MiB more garbage in a 250k-file fleet scan.
    /// <see langword="null"/> for none; at most one feature per scan has one.
    /// </summary>
    public virtual string? Machine => null;

    /// <summary>A group's files, in path order, before the group is made and published (may replace items); any thread.</summary>
    public virtual void Settled(List<DuplicateFile> files)
    {
    }

    /// <summary>
    /// Whether the feature takes <paramref name="group"/> (just settled, not published yet) to return it from
    /// <see cref="FinishAsync"/> instead, possibly joined with more files (the catalog's files of the same content on
    /// other machines): it is then neither counted nor streamed now. Any thread.
    /// </summary>
    public virtual bool Holds(DuplicateGroup group) => false;

    /// <summary>The compare stage completed (not cancelled, not failed), on its thread, before the stream of groups ends.</summary>
    public virtual void Compared(CancellationToken cancellationToken)
    {
    }

    /// <summary>Adds the feature's statistics to a summary of the scan.</summary>
    public virtual ScanSummary AddStatistics(ScanSummary summary) => summary;

    /// <summary>The scan ended (completed, failed or cancelled) and its compare stage stopped; called once.</summary>
    public virtual void Dispose()
    {
    }
}
