using System.Collections.Concurrent;
using Dedup.Core.Reporting;

namespace Dedup.Core.Scanning;

/// <summary>Counters and errors of one scan, shared by its threads.</summary>
internal sealed class ScanState
{
    private long _filesScanned;
    private int _groups;
    private long _duplicateFiles;
    private long _wastedBytes;

    /// <param name="options">The scan's settings.</param>
    /// <param name="observer">Given to the reader: sees every whole-file read but probes.</param>
    public ScanState(DuplicateFinderOptions options, IReadObserver? observer = null)
    {
        Options = options;
        Drives = new Topology.DriveAccessManager(options.Topology, options.MaxDegreeOfParallelism);
        Reader = new FileReader(
            options.Buffers,
            Errors,
            trustedIdentities: options.Enumerator is Enumeration.ParallelFileEnumerator,
            observer);
    }

    /// <summary>Every file read of this scan goes through it; disposed when the scan ends.</summary>
    public FileReader Reader { get; }

    /// <summary>Per-device access tokens for this scan.</summary>
    public Topology.DriveAccessManager Drives { get; }

    public DuplicateFinderOptions Options { get; }

    /// <summary>The roots with their identities, taken when the scan starts; every group carries them.</summary>
    public IReadOnlyList<ScanRoot> Roots { get; set; } = [];

    public ConcurrentQueue<ScanError> Errors { get; } = new();

    public ScanPhase Phase { get; set; } = ScanPhase.Enumerating;

    /// <summary>Set when the scan ends (completed, failed or cancelled).</summary>
    public ScanSummary? Summary { get; set; }

    public long FilesScanned => Volatile.Read(ref _filesScanned);

    public long BytesRead => Reader.BytesRead;

    public int Groups => Volatile.Read(ref _groups);

    public void AddFilesScanned(long count) => Interlocked.Add(ref _filesScanned, count);

    public void AddGroup(DuplicateGroup group)
    {
        Interlocked.Increment(ref _groups);
        Interlocked.Add(ref _duplicateFiles, group.Files.Count - 1);
        Interlocked.Add(ref _wastedBytes, group.WastedBytes);
    }

    public void ReportError(string path, ScanErrorKind kind, string message) => Errors.Enqueue(new ScanError(path, kind, message));

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
    };
}
