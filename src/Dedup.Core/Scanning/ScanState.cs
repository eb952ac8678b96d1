using System.Collections.Concurrent;
using Dedup.Core.Reporting;

namespace Dedup.Core.Scanning;

/// <summary>Counters and errors of one scan, shared by its threads.</summary>
internal sealed class ScanState
{
    private long _filesScanned;
    private long _bytesRead;
    private int _groups;
    private long _duplicateFiles;
    private long _wastedBytes;
    private int _noAtimeRefusals;

    public ScanState(DuplicateFinderOptions options)
    {
        Options = options;
        Drives = new Topology.DriveAccessManager(options.Topology, options.MaxDegreeOfParallelism);
        MediaOptions = Media.MediaOptions.Default with { Buffers = options.Buffers };
    }

    /// <summary>Media mode's locator settings, reading through this scan's buffer pool.</summary>
    public Media.MediaOptions MediaOptions { get; }

    /// <summary>Per-device access tokens for this scan.</summary>
    public Topology.DriveAccessManager Drives { get; }

    /// <summary>Folder descriptors for opening files relative to their folder (Linux).</summary>
    public FolderHandles Folders { get; } = new();

    public DuplicateFinderOptions Options { get; }

    public ConcurrentQueue<ScanError> Errors { get; } = new();

    public ScanPhase Phase { get; set; } = ScanPhase.Enumerating;

    /// <summary>Set when the scan ends (completed, failed or cancelled).</summary>
    public ScanSummary? Summary { get; set; }

    public long FilesScanned => Volatile.Read(ref _filesScanned);

    public long BytesRead => Volatile.Read(ref _bytesRead);

    public int Groups => Volatile.Read(ref _groups);

    /// <summary>
    /// Whether opens still ask for <c>O_NOATIME</c>. The kernel refuses it (EPERM) on files the process does not own
    /// unless it has CAP_FOWNER, and each refusal costs a second open; after <see cref="NoAtimeRefusalLimit"/>
    /// refusals the scan stops asking (with relatime, the default, reads rarely write an access time anyway).
    /// </summary>
    public bool AskNoAtime => Volatile.Read(ref _noAtimeRefusals) < NoAtimeRefusalLimit;

    public const int NoAtimeRefusalLimit = 16;

    public void NoteNoAtimeRefused() => Interlocked.Increment(ref _noAtimeRefusals);

    public void AddFilesScanned(long count) => Interlocked.Add(ref _filesScanned, count);

    public void AddBytesRead(long count) => Interlocked.Add(ref _bytesRead, count);

    public void AddGroup(DuplicateGroup group)
    {
        Interlocked.Increment(ref _groups);
        Interlocked.Add(ref _duplicateFiles, group.Files.Count - 1);
        Interlocked.Add(ref _wastedBytes, group.WastedBytes);
    }

    public void ReportError(string path, ScanErrorKind kind, string message) => Errors.Enqueue(new ScanError(path, kind, message));

    public ScanProgress Snapshot() => new(Phase, FilesScanned, BytesRead, Groups, Errors.Count);

    public ScanSummary ToSummary(TimeSpan elapsed) =>
        new(FilesScanned, BytesRead, Groups, Volatile.Read(ref _duplicateFiles), Volatile.Read(ref _wastedBytes), Errors.ToArray(), elapsed);
}
