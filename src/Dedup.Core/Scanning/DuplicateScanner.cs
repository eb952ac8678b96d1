using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading.Channels;
using Dedup.Core.Enumeration;
using Dedup.Core.Reporting;

namespace Dedup.Core.Scanning;

/// <summary>
/// The scan pipeline: enumerate → group by size → fold hard links → probe → compare, with groups
/// streamed out as each candidate set is settled.
/// </summary>
internal static partial class DuplicateScanner
{
    public static async IAsyncEnumerable<DuplicateGroup> ScanAsync(ScanState state, Media.Pipeline.MediaScan? media, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var options = state.Options;
        var stopwatch = Stopwatch.StartNew();
        state.Roots = options.Roots.Select(ScanRoot.Capture).ToArray();

        // Cancelled when the caller cancels or stops enumerating early, so no work outlives the scan.
        using var scanCts = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        var token = scanCts.Token;
        var progressTask = options.Progress is null ? Task.CompletedTask : ReportProgressAsync(state, options.Progress, token);
        Task? compareTask = null;
        try
        {
            var candidates = await CollectCandidatesAsync(state, keepSingles: media is not null, token).ConfigureAwait(false);
            state.Phase = ScanPhase.Comparing;

            var channel = Channel.CreateUnbounded<DuplicateGroup>(new UnboundedChannelOptions { SingleReader = true });
            compareTask = media is null
                ? Task.Run(() => Compare(state, candidates, channel.Writer, token), CancellationToken.None)
                : Task.Run(() => CompareMedia(state, media, candidates, channel.Writer, token), CancellationToken.None);
            await foreach (var group in channel.Reader.ReadAllAsync(token).ConfigureAwait(false))
            {
                yield return group;
            }

            await compareTask.ConfigureAwait(false);
            state.Phase = ScanPhase.Completed;
        }
        finally
        {
            await scanCts.CancelAsync().ConfigureAwait(false);
            await WaitQuietlyAsync(compareTask).ConfigureAwait(false);
            await WaitQuietlyAsync(progressTask).ConfigureAwait(false);
            state.Reader.Dispose();
            state.Summary = state.ToSummary(stopwatch.Elapsed);
            options.Progress?.Report(state.Snapshot());
        }
    }

    /// <summary>Waits for background work to stop; its cancellation or failure was already observed by the caller.</summary>
    private static async Task WaitQuietlyAsync(Task? task)
    {
        if (task is null)
        {
            return;
        }

        try
        {
            await task.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
        }
    }

    /// <param name="state">The scan.</param>
    /// <param name="keepSingles">Keep files of a unique size too (media mode: their payload may still equal another file's).</param>
    /// <param name="cancellationToken">Stops the enumeration.</param>
    private static async Task<List<CandidateSet>> CollectCandidatesAsync(ScanState state, bool keepSingles, CancellationToken cancellationToken)
    {
        var options = state.Options;
        var context = new FileEnumerationContext(options, state.Errors);
        var bySize = new Dictionary<long, List<ScannedFile>>();
        await foreach (var file in options.Enumerator.EnumerateAsync(context, cancellationToken).ConfigureAwait(false))
        {
            state.AddFilesScanned(1);
            if (!context.IsSizeIncluded(file.Length) || (file.Length == 0 && !options.IncludeEmptyFiles))
            {
                continue;
            }

            if (!bySize.TryGetValue(file.Length, out var list))
            {
                bySize[file.Length] = list = new List<ScannedFile>(2);
            }

            list.Add(file);
        }

        var sets = FoldHardLinks(bySize, keepSingles);

        // Longest work first, so one big set does not finish last on a single thread.
        sets.Sort(static (a, b) => b.Cost.CompareTo(a.Cost));
        return sets;
    }

    private static List<CandidateSet> FoldHardLinks(Dictionary<long, List<ScannedFile>> bySize, bool keepSingles)
    {
        var sets = new List<CandidateSet>();
        var byIdentity = new Dictionary<FileIdentity, FileNode>();
        foreach (var (size, files) in bySize)
        {
            if (files.Count < 2 && !keepSingles)
            {
                continue;
            }

            byIdentity.Clear();
            foreach (var file in files)
            {
                if (byIdentity.TryGetValue(file.Identity, out var node))
                {
                    node.AddName(file.Path);
                }
                else
                {
                    byIdentity[file.Identity] = new FileNode(file);
                }
            }

            if (byIdentity.Count >= 2 || keepSingles)
            {
                sets.Add(new CandidateSet(size, [.. byIdentity.Values]));
            }
        }

        return sets;
    }

    private static void Compare(ScanState state, List<CandidateSet> sets, ChannelWriter<DuplicateGroup> writer, CancellationToken cancellationToken)
    {
        try
        {
            var parallel = new ParallelOptions { MaxDegreeOfParallelism = state.Options.MaxDegreeOfParallelism, CancellationToken = cancellationToken };
            Action<FileComparisonSet> settled = set => Emit(state, set, writer);
            Parallel.ForEach(sets, parallel, candidate => CompareSet(state, candidate, settled, cancellationToken));
            writer.Complete();
        }
        catch (Exception ex)
        {
            writer.Complete(ex);
        }
    }

