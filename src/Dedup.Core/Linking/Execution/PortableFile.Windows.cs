// Compiled on every platform; untested here (no Windows machine): CreateFileW with
// FILE_FLAG_OPEN_REPARSE_POINT and GetFileInformationByHandle for the Windows re-checks before Delete and Trash.
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Execution;

internal static partial class PortableFile
{
    [SupportedOSPlatform("windows")]
    private static SafeFileHandle? TryOpenWindows(string path, out string error)
    {
        var handle = Kernel32.CreateFile(
            // Beyond MAX_PATH only the \\?\ form works (the BCL adds it for its own calls, not for ours).
            Topology.WindowsStorageLayout.WithLongPathPrefix(path),
            Kernel32.GENERIC_READ,
            Kernel32.FILE_SHARE_READ | Kernel32.FILE_SHARE_WRITE | Kernel32.FILE_SHARE_DELETE,
            0,
            Kernel32.OPEN_EXISTING,
            Kernel32.FILE_FLAG_OPEN_REPARSE_POINT,
            0);
        if (handle.IsInvalid)
        {
            error = Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError());
            handle.Dispose();
            return null;
        }

        error = string.Empty;
        return handle;
    }

    [SupportedOSPlatform("windows")]
    private static PortableFileStatus StatusWindows(SafeFileHandle handle)
    {
        if (!Kernel32.GetFileInformationByHandle(handle, out var info) || !WindowsFileIds.TryRead(handle, out var identity, out _, out _))
        {
            throw new IOException(Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError()));
        }

        var kind = (info.FileAttributes & Kernel32.FILE_ATTRIBUTE_REPARSE_POINT) != 0 ? PortableFileKind.Link
            : (info.FileAttributes & Kernel32.FILE_ATTRIBUTE_DIRECTORY) != 0 ? PortableFileKind.Directory
            : (info.FileAttributes & Kernel32.FILE_ATTRIBUTE_DEVICE) != 0 ? PortableFileKind.Other
            : PortableFileKind.RegularFile;

        // The scan's encoding (FileIdInfo's 128-bit ID where there is one), so the two agree.
        return new PortableFileStatus(kind, identity);
    }
}
