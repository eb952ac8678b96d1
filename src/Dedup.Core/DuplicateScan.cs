using System.Diagnostics;
using System.Runtime.CompilerServices;
using Dedup.Core.Diagnostics;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;

namespace Dedup.Core;

/// <summary>
/// One run of a <see cref="DuplicateFinder"/>: an asynchronous stream of <see cref="DuplicateGroup"/>
/// that may be enumerated once, and the <see cref="Summary"/> available when the enumeration ends.
/// </summary>
public sealed class DuplicateScan : IAsyncEnumerable<DuplicateGroup>
{
    private readonly CancellationToken _cancellationToken;
    private readonly ScanRun? _run;
    private readonly IReadOnlyList<DuplicateGroup>? _results;
    private readonly IReadOnlyList<DuplicateFolderGroup> _folderResults = [];
    private IReadOnlyList<ScanRoot> _roots = [];
    private ScanSummary? _summary;
    private int _started;

    internal DuplicateScan(DuplicateFinderOptions options, ScanStores stores, ScanCallbacks? callbacks, CancellationToken cancellationToken)
    {
        _run = ScanComposition.Compose(options, stores, callbacks);
        _cancellationToken = cancellationToken;
    }

    private DuplicateScan(IReadOnlyList<DuplicateGroup> results, ScanSummary summary, IReadOnlyList<ScanRoot> roots, IReadOnlyList<DuplicateFolderGroup>? folderResults = null)
    {
        _results = results;
        _folderResults = folderResults ?? [];
        _summary = summary;
        _roots = roots;
    }

    /// <summary>Whether the enumeration has ended and <see cref="Summary"/> is available.</summary>
    public bool IsCompleted => Volatile.Read(ref _started) == 2;

    /// <summary>The scan's totals and errors.</summary>
    /// <exception cref="InvalidOperationException">The enumeration has not ended yet.</exception>
    public ScanSummary Summary => IsCompleted && _summary is not null
        ? _summary
        : throw new InvalidOperationException("The summary is available once the scan has been enumerated to the end.");

    /// <summary>
    /// Folder mode (<see cref="DuplicateFinderBuilder.UseFolderMode"/>): the duplicate folders found — the topmost
    /// equal folders first (largest <see cref="DuplicateFolderGroup.WastedBytes"/> first), then the partial overlaps
    /// (<see cref="DuplicateFolderGroup.Differences"/> not empty). The file groups the scan yields then leave out the
    /// files inside the copies. Empty until the enumeration has ended, and in the other modes.
    /// </summary>
    public IReadOnlyList<DuplicateFolderGroup> FolderGroups => !IsCompleted ? []
        : _run?.Outcome.FolderGroups ?? _folderResults;

    /// <summary>
    /// The scanned roots with the identities their folders had when the scan started; empty until the enumeration
    /// has started. Reports that may be acted on later record them (see <see cref="Linking.DuplicateReportExtensions.RecheckGroups"/>).
    /// </summary>
    public IReadOnlyList<ScanRoot> Roots => _run?.Context.Roots ?? _roots;

    /// <summary>
    /// A finished scan that yields <paramref name="groups"/>, with the summary <see cref="SummaryOf"/> adds up from
    /// them, for the tests of code that consumes scans (a fake <see cref="DuplicateFinder"/> returns it). Nothing is read
    /// from disk.
    /// </summary>
    /// <param name="groups">The groups to yield, in order.</param>
    /// <returns>A scan that can be enumerated once.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="groups"/> is <see langword="null"/>.</exception>
    public static DuplicateScan FromResults(IEnumerable<DuplicateGroup> groups)
    {
        ArgumentNullException.ThrowIfNull(groups);
        var list = groups.ToArray();
        return new DuplicateScan(list, SummaryOf(list), []);
    }

    /// <summary>
    /// The summary a scan that found exactly <paramref name="groups"/> would give, for the tests of code that consumes
    /// scans: the counts and wasted bytes added up from the groups, every name in them counted as scanned, nothing
    /// read, no time spent. Change what a test needs with <c>with { ... }</c>.
    /// </summary>
    /// <param name="groups">The groups the scan found.</param>
    /// <param name="errors">The errors it met; none when omitted.</param>
    /// <returns>The summary.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="groups"/> is <see langword="null"/>.</exception>
    public static ScanSummary SummaryOf(IEnumerable<DuplicateGroup> groups, IReadOnlyList<ScanError>? errors = null)
    {
        ArgumentNullException.ThrowIfNull(groups);
        long names = 0, duplicates = 0, wasted = 0;
        var count = 0;
        foreach (var group in groups)
        {
            count++;
            duplicates += group.Files.Count - 1;
            wasted += group.WastedBytes;
            foreach (var file in group.Files)
            {
                names += 1 + file.OtherLinks.Count;
            }
        }

        return new ScanSummary
        {
            FilesScanned = names,
            BytesRead = 0,
            Groups = count,
            DuplicateFiles = duplicates,
            WastedBytes = wasted,
            Errors = errors ?? [],
            Elapsed = TimeSpan.Zero,
        };
    }

