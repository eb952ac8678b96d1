namespace Dedup.Core.Linking.Execution;

/// <summary>
/// The running counts behind <see cref="ApplyProgress"/>. Bytes are counted as <see cref="DuplicateActionReport"/>
/// counts them: a duplicate's bytes (on the last of its names) only when every action on it was done. The planner
/// puts a duplicate's names next to each other, so a name that was not done is known before the name carrying the bytes.
/// </summary>
internal sealed class ProgressTally(int total)
{
    private readonly HashSet<DuplicateFile> _notDone = new(ReferenceEqualityComparer.Instance);
    private ApplyProgress _current = new() { Total = total };

    public ApplyProgress Add(DuplicateActionOutcome outcome)
    {
        var action = outcome.Action;
        var done = outcome.Status == DuplicateActionStatus.Done;
        if (!done)
        {
            _notDone.Add(action.Duplicate);
        }

        _current = _current with
        {
            Done = _current.Done + (done ? 1 : 0),
            Skipped = _current.Skipped + (outcome.Status == DuplicateActionStatus.Skipped ? 1 : 0),
            Failed = _current.Failed + (outcome.Status == DuplicateActionStatus.Failed ? 1 : 0),
            ReclaimedBytes = _current.ReclaimedBytes + (done && !_notDone.Contains(action.Duplicate) ? action.ReclaimableBytes : 0),
            LastPath = action.Path,
            LastOutcome = outcome,
        };
        return _current;
    }
}
