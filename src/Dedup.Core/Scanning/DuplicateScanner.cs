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
        ScanThreads? threads = null;
        try
        {
            var candidates = await CollectCandidatesAsync(state, stage.KeepsSingles, token).ConfigureAwait(false);
            state.Phase = ScanPhase.Comparing;

            var channel = Channel.CreateUnbounded<DuplicateGroup>(new UnboundedChannelOptions { SingleReader = true });
            // The compare stage blocks (reads, device tokens): on the scan's own threads, not the host's pool.
            threads = new ScanThreads(options.MaxDegreeOfParallelism);
            compareTask = threads.RunAsync(() => Compare(state, stage, candidates, channel.Writer, token));
            await foreach (var group in channel.Reader.ReadAllAsync(token).ConfigureAwait(false))
            {
                // ReadAllAsync hands out buffered groups without looking at the token: none may follow a cancel.
                token.ThrowIfCancellationRequested();
                yield return group;
            }

            await compareTask.ConfigureAwait(false);
            state.Phase = ScanPhase.Completed;
        }
        finally
        {
            await scanCts.CancelAsync().ConfigureAwait(false);
            await WaitQuietlyAsync(compareTask).ConfigureAwait(false);
            if (threads is not null)
            {
                await threads.DisposeAsync().ConfigureAwait(false); // no scan thread outlives the scan
            }

            await WaitQuietlyAsync(progressTask).ConfigureAwait(false);
            state.Reader.Dispose();
            state.Summary = state.ToSummary(stopwatch.Elapsed);
            state.Progress?.Report(state.Snapshot());
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
    /// <param name="keepSingles">Keep files of a unique size too (see <see cref="ICompareStage.KeepsSingles"/>).</param>
    /// <param name="cancellationToken">Stops the enumeration.</param>
    private static async Task<List<CandidateSet>> CollectCandidatesAsync(ScanState state, bool keepSingles, CancellationToken cancellationToken)
    {
        var options = state.Options;
        var context = EnumerationContexts.Create(options, state.Errors);
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

    /// <summary>Runs the compare stage to the end, then completes the channel (with its failure, if any).</summary>
    private static void Compare(ScanState state, ICompareStage stage, List<CandidateSet> sets, ChannelWriter<DuplicateGroup> writer, CancellationToken cancellationToken)
    {
        try
        {
            stage.Run(state, sets, new ScanOutput(state, writer), cancellationToken);
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
