// Compiled on every platform; run under Wine 8 by .ci/wine-cli.sh (not on Windows proper).
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Enumeration;

/// <summary>
/// Windows file identities (<see cref="FileIdentity.FromWindows"/>). Neither FindFirstFileExW nor the BCL's
/// enumeration (NtQueryDirectoryFile, FILE_FULL_DIR_INFORMATION) gives a file ID, so the name is opened with no
/// data access (<see cref="Kernel32.FILE_READ_ATTRIBUTES"/>: no sharing conflict, no placeholder recall) and
/// without following a final reparse point, and the ID read from the handle: <c>FileIdInfo</c>, falling back to
/// <c>GetFileInformationByHandle</c> where that class is not supported (Windows 7, some file systems).
/// </summary>
[SupportedOSPlatform("windows")]
internal static unsafe class WindowsFileIds
{
    /// <summary>Attributes that mark a cloud placeholder or an offline file: its data would be downloaded or recalled if read.</summary>
    public const FileAttributes PlaceholderAttributes = (FileAttributes)(Kernel32.FILE_ATTRIBUTE_OFFLINE | Kernel32.FILE_ATTRIBUTE_RECALL_ON_OPEN | Kernel32.FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS);

    /// <summary>Whether these enumeration attributes belong to a cloud placeholder or an offline file.</summary>
    public static bool IsPlaceholder(FileAttributes attributes) => (attributes & PlaceholderAttributes) != 0;

    /// <summary>
    /// Opens <paramref name="path"/> for its identity only. <paramref name="followLink"/> opens what a final reparse
    /// point leads to (a folder reached through a followed link); otherwise the name itself.
    /// </summary>
    public static SafeFileHandle? TryOpen(string path, bool followLink, out int error)
    {
        var flags = Kernel32.FILE_FLAG_BACKUP_SEMANTICS | (followLink ? 0 : Kernel32.FILE_FLAG_OPEN_REPARSE_POINT);
        var handle = Kernel32.CreateFile(
            Topology.WindowsStorageLayout.WithLongPathPrefix(path),
            Kernel32.FILE_READ_ATTRIBUTES,
            Kernel32.FILE_SHARE_READ | Kernel32.FILE_SHARE_WRITE | Kernel32.FILE_SHARE_DELETE,
            0,
            Kernel32.OPEN_EXISTING,
            flags,
            0);
        if (handle.IsInvalid)
        {
            error = Marshal.GetLastPInvokeError();
            handle.Dispose();
            return null;
        }

        error = 0;
        return handle;
    }

    /// <summary>The identity and hard-link count of an open file; false with the Win32 error when neither call answers.</summary>
    public static bool TryRead(SafeFileHandle handle, out FileIdentity identity, out int linkCount, out int error)
    {
        // BY_HANDLE_FILE_INFORMATION first: it holds the link count FILE_ID_INFO lacks, and the 64-bit index.
        if (!Kernel32.GetFileInformationByHandle(handle, out var info))
        {
            error = Marshal.GetLastPInvokeError();
            identity = default;
            linkCount = 0;
            return false;
        }

        error = 0;
        linkCount = (int)Math.Min(info.NumberOfLinks, int.MaxValue);
        FileIdInformation ids;
        identity = Kernel32.GetFileInformationByHandleEx(handle, Kernel32.FileIdInfo, &ids, (uint)sizeof(FileIdInformation))
            ? FileIdentity.FromWindows(ids.VolumeSerialNumber, ids.FileIdLow, ids.FileIdHigh)
            : FileIdentity.FromWindows(info.VolumeSerialNumber, ((ulong)info.FileIndexHigh << 32) | info.FileIndexLow, 0);
        return true;
    }

    /// <summary>The identity of the file at <paramref name="path"/>; false with the Win32 error.</summary>
    public static bool TryGet(string path, bool followLink, out FileIdentity identity, out int linkCount, out int error)
    {
        using var handle = TryOpen(path, followLink, out error);
        if (handle is null)
        {
            identity = default;
            linkCount = 0;
            return false;
        }

        return TryRead(handle, out identity, out linkCount, out error);
    }

    /// <summary>The scan's error kind for a Win32 error.</summary>
    public static Reporting.ScanErrorKind KindOf(int error) => error switch
    {
        Kernel32.ERROR_ACCESS_DENIED => Reporting.ScanErrorKind.AccessDenied,
        Kernel32.ERROR_FILE_NOT_FOUND or Kernel32.ERROR_PATH_NOT_FOUND => Reporting.ScanErrorKind.NotFound,
        _ => Reporting.ScanErrorKind.IOError,
    };
}
