using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading.Channels;
using Dedup.Core.Enumeration;
using Dedup.Core.Reporting;

namespace Dedup.Core.Scanning;

/// <summary>
/// The scan pipeline: enumerate → group by size (the barrier) → fold hard links → the compare stage (whole-file, or
/// media composing it), with groups streamed out as each candidate set is settled.
/// </summary>
internal static class DuplicateScanner
{
    public static async IAsyncEnumerable<DuplicateGroup> ScanAsync(ScanState state, ICompareStage stage, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var options = state.Options;
        var stopwatch = Stopwatch.StartNew();
        state.Roots = options.Roots.Select(ScanRoot.Capture).ToArray();

        // Cancelled when the caller cancels or stops enumerating early, so no work outlives the scan.
        using var scanCts = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        var token = scanCts.Token;
        var progressTask = state.Progress is null ? Task.CompletedTask : ReportProgressAsync(state, state.Progress, token);
        Task? compareTask = null;
        Task<IReadOnlyList<DuplicateGroup>>? catalogTask = null;
        ScanThreads? threads = null;
        try
        {
            // What blocks (the key pass's and the compare stage's reads, device tokens): on the scan's own threads, not
            // the host's pool.
            threads = new ScanThreads(options.MaxDegreeOfParallelism);
            var candidates = await CollectCandidatesAsync(state, stage, threads, token).ConfigureAwait(false);
            state.Phase = ScanPhase.Comparing;

            var channel = Channel.CreateUnbounded<DuplicateGroup>(new UnboundedChannelOptions { SingleReader = true });
            compareTask = threads.RunAsync(() => Compare(state, stage, candidates, channel.Writer, token));
            if (state.Catalog is { } catalog)
            {
                // SHA-256 of the files the catalog asked for that the compare stage does not read whole, on the same
                // threads; its groups follow the scan's own.
                catalogTask = catalog.FinishAsync(state, threads, compareTask, token);
            }
            await foreach (var group in channel.Reader.ReadAllAsync(token).ConfigureAwait(false))
            {
                // ReadAllAsync hands out buffered groups without looking at the token: none may follow a cancel.
                token.ThrowIfCancellationRequested();
                yield return group;
            }

            await compareTask.ConfigureAwait(false);
            if (catalogTask is not null)
            {
                foreach (var group in await catalogTask.ConfigureAwait(false))
                {
                    token.ThrowIfCancellationRequested();
                    state.AddGroup(group);
                    yield return group;
                }
            }

            state.Phase = ScanPhase.Completed;
        }
        finally
        {
            // Every step runs even when background work failed (a failure skipping the rest leaked the scan's folder
            // descriptors and threads in a long-lived host); the first failure is thrown at the end.
            await scanCts.CancelAsync().ConfigureAwait(false);
            var failure = await WaitQuietlyAsync(compareTask).ConfigureAwait(false);
            state.Cache?.Dispose(); // its writer's thread: an uncommitted save (cancel, failure) is discarded
            failure ??= await WaitQuietlyAsync(catalogTask).ConfigureAwait(false);
            if (threads is not null)
            {
                await threads.DisposeAsync().ConfigureAwait(false); // no scan thread outlives the scan
            }

            failure ??= await WaitQuietlyAsync(progressTask).ConfigureAwait(false);
            state.Reader.Dispose();
            state.Summary = state.ToSummary(stopwatch.Elapsed);
            state.Progress?.Report(state.Snapshot());
            failure?.Throw();
        }
    }

    /// <summary>Waits for background work to stop; returns its failure, cancellation aside (the caller rethrows it once cleanup is done).</summary>
    private static async Task<System.Runtime.ExceptionServices.ExceptionDispatchInfo?> WaitQuietlyAsync(Task? task)
    {
        if (task is null)
        {
            return null;
        }

        try
        {
            await task.ConfigureAwait(false);
            return null;
        }
        catch (OperationCanceledException)
        {
            return null;
        }
        catch (Exception ex)
        {
            return System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(ex);
        }
    }

