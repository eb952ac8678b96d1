using System.Globalization;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace Dedup.Core.Linking;

/// <summary>
/// The operations on whole duplicate folders (<see cref="DuplicateActionPlanner.PlanFolders"/>): print it for a dry
/// run (<see cref="WriteTo"/>) or carry it out with <see cref="ApplyAsync(CancellationToken)"/>.
/// </summary>
public sealed class DuplicateFolderActionPlan
{
    internal DuplicateFolderActionPlan(Linker linker, IReadOnlyList<DuplicateFolderAction> actions, IReadOnlyList<DuplicateFolderGroup> undecided, ILogger logger, IReadOnlyList<string> leftoverTemporaryFiles)
    {
        Linker = linker;
        LeftoverTemporaryFiles = leftoverTemporaryFiles;
        Actions = actions;
        UndecidedGroups = undecided;
        Logger = logger;
        ReclaimableBytes = actions.Where(a => a.Refusal is null).Sum(a => a.ReclaimableBytes);
    }

    /// <summary>What happens to each file of each duplicate folder.</summary>
    public Linker Linker { get; }

    /// <summary>One action per duplicate folder (refused ones included), group by group.</summary>
    public IReadOnlyList<DuplicateFolderAction> Actions { get; }

    /// <summary>Groups left alone because the keep rules leave several folders tied for the one to keep.</summary>
    public IReadOnlyList<DuplicateFolderGroup> UndecidedGroups { get; }

    /// <summary>Bytes freed if every action succeeds.</summary>
    public long ReclaimableBytes { get; }

    /// <summary>
    /// Temporary files (<c>.dedup-tmp-…</c>) an interrupted earlier run left in the folders acted on (and their
    /// sub-folders); removed first when applied, as in <see cref="DuplicateActionPlan.LeftoverTemporaryFiles"/>.
    /// Always empty on Windows and macOS.
    /// </summary>
    public IReadOnlyList<string> LeftoverTemporaryFiles { get; }

    internal ILogger Logger { get; } = NullLogger.Instance;

    /// <summary>Where applying writes ahead what undo needs (<see cref="DuplicateActionPlanBuilder.UseJournal"/>), or <see langword="null"/>.</summary>
    internal Journal.ActionJournal? Journal { get; init; }

    /// <summary>Test seam: called at fixed points of each folder and of its files' actions.</summary>
    internal LinkerFaults? Faults { get; set; }

    /// <summary>Writes the plan, one line per folder, and the total (a dry run); paths escaped as in <see cref="DuplicateActionPlan.WriteTo"/>.</summary>
    /// <param name="writer">Where to write.</param>
    public void WriteTo(TextWriter writer)
    {
        ArgumentNullException.ThrowIfNull(writer);
        foreach (var path in LeftoverTemporaryFiles)
        {
            writer.WriteLine($"remove leftover temporary file {PathText.Escape(path)}");
        }

        AbsolutePath? lastKept = null;
        foreach (var action in Actions)
        {
            if (!ReferenceEquals(action.Kept, lastKept))
            {
                writer.WriteLine(string.Create(CultureInfo.InvariantCulture, $"keep folder {action.Kept.ToDisplayString()}/ ({action.Group.Files} files, {action.Group.Bytes} bytes)"));
                lastKept = action.Kept;
            }

            writer.WriteLine(action.Refusal is not null
                ? $"  skip folder {action.Folder.ToDisplayString()}/: {PathText.EscapeMessage(action.Refusal)}"
                : string.Create(CultureInfo.InvariantCulture, $"  {LinkerCapabilities.VerbOf(Linker)} folder {action.Folder.ToDisplayString()}/ ({action.FileActions.Count} files{(action.ReclaimableBytes > 0 ? $", frees {action.ReclaimableBytes} bytes" : string.Empty)})"));
        }

        foreach (var group in UndecidedGroups)
        {
            writer.WriteLine($"leave folders {string.Join(", ", group.Folders.Select(f => f.ToDisplayString() + "/"))}: no keep rule decides which one stays");
        }

        writer.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{Actions.Count} folder actions, {Reporting.ByteCount.Format(ReclaimableBytes)} ({ReclaimableBytes} bytes) to reclaim"));
    }

    /// <summary>
    /// Carries out the plan folder by folder. A folder is acted on only once both it and the kept folder list exactly
    /// what the scan saw (every entry, recursively: nothing added, removed, renamed or changed) and every file's bytes
    /// were compared with its counterpart's; then each file goes through the same per-file checks as
    /// <see cref="DuplicateActionPlan.ApplyAsync(CancellationToken)"/>, and for delete and trash the emptied folders
    /// are removed bottom-up. First, the <see cref="LeftoverTemporaryFiles"/> that provably lose nothing are removed.
    /// Implemented for Linux; elsewhere every folder is skipped.
    /// </summary>
    /// <param name="cancellationToken">Stops before the next folder (and between the files of a folder, as a file plan does).</param>
    /// <returns>The per-folder outcomes.</returns>
    /// <exception cref="ActionsCancelledException">
    /// The token was cancelled before every folder was started; <see cref="ActionsCancelledException.FolderReport"/>
    /// has the outcomes of those started and lists the rest (<see cref="DuplicateFolderActionReport.NotStarted"/>).
    /// </exception>
    public ValueTask<DuplicateFolderActionReport> ApplyAsync(CancellationToken cancellationToken = default) => ApplyAsync(null, cancellationToken);

    /// <summary>Carries out the plan as <see cref="ApplyAsync(CancellationToken)"/> does, reporting progress after every file acted on.</summary>
    /// <param name="progress">
    /// Receives an <see cref="ApplyProgress"/> after each file of a folder that passed its checks, counted per folder
    /// (a folder refused as a whole reports nothing); called on the thread that applies the plan. <see langword="null"/> reports nothing.
    /// </param>
    /// <param name="cancellationToken">Stops before the next folder (and between the files of a folder, as a file plan does).</param>
    /// <returns>The per-folder outcomes.</returns>
    /// <exception cref="ActionsCancelledException">
    /// The token was cancelled before every folder was started; <see cref="ActionsCancelledException.FolderReport"/>
    /// has the outcomes of those started and lists the rest (<see cref="DuplicateFolderActionReport.NotStarted"/>).
    /// </exception>
    /// <exception cref="IOException">The journal (<see cref="DuplicateActionPlanBuilder.UseJournal"/>) could not be written before the first folder: nothing was done.</exception>
    public async ValueTask<DuplicateFolderActionReport> ApplyAsync(IProgress<ApplyProgress>? progress, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            throw new ActionsCancelledException(new DuplicateFolderActionReport([]) { NotStarted = Actions }, cancellationToken);
        }

        // Not given the token: a task cancelled on its way would hide the partial report the executor throws with.
        return await Task.Factory.StartNew(
            () => FolderExecutor.Apply(this, progress, cancellationToken),
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default).ConfigureAwait(false);
    }
}
