using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Operations;

/// <summary>
/// Replaces the duplicate with content a custom linker writes: a new file under a temporary name in the duplicate's
/// folder (<c>O_EXCL</c>, never following a link), given the duplicate's permissions and owner, synced, then renamed
/// over the duplicate by the shared protocol (<see cref="LinkContext.ReplaceViaTemporary"/>).
/// </summary>
[SupportedOSPlatform("linux")]
internal static class ReplaceWithFileOperation
{
    /// <summary>A failure of the caller's writer, as an "errno" the protocol turns into a rollback and a Failed outcome.</summary>
    private const int WriterFailed = -1;

    public static void Apply(LinkContext context, Action<Stream> write)
    {
        var duplicate = context.DuplicateStatus;
        string? failure = null;
        context.ReplaceViaTemporary(
            temporary => Create(context.FolderFd, temporary, duplicate, write, out failure),
            errno => ActionStoppedException.Fail(errno == WriterFailed
                ? $"the replacement could not be written: {failure}; duplicate unchanged"
                : $"cannot create the replacement in {PathText.Escape(context.Folder)}: {Libc.Message(errno)}; duplicate unchanged"));
    }

    private static int Create(int folderFd, string temporary, StatxBuffer duplicate, Action<Stream> write, out string? failure)
    {
        failure = null;
        var fd = Libc.OpenAt(folderFd, temporary, Libc.O_WRONLY | Libc.O_CREAT | Libc.O_EXCL | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0x180);
        if (fd < 0)
        {
            return Libc.LastErrno;
        }

        // The stream owns the descriptor from here on and closes it when this returns.
        using var stream = new FileStream(new SafeFileHandle((nint)fd, ownsHandle: true), FileAccess.Write, bufferSize: 0);
        try
        {
            write(stream);
            // Stryker disable once Statement : bufferSize 0: every write already went to the descriptor
            stream.Flush();
            if (Libc.GetEuid() == 0 && Libc.Fchown(fd, duplicate.Uid, duplicate.Gid) != 0)
            {
                return Libc.LastErrno;
            }

            // Stryker disable once Logical,Boolean,Equality : same result (LastErrno is 0 after a successful call); differs only by a skipped fsync, or when fchmod or fsync of our new file fails
            if (Libc.Fchmod(fd, duplicate.Mode & 0xFFF) != 0 || Libc.Fsync(fd) != 0)
            {
                return Libc.LastErrno;
            }

            return 0;
        }
        catch (Exception ex)
        {
            // The writer is the caller's code: whatever it throws rolls the replacement back.
            failure = ex.Message;
            return WriterFailed;
        }
    }
}
