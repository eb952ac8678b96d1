using Dedup.Core.Paths;

namespace Dedup.Core.Linking;

/// <summary>One planned operation: what happens to one name of a duplicate file.</summary>
public sealed class DuplicateAction
{
    internal DuplicateAction(DuplicateActionKind kind, DuplicateGroup group, DuplicateFile kept, DuplicateFile duplicate, AbsolutePath path, long reclaimableBytes, string? refusal)
    {
        Kind = kind;
        Group = group;
        Kept = kept;
        Duplicate = duplicate;
        Path = path;
        ReclaimableBytes = reclaimableBytes;
        Refusal = refusal;
    }

    /// <summary>What is done to <see cref="Path"/>.</summary>
    public DuplicateActionKind Kind { get; }

    /// <summary>The group the duplicate belongs to.</summary>
    public DuplicateGroup Group { get; }

    /// <summary>The file that stays and whose content the duplicate is checked against.</summary>
    public DuplicateFile Kept { get; }

    /// <summary>The duplicate file (one identity; <see cref="Path"/> is one of its names).</summary>
    public DuplicateFile Duplicate { get; }

    /// <summary>The name acted on: the duplicate's <see cref="DuplicateFile.Path"/> or one of its <see cref="DuplicateFile.OtherLinks"/>.</summary>
    public AbsolutePath Path { get; }

    /// <summary>
    /// Bytes this action frees when it and the actions on the duplicate's other names succeed: the file's size on
    /// the last of its names, zero otherwise, and zero when links outside the scan keep the file alive.
    /// </summary>
    public long ReclaimableBytes { get; }

    /// <summary>Why the action will be skipped without touching anything (known at plan time), or <see langword="null"/>.</summary>
    public string? Refusal { get; }

    /// <summary>The kind and both paths, for people: paths shown with <see cref="AbsolutePath.ToDisplayString"/>.</summary>
    /// <returns>Such as <c>HardLink /a/copy.bin -> /a/original.bin</c>.</returns>
    public override string ToString() => $"{Kind} {Path.ToDisplayString()} -> {Kept.Path.ToDisplayString()}";
}

/// <summary>How an applied <see cref="DuplicateAction"/> ended.</summary>
public enum DuplicateActionStatus
{
    /// <summary>The action was carried out.</summary>
    Done,

    /// <summary>Nothing was changed, for the reason given (the file changed since the scan, the file system refuses, …).</summary>
    Skipped,

    /// <summary>The action failed part-way; anything created was removed and the duplicate is unchanged.</summary>
    Failed,
}

/// <summary>The result of applying one <see cref="DuplicateAction"/>.</summary>
public sealed class DuplicateActionOutcome
{
    internal DuplicateActionOutcome(DuplicateAction action, DuplicateActionStatus status, string? reason)
    {
        Action = action;
        Status = status;
        Reason = reason;
    }

    /// <summary>The planned action.</summary>
    public DuplicateAction Action { get; }

    /// <summary>Done, skipped or failed.</summary>
    public DuplicateActionStatus Status { get; }

    /// <summary>Why the action was skipped or failed; <see langword="null"/> when done.</summary>
    public string? Reason { get; }

    /// <summary>The status, the action and the reason, for people: paths escaped as in <see cref="DuplicateAction.ToString"/>, the reason with <see cref="PathText.EscapeMessage"/>.</summary>
    /// <returns>Such as <c>Skipped: HardLink /a/copy.bin -> /a/original.bin (duplicate changed since the scan; left untouched)</c>.</returns>
    public override string ToString() => Reason is null ? $"{Status}: {Action}" : $"{Status}: {Action} ({PathText.EscapeMessage(Reason)})";
}

/// <summary>
/// What <see cref="DuplicateActionPlan.ApplyAsync(CancellationToken)"/> did: returned when every action was started,
/// and carried by <see cref="ActionsCancelledException.Report"/> when the run was cancelled part-way.
/// </summary>
public sealed class DuplicateActionReport
{
    internal DuplicateActionReport(IReadOnlyList<DuplicateActionOutcome> outcomes, int temporaryFilesRemoved)
    {
        Outcomes = outcomes;
        TemporaryFilesRemoved = temporaryFilesRemoved;
        Done = outcomes.Count(o => o.Status == DuplicateActionStatus.Done);
        Skipped = outcomes.Count(o => o.Status == DuplicateActionStatus.Skipped);
        Failed = outcomes.Count(o => o.Status == DuplicateActionStatus.Failed);

        // A duplicate's space is freed only when every one of its names was handled.
        ReclaimedBytes = outcomes
            .GroupBy(o => o.Action.Duplicate)
            .Where(g => g.All(o => o.Status == DuplicateActionStatus.Done))
            .Sum(BytesOf);
    }

    /// <summary>
    /// One outcome per action started, in plan order: every planned action, unless the run was cancelled (then the
    /// rest are in <see cref="NotStarted"/>).
    /// </summary>
    public IReadOnlyList<DuplicateActionOutcome> Outcomes { get; }

    /// <summary>
    /// The actions a cancelled run did not start, in plan order (nothing was done to them); empty when the run was not
    /// cancelled. <see cref="Outcomes"/> and these together are the plan's actions.
    /// </summary>
    public IReadOnlyList<DuplicateAction> NotStarted { get; internal init; } = [];

    /// <summary>Number of actions carried out.</summary>
    public int Done { get; }

    /// <summary>Number of actions skipped.</summary>
    public int Skipped { get; }

    /// <summary>Number of actions that failed.</summary>
    public int Failed { get; }

    /// <summary>Bytes freed (for the trash: freed once the trash is emptied).</summary>
    public long ReclaimedBytes { get; }

    /// <summary>Leftover temporary files of an interrupted earlier run that were removed first.</summary>
    public int TemporaryFilesRemoved { get; }

    /// <summary>The bytes one duplicate's actions free (all on its last name).</summary>
    // Stryker disable once Linq : the planner puts a duplicate's bytes on its last name only (the others carry 0), so the sum is the maximum
    private static long BytesOf(IEnumerable<DuplicateActionOutcome> outcomes) => outcomes.Sum(o => o.Action.ReclaimableBytes);

    /// <summary>
    /// Files named like leftover temporary files that were left alone because removing them could lose data (not
    /// another name, link or byte-identical copy of a file the plan keeps), each as <c>path: reason</c>.
    /// </summary>
    public IReadOnlyList<string> TemporaryFilesLeftAlone { get; internal init; } = [];
}
