namespace Dedup.Core.Linking.Undo;

/// <summary>What applying an <see cref="UndoPlan"/> did, step by step (newest action first).</summary>
public sealed class UndoReport
{
    internal UndoReport(IReadOnlyList<UndoStepOutcome> outcomes, IReadOnlyList<string> notes)
    {
        Outcomes = outcomes;
        Notes = notes;
    }

    /// <summary>One outcome per step of the plan, in the plan's order.</summary>
    public IReadOnlyList<UndoStepOutcome> Outcomes { get; }

    /// <summary>What applying found worth saying beside the outcomes (a leftover temporary file it left alone, with the reason).</summary>
    public IReadOnlyList<string> Notes { get; }

    /// <summary>How many steps had <paramref name="outcome"/>.</summary>
    /// <param name="outcome">The outcome to count.</param>
    /// <returns>The number of steps.</returns>
    public int Count(UndoOutcome outcome) => Outcomes.Count(o => o.Outcome == outcome);
}
