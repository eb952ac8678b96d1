using Dedup.Core.Reporting;

namespace Dedup.Core.Scanning;

/// <summary>Counters and errors of one scan, shared by its threads.</summary>
internal sealed class ScanState
{
    private long _filesScanned;
    private long _keyedBytes;
    private int _groups;
    private long _duplicateFiles;
    private long _wastedBytes;

    /// <param name="options">The scan's settings.</param>
    /// <param name="observer">Given to the reader: sees every whole-file read but probes.</param>
    /// <param name="callbacks">This scan's own callbacks, each replacing the finder's default when set.</param>
    public ScanState(DuplicateFinderOptions options, IReadObserver? observer = null, ScanCallbacks? callbacks = null)
    {
        Options = options;
        Progress = callbacks?.Progress ?? options.Progress;
        Errors = new ScanErrorSink(callbacks?.Errors ?? options.ErrorCallback, options.Logger);
        Drives = new Topology.DriveAccessManager(options.Topology, options.MaxDegreeOfParallelism);
        if (options.Catalog is { } catalog)
        {
            var logger = options.Logger;
            Catalog = new Catalog.CatalogSession(catalog.Store, catalog.Machine, logger is null ? null : message => Diagnostics.ScanLog.CatalogFailed(logger, message));
            // The catalog's SHA-256s come from the compare stage's reads: each file is read once.
            observer = observer is null ? Catalog.Observer : new BothObservers(observer, Catalog.Observer);
        }

        Reader = new FileReader(
            options.Buffers,
            Errors,
            trustedIdentities: options.Enumerator is Enumeration.ParallelFileEnumerator,
            observer,
            options.MaxDegreeOfParallelism,
            options.Roots,
            refuseLinks: options.Enumerator is Enumeration.ParallelFileEnumerator && !options.FollowSymbolicLinks);
        if (options.Cache is { } cache)
        {
            var logger = options.Logger;
            Cache = new Caching.CacheSession(cache, options.Roots, options.HashAlgorithm, logger is null ? null : message => Diagnostics.ScanLog.CacheWarning(logger, message));
        }
    }

    /// <summary>Two observers of the same reads (media's PNG walk and the catalog's hashing).</summary>
    private sealed class BothObservers(IReadObserver first, IReadObserver second) : IReadObserver
    {
        public void OnRead(FileNode node, long offset, ReadOnlySpan<byte> bytes, OpenFile file)
        {
            first.OnRead(node, offset, bytes, file);
            second.OnRead(node, offset, bytes, file);
        }
    }

    /// <summary>The scan's use of the finder's file catalog, if it has one.</summary>
    public Catalog.CatalogSession? Catalog { get; }

    /// <summary>The scan's use of the finder's hash cache, if it has one (loaded when the scan starts, saved when its compare stage ends).</summary>
    public Caching.CacheSession? Cache { get; }

    /// <summary>Every file read of this scan goes through it; disposed when the scan ends.</summary>
    public FileReader Reader { get; }

    /// <summary>Per-device access tokens for this scan.</summary>
    public Topology.DriveAccessManager Drives { get; }

    public DuplicateFinderOptions Options { get; }

    /// <summary>The roots with their identities, taken when the scan starts; every group carries them.</summary>
    public IReadOnlyList<ScanRoot> Roots { get; set; } = [];

    /// <summary>Where this scan's errors go: the summary, the error callback and the logger.</summary>
    public ScanErrorSink Errors { get; }

    /// <summary>This scan's progress sink, if any.</summary>
    public IProgress<ScanProgress>? Progress { get; }

    public ScanPhase Phase { get; set; } = ScanPhase.Enumerating;

    /// <summary>Set when the scan ends (completed, failed or cancelled).</summary>
    public ScanSummary? Summary { get; set; }

    public long FilesScanned => Volatile.Read(ref _filesScanned);

    public long BytesRead => Reader.BytesRead + Volatile.Read(ref _keyedBytes);

    public int Groups => Volatile.Read(ref _groups);

    public void AddFilesScanned(long count) => Interlocked.Add(ref _filesScanned, count);

    /// <summary>Counts bytes read to key small files while listing them or right after (<see cref="Enumeration.FileTable.KeyedLength"/>, <see cref="KeyPass"/>).</summary>
    public void AddKeyedBytes(long bytes) => Interlocked.Add(ref _keyedBytes, bytes);

    public void AddGroup(DuplicateGroup group)
    {
        Interlocked.Increment(ref _groups);
        Interlocked.Add(ref _duplicateFiles, group.Files.Count - 1);
        Interlocked.Add(ref _wastedBytes, group.WastedBytes);
    }

    public void ReportError(string path, ScanErrorKind kind, string message) => Errors.Report(path, kind, message);

    public ScanProgress Snapshot() =>
        new() { Phase = Phase, FilesScanned = FilesScanned, BytesRead = BytesRead, GroupsFound = Groups, Errors = Errors.Count };

    public ScanSummary ToSummary(TimeSpan elapsed) => new()
    {
        FilesScanned = FilesScanned,
        BytesRead = BytesRead,
        Groups = Groups,
        DuplicateFiles = Volatile.Read(ref _duplicateFiles),
        WastedBytes = Volatile.Read(ref _wastedBytes),
        Errors = Errors.ToArray(),
        Elapsed = elapsed,
        Cache = Cache?.Statistics,
        Catalog = Catalog?.Statistics,
    };
}
