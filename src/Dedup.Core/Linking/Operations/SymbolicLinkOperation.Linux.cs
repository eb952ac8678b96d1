using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking.Operations;

/// <summary>Replaces the duplicate with a symbolic link (relative or absolute) to the kept file.</summary>
[SupportedOSPlatform("linux")]
internal static class SymbolicLinkOperation
{
    public static void Apply(LinkContext context, bool relative)
    {
        var target = relative ? Path.GetRelativePath(context.Folder, context.KeptPath) : context.KeptPath;
        context.ReplaceViaTemporary(
            temporary => Libc.SymlinkAt(target, context.FolderFd, temporary) == 0 ? 0 : Libc.LastErrno,
            errno => errno is Libc.EPERM or Libc.EACCES or Libc.EOPNOTSUPP
                ? ActionStoppedException.Skip($"not permitted to create a symbolic link in {PathText.Escape(context.Folder)}: {Libc.Message(errno)}; duplicate unchanged (no other kind of link is made instead)")
                : ActionStoppedException.Fail($"cannot create a symbolic link in {PathText.Escape(context.Folder)}: {Libc.Message(errno)}; duplicate unchanged"),
            temporary =>
            {
                // Following the new link must reach the kept file.
                var followed = Libc.Statx(context.FolderFd, temporary, 0, Libc.STATX_BASIC_STATS, out var status) == 0;
                if (!followed || status.Device != context.Action.Kept.Identity.Device || status.Ino != context.Action.Kept.Identity.FileId)
                {
                    throw ActionStoppedException.Fail($"the symbolic link '{PathText.Escape(target)}' does not lead to the kept file; duplicate unchanged");
                }
            },
            "symbolicLink",
            target);
    }
}
