using System.Runtime.InteropServices;

namespace Dedup.Core.Enumeration;

/// <summary>
/// One scanned file as the <see cref="FileTable"/> keeps it: 60 bytes of plain data in a block of rows, with its folder
/// as a number and its name as an address in the table's <see cref="NameArena"/> (no object per file, none per name).
/// Packed to 4 bytes: the last <c>uint</c> would otherwise pad every row to 64.
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 4)]
internal struct FileRow
{
    public FileIdentity Identity;

    public long Length;

    /// <summary>Modification time, nanoseconds since the Unix epoch.</summary>
    public long LastWriteTimeNs;

    /// <summary>Status change time, nanoseconds since the Unix epoch; 0 when unknown.</summary>
    public long ChangeTimeNs;

    /// <summary>The folder's number in the table.</summary>
    public int Folder;

    /// <summary>The name's address in the table's name arena.</summary>
    public int Name;

    public int LinkCount;

    /// <summary>See <see cref="ScannedFile.OwnerId"/>.</summary>
    public uint OwnerId;

    /// <summary>A hash of a small file's bytes read while its folder was listed; 0 when not read.</summary>
    public uint ContentKey;
}
