using Dedup.Core.Paths;

namespace Dedup.Core.Linking.Undo;

/// <summary>What applying an <see cref="UndoPlan"/> did for one step.</summary>
public sealed class UndoStepOutcome
{
    internal UndoStepOutcome(UndoStep step, UndoOutcome outcome, string? reason)
    {
        Step = step;
        Outcome = outcome;
        Reason = reason;
    }

    /// <summary>The step.</summary>
    public UndoStep Step { get; }

    /// <summary>What was done or found.</summary>
    public UndoOutcome Outcome { get; }

    /// <summary>Why it was left alone, failed or is irreversible, or a note on a restore (say, inode flags that could not be set); otherwise <see langword="null"/>.</summary>
    public string? Reason { get; }

    /// <inheritdoc />
    public override string ToString()
    {
        var verb = Outcome switch
        {
            UndoOutcome.Restored => "restored",
            UndoOutcome.AlreadyRestored => "already restored",
            UndoOutcome.WasNotDone => "was not done",
            UndoOutcome.LeftAlone => "left alone",
            UndoOutcome.Irreversible => "irreversible",
            _ => "failed",
        };
        return Reason is null ? $"{verb} {PathText.Escape(Step.Path)}" : $"{verb} {PathText.Escape(Step.Path)}: {Reason}";
    }
}
