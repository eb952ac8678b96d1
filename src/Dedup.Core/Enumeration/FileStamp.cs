namespace Dedup.Core.Enumeration;

/// <summary>
/// What the kernel said about a file when it was scanned: identity, size, and the modification and change times in
/// nanoseconds since the Unix epoch. A cached digest is trusted only while a file's whole stamp is unchanged; the change
/// time catches an edit that restores the modification time. <see cref="ChangeTimeNs"/> is 0 where the platform did not
/// report it, and such a stamp is never trusted.
/// </summary>
/// <param name="Identity">Device and inode (or the platform's equivalent).</param>
/// <param name="Length">Size in bytes.</param>
/// <param name="LastWriteTimeNs">Last modification time, nanoseconds since 1970-01-01 UTC.</param>
/// <param name="ChangeTimeNs">Last status change time (ctime), nanoseconds since 1970-01-01 UTC; 0 when unknown.</param>
public readonly record struct FileStamp(FileIdentity Identity, long Length, long LastWriteTimeNs, long ChangeTimeNs)
{
    /// <summary>Whether the stamp carries a change time, so that a cache may trust it.</summary>
    public bool IsComplete => ChangeTimeNs != 0;
}
