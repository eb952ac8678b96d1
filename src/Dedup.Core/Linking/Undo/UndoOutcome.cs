namespace Dedup.Core.Linking.Undo;

/// <summary>What undo did, or found, for one journalled action.</summary>
public enum UndoOutcome
{
    /// <summary>The name is an independent file (or folder, or link) again, with the bytes and metadata it had before the action.</summary>
    Restored,

    /// <summary>An earlier undo already restored it (the name leads to what that undo made): nothing done.</summary>
    AlreadyRestored,

    /// <summary>The action never changed the name (the run stopped before it, or it was refused): nothing to undo.</summary>
    WasNotDone,

    /// <summary>Left as it is: the name no longer leads to what the journal says (changed, replaced, taken), or it is outside the run's roots, or only root could restore it.</summary>
    LeftAlone,

    /// <summary>The action cannot be taken back (a permanent delete: the bytes are gone).</summary>
    Irreversible,

    /// <summary>Restoring was tried and failed (an I/O error, no space left); the name is as it was before the attempt.</summary>
    Failed,
}
