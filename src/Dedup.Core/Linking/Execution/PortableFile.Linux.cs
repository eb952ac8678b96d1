using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Execution;

// Linux needs none of this in production (LinkContext re-checks against the scanned inode); it lets the tests
// run the portable re-checks on real files here.
internal static partial class PortableFile
{
    [SupportedOSPlatform("linux")]
    private static SafeFileHandle? TryOpenLinux(string path, out string error)
    {
        var fd = Libc.Open(path, Libc.O_RDONLY | Libc.O_NOFOLLOW | Libc.O_NONBLOCK | Libc.O_CLOEXEC, 0);
        if (fd < 0)
        {
            error = Libc.Message(Libc.LastErrno);
            return null;
        }

        error = string.Empty;
        return new SafeFileHandle((nint)fd, ownsHandle: true);
    }

    [SupportedOSPlatform("linux")]
    private static PortableFileStatus StatusLinux(SafeFileHandle handle)
    {
        var errno = Libc.FStat((int)handle.DangerousGetHandle(), out var status);
        return errno == 0
            ? new PortableFileStatus(KindOfUnixMode(status.Mode), new FileIdentity(status.Device, status.Ino))
            : throw new IOException(Marshal.GetPInvokeErrorMessage(errno));
    }
}
