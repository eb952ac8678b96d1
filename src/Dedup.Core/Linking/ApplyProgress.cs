using Dedup.Core.Paths;

namespace Dedup.Core.Linking;

/// <summary>
/// Where <see cref="DuplicateActionPlan.ApplyAsync(IProgress{ApplyProgress}, CancellationToken)"/> is: reported once
/// after every action started (refused ones included), so the last report's counts equal the
/// <see cref="DuplicateActionReport"/>'s; a cancelled run reports nothing for the actions it did not start. Not
/// positional (no <c>Deconstruct</c>), so counters can be added without breaking callers; read the properties by name.
/// </summary>
public readonly record struct ApplyProgress
{
    /// <summary>Actions in the plan.</summary>
    public int Total { get; init; }

    /// <summary>Actions carried out so far.</summary>
    public int Done { get; init; }

    /// <summary>Actions skipped so far (refused at plan time, changed since the scan, …).</summary>
    public int Skipped { get; init; }

    /// <summary>Actions that failed so far.</summary>
    public int Failed { get; init; }

    /// <summary>Actions finished so far: <see cref="Done"/> + <see cref="Skipped"/> + <see cref="Failed"/>.</summary>
    public int Completed => Done + Skipped + Failed;

    /// <summary>Bytes freed so far, counted as <see cref="DuplicateActionReport.ReclaimedBytes"/> counts them.</summary>
    public long ReclaimedBytes { get; init; }

    /// <summary>The name the action just finished acted on (<see cref="DuplicateAction.Path"/>).</summary>
    public AbsolutePath? LastPath { get; init; }

    /// <summary>
    /// The outcome of the action just finished: what was done to which file, kept file, bytes and reason. An audit
    /// trail written from it as each report arrives survives an interrupted run.
    /// </summary>
    public DuplicateActionOutcome? LastOutcome { get; init; }
}
