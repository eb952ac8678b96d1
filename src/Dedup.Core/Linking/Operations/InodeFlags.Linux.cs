using System.Runtime.Versioning;
using Dedup.Core.Interop;

namespace Dedup.Core.Linking.Operations;

/// <summary>
/// The inode flags <c>chattr</c> sets (FS_IOC_GETFLAGS/SETFLAGS) that a replacement file must carry over so the name
/// behaves as before: no dump, no atime updates, synchronous writes, compression on or off. Immutable and
/// append-only are not among them: such a duplicate cannot be replaced at all (the rename over it fails with EPERM).
/// </summary>
[SupportedOSPlatform("linux")]
internal static unsafe class InodeFlags
{
    public const int Sync = 0x8;          // S
    public const int NoDump = 0x40;       // d
    public const int NoAtime = 0x80;      // A
    public const int Compress = 0x4;      // c
    public const int NoCompress = 0x400;  // m

    /// <summary>The flags carried over; the others (immutable, append-only, no-COW, journaling, …) are left as the new file has them.</summary>
    public const int Carried = Sync | NoDump | NoAtime | Compress | NoCompress;

    /// <summary>
    /// Gives <paramref name="to"/> the carried flags of <paramref name="from"/>: 0, or the errno of the call that failed.
    /// A file system without these flags (ENOTTY, EOPNOTSUPP on reading them) has nothing to carry over.
    /// </summary>
    public static int Copy(int from, int to)
    {
        int source;
        if (Libc.Ioctl(from, Libc.FS_IOC_GETFLAGS, (nint)(&source)) != 0)
        {
            return Libc.LastErrno is Libc.ENOTTY or Libc.EOPNOTSUPP or Libc.EINVAL ? 0 : Libc.LastErrno;
        }

        int target;
        if (Libc.Ioctl(to, Libc.FS_IOC_GETFLAGS, (nint)(&target)) != 0)
        {
            return (source & Carried) == 0 ? 0 : Libc.LastErrno;
        }

        var wanted = (target & ~Carried) | (source & Carried);
        return wanted == target || Libc.Ioctl(to, Libc.FS_IOC_SETFLAGS, (nint)(&wanted)) == 0 ? 0 : Libc.LastErrno;
    }
}
