using Dedup.Core.Enumeration;

namespace Dedup.Core.IO;

/// <summary>
/// Tells a file replaced during the scan from an <see cref="IFileEnumerator"/> whose <see cref="FileIdentity"/>s are
/// in another encoding than the file system's (raw <c>st_dev</c>, counters), so the latter is reported as exactly
/// that instead of as hundreds of changed files. Linux; on Windows opens compare identities only when
/// <see cref="Trusted"/> (another enumerator may give any distinct values there), and macOS opens do not compare them.
/// </summary>
/// <param name="trusted">Whether the identities come from the library's own enumerator, which reads them from the file system:
/// then every mismatch is a replaced file.</param>
internal sealed class IdentityCheck(bool trusted)
{
    /// <summary>When this many opens in a row, from the start of the scan, found another identity, the enumerator's identities are taken to be foreign.</summary>
    public const int ForeignAfter = 8;

    private int _matches;

    /// <summary>Whether the identities come from the library's own enumerator.</summary>
    public bool Trusted => trusted;
    private int _mismatches;

    /// <summary>Notes an open whose identity matched; cheap once one has (the verdict is then settled).</summary>
    public void NoteMatch()
    {
        if (Volatile.Read(ref _matches) == 0)
        {
            Interlocked.Increment(ref _matches);
        }
    }

    /// <summary>
    /// Explains why the file found at <paramref name="file"/>'s path (device <paramref name="major"/>:<paramref name="minor"/>,
    /// inode <paramref name="inode"/>) is not the one the enumerator listed.
    /// </summary>
    public string Explain(ScannedFile file, uint major, uint minor, ulong inode)
    {
        var listed = file.Identity;
        var found = FileIdentity.FromStatx(major, minor, inode);
        var rawStatDevice = listed.Device == FileIdentity.UnixStatDevice(major, minor) && listed.Device != found.Device;
        var mismatches = Interlocked.Increment(ref _mismatches);

        // Same inode on another device number: the same file, its device written in another encoding (a file replaced
        // meanwhile gets a new inode). Nothing but mismatches from the start: the enumerator's numbers are not inodes.
        var foreign = !trusted && (listed.FileId == inode || rawStatDevice || (Volatile.Read(ref _matches) == 0 && mismatches >= ForeignAfter));
        if (foreign)
        {
            var cause = rawStatDevice
                ? $"its Device {listed.Device} is stat's st_dev, not (major << 32) | minor"
                : listed.FileId == inode
                    ? $"its Device {listed.Device} is not (major << 32) | minor = {found.Device}"
                    : $"none of the first {mismatches} files opened had the identity the enumerator gave";
            return $"The file enumerator's FileIdentity ({listed}, Device {listed.Device}) does not match the file system's ({found}): {cause}. "
                + "Fill it with FileIdentity.FromUnixStat(st_dev, st_ino) or FileIdentity.FromStatx(stx_dev_major, stx_dev_minor, stx_ino); left out";
        }

        return Volatile.Read(ref _matches) == 0
            ? $"File changed during the scan (replaced by another file, or the file enumerator's FileIdentity is not the file system's: listed {listed}, found {found}); left out"
            : $"File changed during the scan (replaced by another file: listed {listed}, found {found}); left out";
    }
}
