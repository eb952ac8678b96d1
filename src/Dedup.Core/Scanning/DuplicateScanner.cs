using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading.Channels;
using Dedup.Core.Enumeration;
using Dedup.Core.Reporting;

namespace Dedup.Core.Scanning;

/// <summary>
/// The scan pipeline: enumerate → group by size (the barrier) → fold hard links → the compare stage (whole-file, or
/// media or folders composing it), with groups streamed out as each candidate set is settled. The scan's features
/// (<see cref="Features.ScanFeature"/>) are called at its phases; what it does is decided from what the listing, the
/// stage and the features declare, never from their types.
/// </summary>
internal static class DuplicateScanner
{
    public static async IAsyncEnumerable<DuplicateGroup> ScanAsync(ScanRun run, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var context = run.Context;
        var stopwatch = Stopwatch.StartNew();
        context.CaptureRoots();

        // Cancelled when the caller cancels or stops enumerating early, so no work outlives the scan.
        using var scanCts = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        var token = scanCts.Token;
        var progressTask = run.Progress is null ? Task.CompletedTask : ReportProgressAsync(run, run.Progress, token);
        Task? compareTask = null;
        var finishing = new Task<IEnumerable<DuplicateGroup>>?[run.Features.Length];
        ScanThreads? threads = null;
        try
        {
            // What blocks (the key pass's and the compare stage's reads, device tokens): on the scan's own threads, not
            // the host's pool.
            threads = new ScanThreads(context.Options.MaxDegreeOfParallelism);
            foreach (var feature in run.Features)
            {
                feature.Started(context, token);
            }

            var candidates = await CollectCandidatesAsync(run, threads, token).ConfigureAwait(false);
            context.Compared.Start(candidates);
            run.Phase = ScanPhase.Comparing;

            var channel = Channel.CreateUnbounded<DuplicateGroup>(new UnboundedChannelOptions { SingleReader = true });
            compareTask = threads.RunAsync(() => Compare(run, candidates, channel.Writer, token));
            for (var i = 0; i < finishing.Length; i++)
            {
                // Beside the compare stage, on the same threads (the catalog's hashing); their groups follow the scan's own.
                finishing[i] = run.Features[i].FinishAsync(context, threads, compareTask, token);
            }

            await foreach (var group in channel.Reader.ReadAllAsync(token).ConfigureAwait(false))
            {
                // ReadAllAsync hands out buffered groups without looking at the token: none may follow a cancel.
                token.ThrowIfCancellationRequested();
                yield return group;
            }

            await compareTask.ConfigureAwait(false);
            foreach (var task in finishing)
            {
                if (task is null)
                {
                    continue;
                }

                foreach (var group in await task.ConfigureAwait(false))
                {
                    token.ThrowIfCancellationRequested();
                    run.AddGroup(group);
                    yield return group;
                }
            }

            run.Phase = ScanPhase.Completed;
        }
        finally
        {
            // Every step runs even when background work failed (a failure skipping the rest leaked the scan's folder
            // descriptors and threads in a long-lived host); the first failure is thrown at the end.
            await scanCts.CancelAsync().ConfigureAwait(false);
            var failure = await WaitQuietlyAsync(compareTask).ConfigureAwait(false);
            foreach (var feature in run.Features)
            {
                feature.Dispose(); // e.g. the cache writer's thread: an uncommitted save (cancel, failure) is discarded
            }

            foreach (var task in finishing)
            {
                failure ??= await WaitQuietlyAsync(task).ConfigureAwait(false);
            }

            if (threads is not null)
            {
                await threads.DisposeAsync().ConfigureAwait(false); // no scan thread outlives the scan
            }

            failure ??= await WaitQuietlyAsync(progressTask).ConfigureAwait(false);
            context.Reader.Dispose();
            run.Summary = run.ToSummary(stopwatch.Elapsed);
            run.Progress?.Report(run.Snapshot());
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

    /// <param name="run">The scan.</param>
    /// <param name="threads">The scan's threads: the key pass reads there.</param>
    /// <param name="cancellationToken">Stops the enumeration.</param>
    private static async Task<List<CandidateSet>> CollectCandidatesAsync(ScanRun run, ScanThreads threads, CancellationToken cancellationToken)
    {
        var context = run.Context;
        var options = context.Options;
        var keepSingles = run.Stage.KeepsSingles;
        var listing = EnumerationContexts.Create(options, context.Errors);
        // Folder mode needs the whole tree: empty files and folders count, and every folder's parent.
        var table = new FileTable(options.IncludeEmptyFiles || options.FolderMode, run.AddFilesScanned, run.AddKeyedBytes)
        {
            TracksFolders = options.FolderMode,
            KeyedLength = KeysWhileListing(run) ? Math.Min(ProbeStage.WholeReadLimit, FileTable.MaxKeyedLength) : 0,
            KeysWhileListing = !ListingReadsOffInThisFlow.Value,
        };
        if (context.Source is { } source)
        {
            // The built-in walk writes rows straight into the table: no object per file or name.
            await source.FillAsync(listing, table, cancellationToken).ConfigureAwait(false);
        }
        else
        {
            await foreach (var file in options.Enumerator.EnumerateAsync(listing, cancellationToken).ConfigureAwait(false))
            {
                if (!listing.IsSizeIncluded(file.Length))
                {
                    run.AddFilesScanned(1);
                    continue;
                }

                table.Add(file);
            }
        }

        // The features' turn, beside the barrier, with the rows numbered (the barrier seals the table anyway): the cache
        // is read once the listing is done (read during the listing, it took the two cores from the walk and made a
        // rescan slower: docs/cache.md); the catalog takes every file, unique sizes included (another machine
        // may have one of the same size).
        table.Seal();
        foreach (var feature in run.Features)
        {
            await feature.ListedAsync(context, table, cancellationToken).ConfigureAwait(false);
        }

        List<CandidateSet>? sets = null;
        if (table.KeyedLength > 0)
        {
            // The files the listing could not key from the page cache are keyed before sizes are split (KeyPass), on the
            // scan's threads: the reads block.
            await threads.RunAsync(() => sets = OperatingSystem.IsLinux()
                ? SplitKeyingMissing(run, table, keepSingles, threads, cancellationToken)
                : SizeBarrier.Split(table, keepSingles)).ConfigureAwait(false);
        }
        else
        {
            sets = SizeBarrier.Split(table, keepSingles);
        }

        context.Reader.OpenBusiestFolders(table);

        // Longest work first, so one big set does not finish last on a single thread.
        sets!.Sort(static (a, b) => b.Cost.CompareTo(a.Cost));
        return sets;
    }

    /// <summary>Tests: scans started in this async flow read no file while listing, as if the page cache held none (<see cref="FileTable.KeysWhileListing"/>).</summary>
    internal static readonly AsyncLocal<bool> ListingReadsOffInThisFlow = new();

    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static List<CandidateSet> SplitKeyingMissing(ScanRun run, FileTable table, bool keepSingles, ScanThreads threads, CancellationToken cancellationToken)
        => SizeBarrier.Split(
            table,
            keepSingles,
            keyMissing: rows => KeyPass.Run(table, rows, run.Context.Options.Roots, run.Context.Options.FollowSymbolicLinks, threads, run.AddKeyedBytes, cancellationToken));

    /// <summary>
    /// Whether the listing should read small files while listing them (<see cref="FileTable.KeyedLength"/>), from what
    /// the scan's parts declare: the listing must fill the table from the roots (<see cref="ScanContext.Source"/>: the
    /// key pass walks its rows again), the stage must compare whole files alone (<see cref="ICompareStage.AllowsListingKeys"/>:
    /// not media or folder mode), and every feature must allow it (<see cref="Features.ScanFeature.AllowsListingKeys"/>: not a
    /// cache, whose point is not to read unchanged files, nor a catalog, which must see every candidate's bytes); and no
    /// root may be on a rotational disk, whose reads follow the disk's order in the compare stage, not the listing's.
    /// </summary>
    internal static bool KeysWhileListing(ScanRun run)
    {
        if (!OperatingSystem.IsLinux() || run.Context.Source is null || !run.Stage.AllowsListingKeys)
        {
            return false;
        }

        foreach (var feature in run.Features)
        {
            if (!feature.AllowsListingKeys)
            {
                return false;
            }
        }

        foreach (var root in run.Context.Roots)
        {
            if (run.Context.Drives.Topology.GetDevice(root.Identity.Device).Kind == Topology.DriveKind.Hdd)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Runs the compare stage to the end, then completes the channel (with its failure, if any).</summary>
    private static void Compare(ScanRun run, List<CandidateSet> sets, ChannelWriter<DuplicateGroup> writer, CancellationToken cancellationToken)
    {
        try
        {
            run.Outcome = run.Stage.Run(run.Context, sets, new ScanOutput(run, writer), cancellationToken);

            // Once, whatever the stage (whole files, media, folders): only a completed compare stage saves its cache.
            foreach (var feature in run.Features)
            {
                feature.Compared(cancellationToken);
            }

            writer.Complete();
        }
        catch (Exception ex)
        {
            writer.Complete(ex);
        }
    }

    private static async Task ReportProgressAsync(ScanRun run, IProgress<ScanProgress> progress, CancellationToken cancellationToken)
    {
        using var timer = new PeriodicTimer(TimeSpan.FromMilliseconds(100));
        try
        {
            while (await timer.WaitForNextTickAsync(cancellationToken).ConfigureAwait(false))
            {
                progress.Report(run.Snapshot());
            }
        }
        catch (OperationCanceledException)
        {
            // The scan ended; the final snapshot is reported by the caller.
        }
    }
}