    /// <summary>
    /// A finished scan made of given results, for the tests of code that consumes scans: enumerating it yields
    /// <paramref name="groups"/>, then <see cref="Summary"/> is <paramref name="summary"/>. Nothing is read from disk.
    /// </summary>
    /// <param name="groups">The groups to yield, in order.</param>
    /// <param name="summary">The summary to report once they have been enumerated.</param>
    /// <param name="roots">The roots to report; none when omitted.</param>
    /// <returns>A scan that can be enumerated once.</returns>
    public static DuplicateScan FromResults(IEnumerable<DuplicateGroup> groups, ScanSummary summary, IReadOnlyList<ScanRoot>? roots = null)
    {
        ArgumentNullException.ThrowIfNull(groups);
        ArgumentNullException.ThrowIfNull(summary);
        return new DuplicateScan(groups.ToArray(), summary, roots ?? []);
    }

    /// <summary>
    /// A finished folder-mode scan made of given results, for the tests of code that consumes scans: enumerating it
    /// yields <paramref name="groups"/>, then <see cref="FolderGroups"/> is <paramref name="folderGroups"/> and
    /// <see cref="Summary"/> is <paramref name="summary"/>. Nothing is read from disk. Folder groups made this way carry
    /// no listing of their folders, so acting on them is refused (<see cref="Linking.DuplicateActionPlanner.PlanFolders"/>).
    /// </summary>
    /// <param name="groups">The file groups to yield, in order.</param>
    /// <param name="folderGroups">The folder groups to report once the groups have been enumerated.</param>
    /// <param name="summary">The summary to report once they have been enumerated.</param>
    /// <param name="roots">The roots to report; none when omitted.</param>
    /// <returns>A scan that can be enumerated once.</returns>
    public static DuplicateScan FromResults(IEnumerable<DuplicateGroup> groups, IEnumerable<DuplicateFolderGroup> folderGroups, ScanSummary summary, IReadOnlyList<ScanRoot>? roots = null)
    {
        ArgumentNullException.ThrowIfNull(groups);
        ArgumentNullException.ThrowIfNull(folderGroups);
        ArgumentNullException.ThrowIfNull(summary);
        return new DuplicateScan(groups.ToArray(), summary, roots ?? [], folderGroups.ToArray());
    }

    /// <summary>Starts the scan.</summary>
    /// <param name="cancellationToken">Cancels the scan, together with the token given to <see cref="DuplicateFinder.FindAsync(CancellationToken)"/>.</param>
    /// <returns>The enumerator.</returns>
    /// <exception cref="InvalidOperationException">The scan was already enumerated.</exception>
    /// <remarks>
    /// The roots are checked when the enumeration starts, not when the finder is built: a root that is missing then
    /// (a backup disk not mounted yet) makes the first <c>MoveNextAsync</c> throw
    /// <see cref="DirectoryNotFoundException"/> before anything is read.
    /// </remarks>
    public IAsyncEnumerator<DuplicateGroup> GetAsyncEnumerator(CancellationToken cancellationToken = default)
    {
        if (Interlocked.CompareExchange(ref _started, 1, 0) != 0)
        {
            throw new InvalidOperationException("A DuplicateScan can be enumerated once; call DuplicateFinder.FindAsync again for a new scan.");
        }

        var groups = _run is null ? ReplayAsync(cancellationToken) : RunAsync(_run, cancellationToken);
        return groups.GetAsyncEnumerator(cancellationToken);
    }

    private async IAsyncEnumerable<DuplicateGroup> ReplayAsync([EnumeratorCancellation] CancellationToken cancellationToken)
    {
        foreach (var group in _results!)
        {
            cancellationToken.ThrowIfCancellationRequested();
            yield return group;
        }

        await Task.CompletedTask.ConfigureAwait(false);
        Volatile.Write(ref _started, 2);
    }

    private async IAsyncEnumerable<DuplicateGroup> RunAsync(ScanRun run, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        var options = run.Context.Options;
        var logger = options.Logger;
        try
        {
            CheckRoots(options, logger);
            CaptureDrives(run.Context, logger);
        }
        catch
        {
            _summary = run.ToSummary(TimeSpan.Zero);
            Volatile.Write(ref _started, 2);
            throw;
        }

        using var activity = Telemetry.Source.StartActivity(DedupDiagnostics.ScanActivityName);
        activity?.SetTag("dedup.roots", options.Roots.Count);
        activity?.SetTag("dedup.mode", options.MediaMode ? "media" : options.FolderMode ? "folders" : "whole-file");
        if (logger is not null)
        {
            ScanLog.ScanStarted(logger, options.Roots.Count, string.Join(", ", options.Roots), options.MediaMode ? "media mode" : options.FolderMode ? "folders" : "whole files");
        }

        using var linked = CancellationTokenSource.CreateLinkedTokenSource(_cancellationToken, cancellationToken);
        var outcome = "cancelled"; // also when the caller stops enumerating early
        Exception? failure = null;
        var groups = DuplicateScanner.ScanAsync(run, linked.Token).GetAsyncEnumerator(linked.Token);
        try
        {
            while (true)
            {
                // The yield stays outside the try/catch (C# allows no yield inside a catch's try).
                try
                {
                    if (!await groups.MoveNextAsync().ConfigureAwait(false))
                    {
                        outcome = "completed";
                        break;
                    }
                }
                catch (Exception ex) when (ex is not OperationCanceledException)
                {
                    outcome = "failed";
                    failure = ex;
                    throw;
                }

                yield return groups.Current;
            }
        }
        finally
        {
            await groups.DisposeAsync().ConfigureAwait(false);
            Finish(run.Outcome.AddTo(run.Summary ?? run.ToSummary(TimeSpan.Zero)), outcome, failure, activity, logger);
        }
    }

