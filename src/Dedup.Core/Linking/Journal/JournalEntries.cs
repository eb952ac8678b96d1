using Dedup.Core.Interop;

namespace Dedup.Core.Linking.Journal;

/// <summary>A file as a <c>begun</c> line names it: identity, size and modification time (<c>keptFile</c>, <c>after</c>).</summary>
internal readonly record struct JournalFile(ulong Device, ulong Inode, long Size, long MtimeNs)
{
    public static JournalFile Of(in StatxBuffer status) => new(status.Device, status.Ino, (long)status.Size, status.LastWriteTimeNs);
}

/// <summary>
/// The name's file (folder, link) before the step: what undo gives a restored copy. Mode, owner and access time are
/// unknown where the platform's re-checks do not read them (Windows, macOS): then they are left out of the line.
/// </summary>
internal sealed record JournalBefore(ulong Device, ulong Inode, long Size, long MtimeNs)
{
    /// <summary>The full <c>st_mode</c>, type bits included.</summary>
    public int? Mode { get; init; }

    public uint? Uid { get; init; }

    public uint? Gid { get; init; }

    public long? AtimeNs { get; init; }

    /// <summary>FS_IOC_GETFLAGS; written when not zero.</summary>
    public int Flags { get; init; }

    /// <summary>Every extended attribute (name, value); <see langword="null"/> or empty when there are none.</summary>
    public IReadOnlyList<KeyValuePair<string, byte[]>>? Xattrs { get; init; }

    /// <summary>From a status of the name (statx), with the flags and attributes read from the open file.</summary>
    public static JournalBefore Of(in StatxBuffer status, int flags, IReadOnlyList<KeyValuePair<string, byte[]>>? xattrs) =>
        new(status.Device, status.Ino, (long)status.Size, status.LastWriteTimeNs)
        {
            Mode = status.Mode,
            Uid = status.Uid,
            Gid = status.Gid,
            AtimeNs = (status.AtimeSec * 1_000_000_000L) + status.AtimeNsec,
            Flags = flags,
            Xattrs = xattrs,
        };
}

/// <summary>
/// The folder holding the name, as the journal knew it right before the step: its identity and times. The first step in
/// a folder takes them from the folder itself before changing anything there; a later step of the same run in the same
/// open folder takes what the previous step left (the <c>parentMtimeNs</c> of its outcome), so the oldest line of a
/// folder holds the times it had before the run.
/// </summary>
internal readonly record struct JournalParent(ulong Device, ulong Inode, long AtimeNs, long MtimeNs)
{
    public static JournalParent Of(in StatxBuffer status) =>
        new(status.Device, status.Ino, (status.AtimeSec * 1_000_000_000L) + status.AtimeNsec, status.LastWriteTimeNs);
}

/// <summary>Where a trash move puts the file: the trash folder, the name in its <c>files/</c> and in its <c>info/</c>.</summary>
internal sealed record JournalTrash(string Root, string Files, string Info);

/// <summary>One <c>begun</c> line: the step about to be made on <see cref="Path"/> (see <c>docs/journal.md</c>).</summary>
internal sealed record BegunEntry(string Kind, string Path, JournalBefore Before)
{
    public string? Kept { get; init; }

    public JournalFile? KeptFile { get; init; }

    public JournalFile? After { get; init; }

    public string? Target { get; init; }

    public JournalTrash? Trash { get; init; }

    /// <summary>The folder holding <see cref="Path"/> right before the step; <see langword="null"/> where it is not known (Windows, macOS).</summary>
    public JournalParent? Parent { get; init; }
}
