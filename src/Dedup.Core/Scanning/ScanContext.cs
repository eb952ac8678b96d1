using Dedup.Core.Diagnostics;
using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Scanning.Features;

namespace Dedup.Core.Scanning;

/// <summary>
/// What a scan's stages and features work with: its settings, its one reader, its drives and its error sink, and
/// what the features declared for the compare stage. Read-only to them: the counters and the outcome are the
/// scanner's (<see cref="ScanRun"/>).
/// </summary>
internal sealed class ScanContext
{
    /// <param name="options">The scan's settings.</param>
    /// <param name="errors">Where the scan's errors go.</param>
    /// <param name="observer">Given to the reader: sees every content read but probes.</param>
    /// <param name="settler">The features' settler of whole-file sets, if any.</param>
    /// <param name="digests">Where the comparer's whole-content digests go, if a feature takes them.</param>
    public ScanContext(DuplicateFinderOptions options, ScanErrorSink errors, IReadObserver? observer = null, IWholeFileSettler? settler = null, ContentDigests? digests = null)
    {
        Options = options;
        Errors = errors;
        Settler = settler;
        Digests = digests;
        Source = options.Enumerator as ITableSource; // the one place the listing's declaration is taken
        Drives = new Topology.DriveAccessManager(options.Topology, options.MaxDegreeOfParallelism);
        Reader = new FileReader(
            options.Buffers,
            Errors,
            trustedIdentities: Source is not null,
            observer,
            options.MaxDegreeOfParallelism,
            options.Roots,
            refuseLinks: Source is not null && !options.FollowSymbolicLinks,
            sourceName: Enumeration.ScannedFile.SourceName(options.Enumerator));
    }

    public DuplicateFinderOptions Options { get; }

    /// <summary>The compare stage's totals and settled sets, for progress: each stage counts every set it is given once.</summary>
    public CompareProgress Compared { get; } = new();

    /// <summary>Every file read of this scan goes through it; disposed when the scan ends.</summary>
    public FileReader Reader { get; }

    /// <summary>
    /// Which files are still in this scan: the stage that finds a file failed or changed drops it here (its error was
    /// reported where that was found: the reader's open, read or check); the stages and features read it here.
    /// </summary>
    public LiveFiles Live { get; } = new();

    /// <summary>Per-device access tokens for this scan.</summary>
    public Topology.DriveAccessManager Drives { get; private set; }

    /// <summary>Where this scan's errors go: the summary, the error callback and the logger.</summary>
    public ScanErrorSink Errors { get; }

    /// <summary>The listing when it fills the table itself from the roots (<see cref="ITableSource"/>), else <see langword="null"/>.</summary>
    public ITableSource? Source { get; }

    /// <summary>Settles whole-file sets in place of the plain comparison (a feature's), or <see langword="null"/>.</summary>
    public IWholeFileSettler? Settler { get; }

    /// <summary>Keeps the comparer's whole-content digests for a feature, or <see langword="null"/>.</summary>
    public ContentDigests? Digests { get; }

    /// <summary>The roots with their identities, taken when the scan starts (<see cref="CaptureRoots"/>); every group carries them.</summary>
    public IReadOnlyList<ScanRoot> Roots { get; private set; } = [];

    /// <summary>
    /// Looks up the devices of the declared drive kinds (<see cref="DuplicateFinderOptions.DriveKinds"/>) and applies
    /// them; once, as the scan starts, before anything is read.
    /// </summary>
    /// <exception cref="IOException">A declared path is missing or its device cannot be told.</exception>
    public void CaptureDrives()
    {
        if (Options.DriveKinds.Count > 0)
        {
            Drives = new Topology.DriveAccessManager(Topology.DriveTopology.WithDeclaredKinds(Options.Topology, Options.DriveKinds), Options.MaxDegreeOfParallelism);
        }
    }

    /// <summary>Takes the roots' identities; once, as the scan starts.</summary>
    public void CaptureRoots() => Roots = Options.Roots.Select(ScanRoot.Capture).ToArray();
}
