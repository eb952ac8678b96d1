using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;

namespace Dedup.Core.Linking.Operations;

/// <summary>
/// Deletes the duplicate permanently, after its bytes were verified and right after a last re-check. This is the
/// Linux step; on Windows and macOS the executor deletes it (<c>PlanExecutor.Portable.cs</c>).
/// </summary>
[SupportedOSPlatform("linux")]
internal static class DeleteOperation
{
    public static void Apply(LinkContext context)
    {
        context.Faults?.BeforeDelete?.Invoke(context.DuplicatePath);
        context.CheckKeptUnchanged();
        context.CheckDuplicateUnchanged();
        context.Begin("delete");
        context.Faults?.AfterLastCheck?.Invoke(context.DuplicatePath);
        if (Libc.UnlinkAt(context.FolderFd, context.DuplicateName, 0) != 0)
        {
            var errno = Libc.LastErrno;
            throw ActionStoppedException.Fail($"cannot delete: {Libc.Message(errno)}");
        }
    }
}