    /// <summary>Publishes the summary, then logs and counts the scan's end.</summary>
    private void Finish(ScanSummary summary, string outcome, Exception? failure, Activity? activity, Microsoft.Extensions.Logging.ILogger? logger)
    {
        _summary = summary;
        Volatile.Write(ref _started, 2);
        Telemetry.RecordScan(summary, outcome);
        if (activity is not null)
        {
            activity.SetTag("dedup.outcome", outcome);
            activity.SetTag("dedup.files", summary.FilesScanned);
            activity.SetTag("dedup.groups", summary.Groups);
            activity.SetTag("dedup.errors", summary.Errors.Count);
            activity.SetStatus(outcome == "failed" ? ActivityStatusCode.Error : ActivityStatusCode.Ok);
        }

        if (logger is null)
        {
            return;
        }

        var elapsed = (long)summary.Elapsed.TotalMilliseconds;
        switch (outcome)
        {
            case "completed":
                ScanLog.ScanCompleted(logger, elapsed, summary.FilesScanned, summary.Groups, summary.WastedBytes, summary.BytesRead, summary.Errors.Count);
                break;
            case "cancelled":
                ScanLog.ScanCancelled(logger, elapsed, summary.FilesScanned, summary.Groups);
                break;
            default:
                ScanLog.ScanFailed(logger, failure, elapsed);
                break;
        }
    }

    /// <summary>The declared drive kinds' paths are looked up when a scan starts; one that fails stops it as a missing root does.</summary>
    private static void CaptureDrives(Scanning.ScanContext context, Microsoft.Extensions.Logging.ILogger? logger)
    {
        try
        {
            context.CaptureDrives();
        }
        catch (IOException e)
        {
            if (logger is not null)
            {
                ScanLog.RootMissing(logger, e.Message);
            }

            throw;
        }
    }

    /// <summary>Every root must be an existing folder (or, on Linux, regular file) when a scan starts (see <see cref="GetAsyncEnumerator"/>).</summary>
    /// <exception cref="DirectoryNotFoundException">A root is missing, or a file that cannot be a root; <see cref="RootUnreachableException"/>
    /// (<see cref="RootAccessDeniedException"/>) when the file system refused to say.</exception>
    internal static void CheckRoots(DuplicateFinderOptions options, Microsoft.Extensions.Logging.ILogger? logger)
    {
        foreach (var root in options.Roots)
        {
            var path = root.ToString();
            if (RootProblem(path, options) is not { } problem)
            {
                continue;
            }

            if (logger is not null)
            {
                ScanLog.RootMissing(logger, problem.Message);
            }

            throw problem;
        }
    }

    /// <summary>
    /// Why <paramref name="path"/> is not a folder or file a scan can start from, by the file system's own answer (links
    /// followed, as for roots); <see langword="null"/> when it is one. Only "no such file" means missing: a refusal
    /// (EACCES on a folder on the way) says so, as does any other error, rather than send the user to check a mount.
    /// A file is a root on Linux (folder mode excepted: it compares folders) when it is regular, as the walk would take it.
    /// </summary>
    internal static DirectoryNotFoundException? RootProblem(string path, DuplicateFinderOptions options) => Paths.PathKinds.Of(path, out var reason) switch
    {
        Paths.PathKind.Folder => null,
        Paths.PathKind.File when options.FolderMode => new($"The root '{Paths.PathText.Escape(path)}' is a file: folder mode compares folders, so its roots must be folders."),
        Paths.PathKind.File => Paths.PathKinds.FileRootProblem(path, options.FollowSymbolicLinks) is { } problem ? RootIsFile(path, problem) : null,
        Paths.PathKind.Missing => RootMissing(path),
        var kind => RootUnreachableException.Create(path, kind == Paths.PathKind.AccessDenied, reason ?? string.Empty),
    };

    private static DirectoryNotFoundException RootIsFile(string path, string problem) => new($"The root '{Paths.PathText.Escape(path)}' {problem}.");

    private static DirectoryNotFoundException RootMissing(string path) => new($"The root folder '{Paths.PathText.Escape(path)}' does not exist (is its disk mounted?).");
}
