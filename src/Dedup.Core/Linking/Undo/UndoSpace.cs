namespace Dedup.Core.Linking.Undo;

/// <summary>The space undo needs on one file system (new copies of the content links and clones shared), and what is free there.</summary>
public sealed class UndoSpace
{
    internal UndoSpace(string folder, long needed, long available)
    {
        Folder = folder;
        Needed = needed;
        Available = available;
    }

    /// <summary>A folder on the file system (the first one undo writes to there), for messages.</summary>
    public string Folder { get; }

    /// <summary>Bytes the restored copies take (each rounded up to the file system's block size).</summary>
    public long Needed { get; }

    /// <summary>Bytes free for the user running undo when the plan was made.</summary>
    public long Available { get; }

    /// <summary>Whether the copies fit.</summary>
    public bool Fits => Needed <= Available;
}
