using Dedup.Core.Paths;

namespace Dedup.Core.Linking;

/// <summary>
/// One planned operation on a whole duplicate folder: every file in <see cref="Folder"/> is deleted, trashed or linked
/// to its counterpart in <see cref="Kept"/> (see <c>docs/folders.md</c>).
/// </summary>
public sealed class DuplicateFolderAction
{
    internal DuplicateFolderAction(DuplicateActionKind kind, DuplicateFolderGroup group, AbsolutePath kept, AbsolutePath folder, long reclaimableBytes, string? refusal, IReadOnlyList<DuplicateAction> fileActions)
    {
        Kind = kind;
        Group = group;
        Kept = kept;
        Folder = folder;
        ReclaimableBytes = reclaimableBytes;
        Refusal = refusal;
        FileActions = fileActions;
    }

    /// <summary>What is done to each file of <see cref="Folder"/>.</summary>
    public DuplicateActionKind Kind { get; }

    /// <summary>The folder group acted on.</summary>
    public DuplicateFolderGroup Group { get; }

    /// <summary>The folder that stays and whose files each file of <see cref="Folder"/> is checked against.</summary>
    public AbsolutePath Kept { get; }

    /// <summary>The duplicate folder acted on.</summary>
    public AbsolutePath Folder { get; }

    /// <summary>Bytes freed when every file of the folder is handled (files also linked outside the folder free nothing).</summary>
    public long ReclaimableBytes { get; }

    /// <summary>Why the folder will be left untouched (known at plan time), or <see langword="null"/>.</summary>
    public string? Refusal { get; }

    /// <summary>The per-file actions, one per name in the folder, applied only once the whole folder has been re-checked.</summary>
    public IReadOnlyList<DuplicateAction> FileActions { get; }

    /// <summary>The kind and both folders, for people.</summary>
    /// <returns>Such as <c>Delete /a/copy -> /a/music</c>.</returns>
    public override string ToString() => $"{Kind} {Folder.ToDisplayString()} -> {Kept.ToDisplayString()}";
}

/// <summary>The result of applying one <see cref="DuplicateFolderAction"/>.</summary>
public sealed class DuplicateFolderActionOutcome
{
    internal DuplicateFolderActionOutcome(DuplicateFolderAction action, DuplicateActionStatus status, string? reason, IReadOnlyList<DuplicateActionOutcome> files, long reclaimedBytes = 0)
    {
        Action = action;
        Status = status;
        Reason = reason;
        Files = files;
        ReclaimedBytes = reclaimedBytes;
    }

    /// <summary>The planned action.</summary>
    public DuplicateFolderAction Action { get; }

    /// <summary>Done (every file and, for delete and trash, the folder itself), skipped (nothing changed) or failed (part done).</summary>
    public DuplicateActionStatus Status { get; }

    /// <summary>Why the folder was skipped or not finished; <see langword="null"/> when done.</summary>
    public string? Reason { get; }

    /// <summary>The per-file outcomes; empty when the folder was refused before any file was acted on.</summary>
    public IReadOnlyList<DuplicateActionOutcome> Files { get; }

    /// <summary>
    /// The files of the folder a cancelled run was acting on that it did not start (<see cref="Files"/> has the others);
    /// empty for every other folder.
    /// </summary>
    public IReadOnlyList<DuplicateAction> NotStarted { get; internal init; } = [];

    /// <summary>Bytes the per-file actions freed (their <see cref="DuplicateActionReport.ReclaimedBytes"/>).</summary>
    internal long ReclaimedBytes { get; }

    /// <summary>The status, the action and the reason, for people.</summary>
    /// <returns>Such as <c>Skipped: Delete /a/copy -> /a/music (…)</c>.</returns>
    public override string ToString() => Reason is null ? $"{Status}: {Action}" : $"{Status}: {Action} ({PathText.EscapeMessage(Reason)})";
}

/// <summary>
/// What <see cref="DuplicateFolderActionPlan.ApplyAsync(CancellationToken)"/> did: returned when every folder was
/// started, and carried by <see cref="ActionsCancelledException.FolderReport"/> when the run was cancelled part-way.
/// </summary>
public sealed class DuplicateFolderActionReport
{
    internal DuplicateFolderActionReport(IReadOnlyList<DuplicateFolderActionOutcome> outcomes, int temporaryFilesRemoved = 0)
    {
        Outcomes = outcomes;
        TemporaryFilesRemoved = temporaryFilesRemoved;
        Done = outcomes.Count(o => o.Status == DuplicateActionStatus.Done);
        Skipped = outcomes.Count(o => o.Status == DuplicateActionStatus.Skipped);
        Failed = outcomes.Count(o => o.Status == DuplicateActionStatus.Failed);
        ReclaimedBytes = outcomes.Sum(o => o.ReclaimedBytes);
    }

    /// <summary>
    /// One outcome per folder action started, in plan order: every planned one, unless the run was cancelled (then the
    /// rest are in <see cref="NotStarted"/>).
    /// </summary>
    public IReadOnlyList<DuplicateFolderActionOutcome> Outcomes { get; }

    /// <summary>
    /// The folder actions a cancelled run did not start, in plan order (nothing in them was touched); empty when the
    /// run was not cancelled.
    /// </summary>
    public IReadOnlyList<DuplicateFolderAction> NotStarted { get; internal init; } = [];

    /// <summary>Folders handled completely.</summary>
    public int Done { get; }

    /// <summary>Folders left untouched.</summary>
    public int Skipped { get; }

    /// <summary>Folders handled in part (every file acted on was verified against the kept folder first).</summary>
    public int Failed { get; }

    /// <summary>Bytes freed (for the trash: once it is emptied).</summary>
    public long ReclaimedBytes { get; }

    /// <summary>Leftover temporary files of an interrupted earlier run that were removed first (see <see cref="DuplicateFolderActionPlan.LeftoverTemporaryFiles"/>).</summary>
    public int TemporaryFilesRemoved { get; }

    /// <summary>
    /// Files named like leftover temporary files that were left alone because removing them could lose data, each as
    /// <c>path: reason</c> (as <see cref="DuplicateActionReport.TemporaryFilesLeftAlone"/>).
    /// </summary>
    public IReadOnlyList<string> TemporaryFilesLeftAlone { get; internal init; } = [];
}
