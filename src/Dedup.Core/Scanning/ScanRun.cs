using Dedup.Core.Diagnostics;
using Dedup.Core.IO;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning.Features;

namespace Dedup.Core.Scanning;

/// <summary>
/// One scan as composed: its compare stage, its features and their <see cref="ScanContext"/>, with the counters,
/// phase and outcome shared by its threads. The scanner's own: stages and features see the context only.
/// </summary>
internal sealed class ScanRun
{
    private long _filesScanned;
    private long _keyedBytes;
    private int _groups;
    private long _duplicateFiles;
    private long _wastedBytes;

    /// <param name="options">The scan's settings.</param>
    /// <param name="stage">What compares the candidates.</param>
    /// <param name="features">What the scan does beside finding groups, in the order their phases are called.</param>
    /// <param name="callbacks">This scan's own callbacks, each replacing the finder's default when set.</param>
    public ScanRun(DuplicateFinderOptions options, ICompareStage stage, ScanFeature[] features, ScanCallbacks? callbacks = null)
    {
        Stage = stage;
        Features = features;
        Progress = callbacks?.Progress ?? options.Progress;
        Outcome = stage.Unfinished;
        var observer = stage.Observer;
        IWholeFileSettler? settler = null;
        ContentDigests? digests = null;
        foreach (var feature in features)
        {
            if (feature.ReadObserver is { } more)
            {
                observer = observer is null ? more : new BothObservers(observer, more);
            }

            settler = Single(settler, feature.Settler);
            digests = Single(digests, feature.Digests);
            Machine = Single(Machine, feature.Machine);
        }

        Context = new ScanContext(options, new ScanErrorSink(callbacks?.Errors ?? options.ErrorCallback, options.Logger), observer, settler, digests);
    }

    public ScanContext Context { get; }

    public ICompareStage Stage { get; }

    public ScanFeature[] Features { get; }

    /// <summary>The machine the scan's own files are named on (<see cref="ScanFeature.Machine"/>), or <see langword="null"/>.</summary>
    public string? Machine { get; }

    /// <summary>What the stage found beside its groups: <see cref="ICompareStage.Unfinished"/> until it returns.</summary>
    public StageOutcome Outcome { get; set; }

    /// <summary>This scan's progress sink, if any.</summary>
    public IProgress<ScanProgress>? Progress { get; }

    public ScanPhase Phase { get; set; } = ScanPhase.Enumerating;

    /// <summary>Set when the scan ends (completed, failed or cancelled).</summary>
    public ScanSummary? Summary { get; set; }

    public long FilesScanned => Volatile.Read(ref _filesScanned);

    public long BytesRead => Context.Reader.BytesRead + Volatile.Read(ref _keyedBytes);

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

    public ScanProgress Snapshot()
    {
        var compared = Context.Compared;
        var filesToCompare = compared.FilesToCompare; // read before what is compared: it never exceeds these
        var bytesToCompare = compared.BytesToCompare;
        return new()
        {
            Phase = Phase,
            FilesScanned = FilesScanned,
            BytesRead = BytesRead,
            GroupsFound = Groups,
            Errors = Context.Errors.Count,
            FilesToCompare = filesToCompare < 0 ? null : filesToCompare,
            BytesToCompare = bytesToCompare < 0 ? null : bytesToCompare,
            FilesCompared = compared.FilesCompared,
            BytesCompared = compared.BytesCompared,
        };
    }

    /// <summary>The totals so far, with each feature's statistics (the stage's outcome is added when the scan ends).</summary>
    public ScanSummary ToSummary(TimeSpan elapsed)
    {
        var summary = new ScanSummary
        {
            FilesScanned = FilesScanned,
            BytesRead = BytesRead,
            Groups = Groups,
            DuplicateFiles = Volatile.Read(ref _duplicateFiles),
            WastedBytes = Volatile.Read(ref _wastedBytes),
            Errors = Context.Errors.ToArray(),
            Elapsed = elapsed,
        };
        foreach (var feature in Features)
        {
            summary = feature.AddStatistics(summary);
        }

        return summary;
    }

    /// <summary>A declaration at most one feature may make (two would each expect to own the same step).</summary>
    private static T? Single<T>(T? found, T? declared)
        where T : class
        => found is not null && declared is not null
            ? throw new InvalidOperationException($"Two scan features declare a {typeof(T).Name}; a scan has at most one.")
            : found ?? declared;

    /// <summary>Two observers of the same reads (media's PNG walk and the catalog's hashing).</summary>
    private sealed class BothObservers(IReadObserver first, IReadObserver second) : IReadObserver
    {
        public bool TakesCopies => first.TakesCopies || second.TakesCopies;

        public void OnRead(FileNode node, long offset, ReadOnlySpan<byte> bytes, OpenedFile file, FileNode? sameAs)
        {
            first.OnRead(node, offset, bytes, file, sameAs);
            second.OnRead(node, offset, bytes, file, sameAs);
        }
    }
}
