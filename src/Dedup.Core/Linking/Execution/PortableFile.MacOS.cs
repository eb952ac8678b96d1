// Compiled on every platform; untested here (no macOS machine): opening with O_NOFOLLOW and fstat for the
// macOS re-checks before Delete and Trash.
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Execution;

internal static partial class PortableFile
{
    [SupportedOSPlatform("macos")]
    private static SafeFileHandle? TryOpenMacOS(string path, out string error)
    {
        var fd = LibSystem.Open(path, LibSystem.O_RDONLY | LibSystem.O_NOFOLLOW | LibSystem.O_NONBLOCK | LibSystem.O_CLOEXEC);
        if (fd < 0)
        {
            error = Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError());
            return null;
        }

        error = string.Empty;
        return new SafeFileHandle((nint)fd, ownsHandle: true);
    }

    [SupportedOSPlatform("macos")]
    private static PortableFileStatus StatusMacOS(SafeFileHandle handle)
    {
        var errno = LibSystem.FStat((int)handle.DangerousGetHandle(), out var status);
        return errno == 0
            ? new PortableFileStatus(KindOfUnixMode(status.Mode), new FileIdentity((uint)status.Device, status.Inode))
            : throw new IOException(Marshal.GetPInvokeErrorMessage(errno));
    }
}
