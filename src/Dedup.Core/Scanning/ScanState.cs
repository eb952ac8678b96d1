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
    private int _noAtimeOpens;

    public ScanState(DuplicateFinderOptions options)
    {
        Options = options;
        Drives = new Topology.DriveAccessManager(options.Topology, options.MaxDegreeOfParallelism);
        MediaOptions = Media.MediaOptions.Default with { Buffers = options.Buffers };
        EffectiveUid = OperatingSystem.IsLinux() ? Interop.Libc.GetEuid() : Enumeration.ScannedFile.UnknownOwner;
        Identities = new IdentityCheck(trusted: options.Enumerator is Enumeration.ParallelFileEnumerator);
    }

    /// <summary>Explains identity mismatches found when files are opened: a replaced file, or an enumerator's foreign identities.</summary>
    public IdentityCheck Identities { get; }

    /// <summary>The process's effective user id (Linux), compared with file owners before asking for <c>O_NOATIME</c>.</summary>
    public uint EffectiveUid { get; }

    /// <summary>Ranges that PNG chunk lists followed in media mode's first stage may hold at once (64 MiB of ranges).</summary>
    public Media.RangeBudget PngRanges { get; } = new(4L << 20);

    /// <summary>Media mode's locator settings, reading through this scan's buffer pool.</summary>
    public Media.MediaOptions MediaOptions { get; }

    /// <summary>Per-device access tokens for this scan.</summary>
    public Topology.DriveAccessManager Drives { get; }

    /// <summary>Folder descriptors for opening files relative to their folder (Linux).</summary>
    public FolderHandles Folders { get; } = new();

    public DuplicateFinderOptions Options { get; }

    /// <summary>The roots with their identities, taken when the scan starts; every group carries them.</summary>
    public IReadOnlyList<ScanRoot> Roots { get; set; } = [];

    public ConcurrentQueue<ScanError> Errors { get; } = new();

    public ScanPhase Phase { get; set; } = ScanPhase.Enumerating;

    /// <summary>Set when the scan ends (completed, failed or cancelled).</summary>
    public ScanSummary? Summary { get; set; }

    public long FilesScanned => Volatile.Read(ref _filesScanned);

    public long BytesRead => Volatile.Read(ref _bytesRead);

    public int Groups => Volatile.Read(ref _groups);

    /// <summary>
    /// Whether an open of <paramref name="file"/> should ask for <c>O_NOATIME</c> (reads then write no access time,
    /// which relatime still does for files not read in a day). The kernel refuses it (EPERM) on files the process
    /// does not own unless it has CAP_FOWNER, and each refusal costs a second open: so only files the process owns
    /// are asked for, or any file when running as root. Where owners are unknown (another enumerator) or root lacks
    /// CAP_FOWNER (a user namespace), the scan stops asking once <see cref="NoAtimeRefusalLimit"/> refusals
    /// outnumber the opens it was granted for.
    /// </summary>
    public bool AskNoAtime(Enumeration.ScannedFile file)
    {
        if (file.OwnerId != Enumeration.ScannedFile.UnknownOwner && file.OwnerId != EffectiveUid && EffectiveUid != 0)
        {
            return false;
        }

        var refused = Volatile.Read(ref _noAtimeRefusals);
        return refused < NoAtimeRefusalLimit || refused <= Volatile.Read(ref _noAtimeOpens);
    }

    public const int NoAtimeRefusalLimit = 16;

    public void NoteNoAtimeRefused() => Interlocked.Increment(ref _noAtimeRefusals);

    public void NoteNoAtimeGranted() => Interlocked.Increment(ref _noAtimeOpens);

    public void AddFilesScanned(long count) => Interlocked.Add(ref _filesScanned, count);

    public void AddBytesRead(long count) => Interlocked.Add(ref _bytesRead, count);

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
