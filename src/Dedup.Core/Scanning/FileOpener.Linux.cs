using System.Runtime.InteropServices;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Reporting;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Scanning;

internal static unsafe partial class FileOpener
{
    private const int PathBufferSize = 4096;

    private static SafeFileHandle? TryOpenLinux(ScannedFile file, ScanState state)
    {
        Span<byte> path = stackalloc byte[PathBufferSize];
        var dirfd = Locate(file, state, path);
        if (dirfd == InvalidName)
        {
            state.ReportError(file.Path.ToString(), ScanErrorKind.InvalidName, "Path too long to open");
            return null;
        }

        // O_NONBLOCK: should a FIFO have replaced the file since it was listed, open must not hang.
        const int Flags = Libc.O_RDONLY | Libc.O_CLOEXEC | Libc.O_NONBLOCK;
        int fd;
        fixed (byte* p = path)
        {
            var noAtime = state.AskNoAtime(file);
            fd = Libc.OpenAt(dirfd, p, noAtime ? Flags | Libc.O_NOATIME : Flags, 0);
            if (fd < 0 && noAtime && Marshal.GetLastPInvokeError() == Libc.EPERM)
            {
                // O_NOATIME is only allowed on files we own (or with CAP_FOWNER).
                state.NoteNoAtimeRefused();
                fd = Libc.OpenAt(dirfd, p, Flags, 0);
            }
            else if (fd >= 0 && noAtime)
            {
                state.NoteNoAtimeGranted();
            }
        }

        if (fd < 0)
        {
            ReportErrno(file.Path.ToString(), Marshal.GetLastPInvokeError(), state);
            return null;
        }

        var handle = new SafeFileHandle(fd, ownsHandle: true);
        StatxBuffer stx;
        byte empty = 0;
        if (Libc.Statx(fd, &empty, Libc.AT_EMPTY_PATH, Libc.STATX_BASIC_STATS, &stx) != 0)
        {
            ReportErrno(file.Path.ToString(), Marshal.GetLastPInvokeError(), state);
            handle.Dispose();
            return null;
        }

        if (!Matches(file, in stx, state))
        {
            handle.Dispose();
            return null;
        }

        return handle;
    }

    private static bool IsUnchangedLinux(ScannedFile file, SafeFileHandle? handle, ScanState state)
    {
        StatxBuffer stx;
        int rc;
        if (handle is not null && !handle.IsClosed)
        {
            byte empty = 0;
            rc = Libc.Statx((int)handle.DangerousGetHandle(), &empty, Libc.AT_EMPTY_PATH, Libc.STATX_BASIC_STATS, &stx);
        }
        else
        {
            // By full path, not through the cached folder: a reported path must still lead to the file.
            Span<byte> path = stackalloc byte[PathBufferSize];
            if (file.Path.WriteUtf8(path) < 0)
            {
                return false;
            }

            fixed (byte* p = path)
            {
                rc = Libc.Statx(Libc.AT_FDCWD, p, 0, Libc.STATX_BASIC_STATS, &stx);
            }
        }

        if (rc != 0)
        {
            ReportErrno(file.Path.ToString(), Marshal.GetLastPInvokeError(), state);
            return false;
        }

        if (!Matches(file, in stx, state))
        {
            return false;
        }

        return true;
    }

    private const int InvalidName = int.MinValue;

    /// <summary>
    /// Writes the NUL-terminated name to use with the returned folder descriptor: the file's own name relative to
    /// its cached folder, or the full path with <see cref="Libc.AT_FDCWD"/>; <see cref="InvalidName"/> if it does not fit.
    /// </summary>
    private static int Locate(ScannedFile file, ScanState state, Span<byte> destination)
    {
        var dirfd = state.Folders.Get(file.Path.Parent);
        if (dirfd >= 0 && System.Text.Encoding.UTF8.TryGetBytes(file.Path.Name, destination[..^1], out var count))
        {
            destination[count] = 0;
            return dirfd;
        }

        return file.Path.WriteUtf8(destination) < 0 ? InvalidName : Libc.AT_FDCWD;
    }

    /// <summary>Whether the file opened is still the one listed; if not, reports why (see <see cref="IdentityCheck"/> for identities).</summary>
    private static bool Matches(ScannedFile file, in StatxBuffer stx, ScanState state)
    {
        if (!stx.IsRegularFile)
        {
            ReportChanged(file, state, "no longer a regular file");
            return false;
        }

        if (stx.Ino != file.Identity.FileId || stx.Device != file.Identity.Device)
        {
            state.ReportError(file.Path.ToString(), ScanErrorKind.Changed, state.Identities.Explain(file, stx.DevMajor, stx.DevMinor, stx.Ino));
            return false;
        }

        state.Identities.NoteMatch();
        var what = (long)stx.Size != file.Length ? $"size {file.Length} became {stx.Size}"
            : stx.LastWriteTimeUtc != file.LastWriteTimeUtc ? "modified"
            : string.Empty;
        if (what.Length > 0)
        {
            ReportChanged(file, state, what);
            return false;
        }

        return true;
    }

    internal static void ReportErrno(string path, int errno, ScanState state)
    {
        state.ReportError(path, ScanErrorKinds.FromErrno(errno), Marshal.GetPInvokeErrorMessage(errno));
    }
}