    /// <param name="state">The scan.</param>
    /// <param name="stage">What compares the candidates (whether it keeps files of a unique size, whether small files may be keyed while listed).</param>
    /// <param name="threads">The scan's threads: the key pass reads there.</param>
    /// <param name="cancellationToken">Stops the enumeration.</param>
    private static async Task<List<CandidateSet>> CollectCandidatesAsync(ScanState state, ICompareStage stage, ScanThreads threads, CancellationToken cancellationToken)
    {
        var options = state.Options;
        var keepSingles = stage.KeepsSingles;
        var context = EnumerationContexts.Create(options, state.Errors);
        // Folder mode needs the whole tree: empty files and folders count, and every folder's parent.
        var table = new FileTable(options.IncludeEmptyFiles || options.FolderMode, state.AddFilesScanned, state.AddKeyedBytes)
        {
            TracksFolders = options.FolderMode,
            KeyedLength = KeysWhileListing(state, stage) ? Math.Min(ProbeStage.WholeReadLimit, FileTable.MaxKeyedLength) : 0,
            KeysWhileListing = !ListingReadsOffInThisFlow.Value,
        };
        if (options.Enumerator is ParallelFileEnumerator builtIn)
        {
            // The built-in walk writes rows straight into the table: no object per file or name.
            await builtIn.FillAsync(context, table, cancellationToken).ConfigureAwait(false);
        }
        else
        {
            await foreach (var file in options.Enumerator.EnumerateAsync(context, cancellationToken).ConfigureAwait(false))
            {
                if (!context.IsSizeIncluded(file.Length))
                {
                    state.AddFilesScanned(1);
                    continue;
                }

                table.Add(file);
            }
        }

        // The cache is read once the listing is done, beside the barrier: read during the listing, it took the two
        // cores from the walk and made a rescan slower (docs/benchmarks.md, #18).
        state.Cache?.Start(cancellationToken);
        if (state.Catalog is { } catalog)
        {
            // Every file, unique sizes included: another machine may have one of the same size.
            await catalog.ReplaceAsync(state, table, cancellationToken).ConfigureAwait(false);
        }

        List<CandidateSet>? sets = null;
        if (table.KeyedLength > 0)
        {
            // The files the listing could not key from the page cache are keyed before sizes are split (KeyPass), on the
            // scan's threads: the reads block.
            await threads.RunAsync(() => sets = OperatingSystem.IsLinux()
                ? SplitKeyingMissing(state, table, keepSingles, threads, cancellationToken)
                : SizeBarrier.Split(table, keepSingles)).ConfigureAwait(false);
        }
        else
        {
            sets = SizeBarrier.Split(table, keepSingles);
        }

        state.Reader.OpenBusiestFolders(table);

        // Longest work first, so one big set does not finish last on a single thread.
        sets!.Sort(static (a, b) => b.Cost.CompareTo(a.Cost));
        return sets;
    }

    /// <summary>Tests: scans started in this async flow read no file while listing, as if the page cache held none (<see cref="FileTable.KeysWhileListing"/>).</summary>
    internal static readonly AsyncLocal<bool> ListingReadsOffInThisFlow = new();

    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static List<CandidateSet> SplitKeyingMissing(ScanState state, FileTable table, bool keepSingles, ScanThreads threads, CancellationToken cancellationToken)
        => SizeBarrier.Split(
            table,
            keepSingles,
            keyMissing: rows => KeyPass.Run(table, rows, state.Options.Roots, state.Options.FollowSymbolicLinks, threads, state.AddKeyedBytes, cancellationToken));

    /// <summary>
    /// Whether the built-in enumerator should read small files while listing them (<see cref="FileTable.KeyedLength"/>):
    /// only for whole-file comparison of a plain scan. Not with a cache, whose point is not to read unchanged files, nor a
    /// catalog or an observer, which must see every candidate's bytes (another machine may hold a file's twin), nor media
    /// or folder mode, which do not compare whole files alone; and not where a root is on a rotational disk, whose reads
    /// follow the disk's order in the compare stage, not the listing's.
    /// </summary>
    internal static bool KeysWhileListing(ScanState state, ICompareStage stage)
    {
        // Media and folder mode are other stages (folder mode's options are checked too: its table keeps every file);
        // whole-file mode keeps no singles and has no observer of its own.
        if (!OperatingSystem.IsLinux() || stage is not WholeFileScan || state.Options.FolderMode
            || state.Options.Enumerator is not ParallelFileEnumerator || state.Cache is not null || state.Catalog is not null)
        {
            return false;
        }

        foreach (var root in state.Roots)
        {
            if (state.Drives.Topology.GetDevice(root.Identity.Device).Kind == Topology.DriveKind.Hdd)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Runs the compare stage to the end, then completes the channel (with its failure, if any).</summary>
    private static void Compare(ScanState state, ICompareStage stage, List<CandidateSet> sets, ChannelWriter<DuplicateGroup> writer, CancellationToken cancellationToken)
    {
        try
        {
            stage.Run(state, sets, new ScanOutput(state, writer), cancellationToken);

            // Once, whatever the stage (whole files, media, folders): only a completed compare stage saves its cache.
            state.Cache?.Finish(cancellationToken);
            writer.Complete();
        }
        catch (Exception ex)
        {
            writer.Complete(ex);
        }
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
}
