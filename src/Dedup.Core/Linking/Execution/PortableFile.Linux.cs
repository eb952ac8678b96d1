using System.Runtime.InteropServices;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Execution;

// Linux needs none of this in production (LinkContext re-checks against the scanned inode); it lets the tests
// run the portable re-checks on real files here.
internal static partial class PortableFile
{
    private static SafeFileHandle? TryOpenLinux(string path, out string error)
    {
        var fd = LinkNative.Open(path, LinkNative.O_RDONLY | LinkNative.O_NOFOLLOW | LinkNative.O_NONBLOCK | LinkNative.O_CLOEXEC, 0);
        if (fd < 0)
        {
            error = LinkNative.Message(LinkNative.LastErrno);
            return null;
        }

        error = string.Empty;
        return new SafeFileHandle(fd, ownsHandle: true);
    }

    private static PortableFileStatus StatusLinux(SafeFileHandle handle)
    {
        var errno = LinkNative.FStat(LinkContext.Fd(handle), out var status);
        return errno == 0
            ? new PortableFileStatus(KindOfUnixMode(status.Mode), new FileIdentity(status.Device, status.Ino))
            : throw new IOException(Marshal.GetPInvokeErrorMessage(errno));
    }
}