    /// <summary>Probes and compares one set; each settled <see cref="FileComparisonSet"/> (the probe's, then each bucket's) goes to <paramref name="settled"/>, possibly in parallel.</summary>
    private static void CompareSet(ScanState state, CandidateSet candidate, Action<FileComparisonSet> settled, CancellationToken cancellationToken)
    {
        // One token per device the set touches, taken in global order (HDD: one reader at a time).
        var devices = DevicesOf(candidate.Files);
        using var token = state.Drives.EnterAll(devices, cancellationToken);
        var rotational = Array.Exists(devices, d => state.Drives.Topology.GetDevice(d).Kind == Topology.DriveKind.Hdd);
        if (rotational)
        {
            // Until physical offsets are known, inode order approximates disk order.
            candidate.Files.Sort(static (a, b) => a.Primary.Identity.FileId.CompareTo(b.Primary.Identity.FileId));
        }

        // Further readers within this set take further tokens of its device (one device only).
        var readers = devices.Length == 1 ? new ReaderFanOut(state.Drives.GetSemaphore(devices[0])) : ReaderFanOut.Single;

        var unsettled = new List<List<int>>();
        using (var set = new FileComparisonSet(candidate.Files, candidate.Size, state, candidate.Maps) { RecordPhysicalOffsets = rotational })
        {
            ProbeStage.Run(set, readers, unsettled, cancellationToken);
            settled(set);
        }

        // Buckets are independent; a set with many (same size, same probes) must not keep one core busy
        // while the other idles, so they are compared in parallel within the device's reader limit.
        void CompareBucket(List<int> bucket)
        {
            var files = new List<FileNode>(bucket.Count);
            foreach (var index in bucket)
            {
                files.Add(candidate.Files[index]);
            }

            if (rotational)
            {
                // The full reads follow the first extents' physical order recorded by the probe.
                files.Sort(static (a, b) => a.PhysicalOffset.CompareTo(b.PhysicalOffset));
            }

            using var subset = new FileComparisonSet(files, candidate.Size, state, candidate.Maps);
            state.Options.Strategy.Partition(subset, cancellationToken);
            settled(subset);
        }

        readers.For(unsettled.Count, i => CompareBucket(unsettled[i]), cancellationToken);
    }

    /// <summary>The distinct devices of a set's files, ascending; almost always one, so no LINQ or hash set per set.</summary>
    private static ulong[] DevicesOf(List<FileNode> files)
    {
        var first = files[0].Primary.Identity.Device;
        List<ulong>? more = null;
        foreach (var file in files)
        {
            var device = file.Primary.Identity.Device;
            if (device != first && !(more?.Contains(device) ?? false))
            {
                (more ??= []).Add(device);
            }
        }

        if (more is null)
        {
            return [first];
        }

        ulong[] devices = [first, .. more];
        Array.Sort(devices); // EnterAll takes them in ascending order
        return devices;
    }

    private static void Emit(ScanState state, FileComparisonSet set, ChannelWriter<DuplicateGroup> writer)
    {
        foreach (var (members, verified) in set.Groups)
        {
            var files = new List<DuplicateFile>(members.Length);
            foreach (var index in members)
            {
                files.Add(set[index].ToDuplicateFile());
            }

            Publish(state, writer, set.Length, files, verified, ContentMatch.WholeFile);
        }
    }

    /// <summary>Reports a group that still has two files, in path order, as it is found.</summary>
    private static void Publish(ScanState state, ChannelWriter<DuplicateGroup> writer, long size, List<DuplicateFile> files, bool verified, ContentMatch match)
    {
        if (files.Count < 2)
        {
            return;
        }

        files.Sort(static (a, b) => a.Path.CompareTo(b.Path));
        var group = new DuplicateGroup(size, files, verified, match) { Roots = state.Roots };
        state.AddGroup(group);
        writer.TryWrite(group);
    }

    private static async Task ReportProgressAsync(ScanState state, IProgress<ScanProgress> progress, CancellationToken cancellationToken)
    {
        using var timer = new PeriodicTimer(TimeSpan.FromMilliseconds(100));
        try
        {
            while (await timer.WaitForNextTickAsync(cancellationToken).ConfigureAwait(false))
            {
                progress.Report(state.Snapshot());
            }
        }
        catch (OperationCanceledException)
        {
            // The scan ended; the final snapshot is reported by the caller.
        }
    }

    /// <summary>Files to compare: of <paramref name="Size"/> bytes, or each read through its content map in <paramref name="Maps"/>.</summary>
    private sealed record CandidateSet(long Size, List<FileNode> Files, IReadOnlyDictionary<FileNode, IContentMap>? Maps = null)
    {
        public long Cost => Files.Count * Math.Min(Size, 1L << 40);
    }
}
