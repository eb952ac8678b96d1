using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Operations;

/// <summary>
/// Replaces the duplicate with a copy-on-write clone of the kept file (FICLONE) made under a temporary name,
/// with the duplicate's permissions, owner (when permitted), extended attributes, times and <c>chattr</c> flags
/// (<see cref="InodeFlags.Carried"/>), then renamed over it.
/// </summary>
[SupportedOSPlatform("linux")]
internal static unsafe class CloneOperation
{
    public static void Apply(LinkContext context)
    {
        var kept = context.OpenKept();
        var duplicate = context.DuplicateStatus;

        // The attributes are read from the duplicate opened and checked as the scanned file (O_NOFOLLOW, identity, change time).
        using var source = context.OpenDuplicate();
        string? failedAttribute = null;
        context.ReplaceViaTemporary(
            temporary => CreateClone(context.FolderFd, temporary, LinkContext.Fd(kept), source, duplicate, out failedAttribute),
            errno => failedAttribute is not null
                ? ActionStoppedException.Fail($"cannot give the clone the duplicate's {failedAttribute}: {Libc.Message(errno)}; duplicate unchanged")
                : errno is Libc.EOPNOTSUPP or Libc.EINVAL or Libc.EXDEV or Libc.ENOTTY or Libc.ENOSYS
                ? ActionStoppedException.Skip(Unsupported(errno))
                : ActionStoppedException.Fail($"cannot create a clone in {PathText.Escape(context.Folder)}: {Libc.Message(errno)}; duplicate unchanged"),
            kind: "clone");
    }

    /// <summary>Why a clone is refused when the file system answers FICLONE with <paramref name="errno"/> (also the plan's prediction).</summary>
    public static string Unsupported(int errno) => $"the file system cannot clone this file (FICLONE: {Libc.Message(errno)}); no copy or link is made instead";

    private static int CreateClone(int folderFd, string temporary, int keptFd, SafeFileHandle source, StatxBuffer duplicate, out string? failedAttribute)
    {
        failedAttribute = null;
        var mode = duplicate.Mode & 0xFFF;
        var fd = Libc.OpenAt(folderFd, temporary, Libc.O_WRONLY | Libc.O_CREAT | Libc.O_EXCL | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0x180);
        if (fd < 0)
        {
            return Libc.LastErrno;
        }

        try
        {
            if (Libc.Ioctl(fd, Libc.FICLONE, keptFd) != 0)
            {
                return Libc.LastErrno;
            }

            if (Interop.Libc.GetEuid() == 0)
            {
                _ = Libc.Fchown(fd, duplicate.Uid, duplicate.Gid);
            }

            // After fchown, which clears security.capability; before fchmod, so the mode wins over an access ACL's.
            var errno = CopyExtendedAttributes(LinkContext.Fd(source), fd, out failedAttribute);
            if (errno != 0)
            {
                return errno;
            }

            var times = stackalloc TimeSpec[2];
            times[0] = new TimeSpec { Seconds = duplicate.AtimeSec, Nanoseconds = duplicate.AtimeNsec };
            times[1] = new TimeSpec { Seconds = duplicate.MtimeSec, Nanoseconds = duplicate.MtimeNsec };
            if (Libc.Fchmod(fd, mode) != 0 || Libc.Futimens(fd, times) != 0)
            {
                return Libc.LastErrno;
            }

            // chattr's flags (no dump, no atime…) last: they change only the change time, which the clone gets anew anyway.
            errno = InodeFlags.Copy(LinkContext.Fd(source), fd);
            failedAttribute = errno != 0 ? "inode flags (chattr)" : null;
            return errno;
        }
        finally
        {
            _ = Libc.Close(fd);
        }
    }

    /// <summary>
    /// Gives <paramref name="to"/> every extended attribute of <paramref name="from"/> that this process can see
    /// (user.*, security.*, system.* ACLs; trusted.* as root); 0, or the errno and the attribute that could not be set.
    /// A value the clone already holds (say the security label it was created with) is left alone.
    /// </summary>
    internal static int CopyExtendedAttributes(int from, int to, out string? failedAttribute)
    {
        failedAttribute = null;
        var listed = Libc.FListXattr(from, null, 0);
        if (listed <= 0)
        {
            // None, or a file system without extended attributes: nothing to carry over.
            if (listed == 0 || Libc.LastErrno is Libc.EOPNOTSUPP or Libc.ENOSYS)
            {
                return 0;
            }

            failedAttribute = "extended attributes (listing them)";
            return Libc.LastErrno;
        }

        var names = new byte[Libc.XattrMax];
        var value = new byte[Libc.XattrMax];
        var present = new byte[Libc.XattrMax];
        fixed (byte* list = names)
        fixed (byte* v = value)
        fixed (byte* p = present)
        {
            var length = Libc.FListXattr(from, list, (nuint)names.Length);
            if (length < 0)
            {
                failedAttribute = "extended attributes (listing them)";
                return Libc.LastErrno;
            }

            for (var start = 0; start < length;)
            {
                var name = list + start;
                var nameLength = names.AsSpan(start, (int)length - start).IndexOf((byte)0);
                start += nameLength + 1;
                var size = Libc.FGetXattr(from, name, v, (nuint)value.Length);
                if (size < 0)
                {
                    if (Libc.LastErrno == Libc.ENODATA)
                    {
                        continue; // removed meanwhile: its change time moved, which the last check catches
                    }

                    failedAttribute = $"extended attributes ({Encoding.UTF8.GetString(name, nameLength)})";
                    return Libc.LastErrno;
                }

                var held = Libc.FGetXattr(to, name, p, (nuint)present.Length);
                if (held == size && value.AsSpan(0, (int)size).SequenceEqual(present.AsSpan(0, (int)held)))
                {
                    continue;
                }

                if (Libc.FSetXattr(to, name, v, (nuint)size, 0) != 0)
                {
                    failedAttribute = $"extended attributes ({Encoding.UTF8.GetString(name, nameLength)})";
                    return Marshal.GetLastPInvokeError();
                }
            }
        }

        return 0;
    }
}
