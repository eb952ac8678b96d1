namespace Dedup.Core.Linking.Undo;

/// <summary>A file as a journal line identifies it: device, inode, size and modification time (nanoseconds since the epoch).</summary>
internal readonly record struct JournalFile(ulong Device, ulong Inode, long Size, long MtimeNs);

/// <summary>An extended attribute of the file before the action: its name and exact value.</summary>
internal sealed record JournalXattr(string Name, byte[] Value);

/// <summary>The name's file (or folder, or link) before the action: what undo gives back.</summary>
internal sealed record JournalBefore(JournalFile File, uint Mode, uint Uid, uint Gid, long AtimeNs, int Flags, IReadOnlyList<JournalXattr> Xattrs)
{
    /// <summary>Whether the line records mode, owner, group and access time (a line written off Linux may not).</summary>
    public bool HasMetadata { get; init; } = true;

    public bool IsFolder => (Mode & 0xF000) == 0x4000;

    public bool IsLink => (Mode & 0xF000) == 0xA000;
}

/// <summary>The folder holding a step's name right before the step (a <c>begun</c> line's <c>parent</c>): identity and times.</summary>
internal readonly record struct JournalParent(ulong Device, ulong Inode, long AtimeNs, long MtimeNs)
{
    public (ulong Device, ulong Inode) Identity => (Device, Inode);
}

/// <summary>
/// One line that changed, or recorded, a folder's modification time: a <c>begun</c> line in it (its step's result not
/// yet known: <see cref="MtimeNs"/> is <see langword="null"/>), an outcome or <c>folderTimes</c> line with the time the
/// folder was left with, or an <c>undone</c> line of a step in it (undo's own change, its result not recorded).
/// </summary>
internal readonly record struct FolderRecord(int Line, long? MtimeNs)
{
    /// <summary>A <c>folderTimes</c> line of an undo that found the folder changed by someone else and kept its times.</summary>
    public bool Kept { get; init; }

    /// <summary>A <c>folderTimes</c> line of an undo that gave the folder back its times: later runs start from there.</summary>
    public bool Restored { get; init; }
}

/// <summary>Where a trash action put the file: the trash folder, the name in <c>files/</c>, the name in <c>info/</c>.</summary>
internal sealed record JournalTrash(string Root, string Files, string Info);

/// <summary>A <c>run</c> line: the run's id, its linker kind and the scanned roots nothing may be done outside of.</summary>
internal sealed record JournalRun(string Id, string Kind, IReadOnlyList<ScanRoot> Roots, int Line);

/// <summary>A <c>begun</c> line: one action about to change a name, with what undo needs to take it back.</summary>
internal sealed record JournalStep
{
    public required string Run { get; init; }

    public required long Seq { get; init; }

    public required string Kind { get; init; }

    /// <summary>The name acted on, exactly (a name that is not UTF-8 keeps its bytes, see <see cref="Paths.KernelNames"/>).</summary>
    public required string Path { get; init; }

    public string? Kept { get; init; }

    public JournalFile? KeptFile { get; init; }

    public required JournalBefore Before { get; init; }

    public JournalFile? After { get; init; }

    public string? Target { get; init; }

    public JournalTrash? Trash { get; init; }

    /// <summary>The folder holding the name right before the step; <see langword="null"/> in a line that does not record it.</summary>
    public JournalParent? Parent { get; init; }

    public required int Line { get; init; }

    /// <summary>Whether undoing it means a new copy of the bytes at the name (links, clones, dedupe, a custom replacement).</summary>
    public bool Copies => Kind is UndoKinds.HardLink or UndoKinds.SymbolicLink or UndoKinds.Clone or UndoKinds.Dedupe or UndoKinds.Replace;
}

/// <summary>The action kinds of a <c>begun</c> line (journal format 2).</summary>
internal static class UndoKinds
{
    public const string HardLink = "hardLink";
    public const string SymbolicLink = "symbolicLink";
    public const string Clone = "clone";
    public const string Dedupe = "dedupe";
    public const string Replace = "replace";
    public const string Delete = "delete";
    public const string Trash = "trash";
    public const string RemoveFolder = "removeFolder";
    public const string RemoveLink = "removeLink";

    public static bool IsKnown(string kind) =>
        kind is HardLink or SymbolicLink or Clone or Dedupe or Replace or Delete or Trash or RemoveFolder or RemoveLink;

    /// <summary>The kind as a plan line says it.</summary>
    public static string Describe(string kind) => kind switch
    {
        HardLink => "hard link",
        SymbolicLink => "symbolic link",
        Clone => "clone",
        Dedupe => "dedupe",
        Replace => "replacement",
        Delete => "delete",
        Trash => "trash",
        RemoveFolder => "removed folder",
        RemoveLink => "removed link",
        _ => kind,
    };
}
