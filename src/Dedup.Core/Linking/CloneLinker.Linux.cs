using Dedup.Core.Interop;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking;

/// <summary>
/// Replaces the duplicate with a copy-on-write clone of the kept file (FICLONE) made under a temporary name,
/// with the duplicate's permissions, owner (when permitted) and times, then renamed over it.
/// </summary>
internal sealed unsafe class CloneLinker : ILinker
{
    public DuplicateActionKind Kind => DuplicateActionKind.Clone;

    public string Description => "copy-on-write clone";

    bool ILinker.KernelVerifiesContent => false;

    string? ILinker.RefuseAtPlanTime(DuplicateFile kept, DuplicateFile duplicate) =>
        kept.Identity.Device != duplicate.Identity.Device
            ? "kept file and duplicate are on different file systems; a clone cannot cross devices (no copy or link is made instead)"
            : null;

    void ILinker.Apply(LinkContext context)
    {
        var kept = context.OpenKept();
        var duplicate = context.DuplicateStatus;
        context.ReplaceViaTemporary(
            temporary => CreateClone(context.FolderFd, temporary, LinkContext.Fd(kept), duplicate),
            errno => errno is LinkNative.EOPNOTSUPP or LinkNative.EINVAL or LinkNative.EXDEV or LinkNative.ENOTTY or LinkNative.ENOSYS
                ? ActionStoppedException.Skip($"the file system cannot clone this file (FICLONE: {LinkNative.Message(errno)}); no copy or link is made instead")
                : ActionStoppedException.Fail($"cannot create a clone in {PathText.Escape(context.Folder)}: {LinkNative.Message(errno)}; duplicate unchanged"));
    }

    private static int CreateClone(int folderFd, string temporary, int keptFd, StatxBuffer duplicate)
    {
        var mode = duplicate.Mode & 0xFFF;
        var fd = LinkNative.OpenAt(folderFd, temporary, LinkNative.O_WRONLY | LinkNative.O_CREAT | LinkNative.O_EXCL | LinkNative.O_NOFOLLOW | LinkNative.O_CLOEXEC, 0x180);
        if (fd < 0)
        {
            return LinkNative.LastErrno;
        }

        try
        {
            if (LinkNative.Ioctl(fd, LinkNative.FICLONE, keptFd) != 0)
            {
                return LinkNative.LastErrno;
            }

            if (Interop.Libc.GetEuid() == 0)
            {
                _ = LinkNative.Fchown(fd, duplicate.Uid, duplicate.Gid);
            }

            var times = stackalloc TimeSpec[2];
            times[0] = new TimeSpec { Seconds = duplicate.AtimeSec, Nanoseconds = duplicate.AtimeNsec };
            times[1] = new TimeSpec { Seconds = duplicate.MtimeSec, Nanoseconds = duplicate.MtimeNsec };
            return LinkNative.Fchmod(fd, mode) == 0 && LinkNative.Futimens(fd, times) == 0 ? 0 : LinkNative.LastErrno;
        }
        finally
        {
            _ = LinkNative.Close(fd);
        }
    }
}
