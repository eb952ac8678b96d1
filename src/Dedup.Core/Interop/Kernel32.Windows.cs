// Compiled on every platform; untested here (no Windows machine): CreateFileW without following a final
// reparse point and GetFileInformationByHandle, for the Windows re-checks before Delete and Trash.
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Interop;

/// <summary>The kernel32 calls the BCL does not expose: opening a name itself (not what its reparse point leads to) and file identity.</summary>
[SupportedOSPlatform("windows")]
internal static partial class Kernel32
{
    private const string LibraryName = "kernel32.dll";

    public const uint GENERIC_READ = 0x80000000;
    public const uint FILE_SHARE_READ = 0x1;
    public const uint FILE_SHARE_WRITE = 0x2;
    public const uint FILE_SHARE_DELETE = 0x4;
    public const uint OPEN_EXISTING = 3;
    public const uint FILE_FLAG_OPEN_REPARSE_POINT = 0x00200000;

    public const uint FILE_ATTRIBUTE_DIRECTORY = 0x10;
    public const uint FILE_ATTRIBUTE_DEVICE = 0x40;
    public const uint FILE_ATTRIBUTE_REPARSE_POINT = 0x400;

    [LibraryImport(LibraryName, EntryPoint = "CreateFileW", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    public static partial SafeFileHandle CreateFile(string fileName, uint desiredAccess, uint shareMode, nint securityAttributes, uint creationDisposition, uint flagsAndAttributes, nint templateFile);

    [LibraryImport(LibraryName, EntryPoint = "GetFileInformationByHandle", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool GetFileInformationByHandle(SafeFileHandle file, out ByHandleFileInformation information);
}

/// <summary>
/// <c>BY_HANDLE_FILE_INFORMATION</c>: 13 DWORDs, the same on every architecture. Each FILETIME is two DWORDs
/// (4-byte aligned), so the times are not declared as <see cref="ulong"/>, which would be padded to 8 bytes.
/// </summary>
[StructLayout(LayoutKind.Sequential)]
internal struct ByHandleFileInformation
{
    public uint FileAttributes;
    public uint CreationTimeLow;
    public uint CreationTimeHigh;
    public uint LastAccessTimeLow;
    public uint LastAccessTimeHigh;
    public uint LastWriteTimeLow;
    public uint LastWriteTimeHigh;
    public uint VolumeSerialNumber;
    public uint FileSizeHigh;
    public uint FileSizeLow;
    public uint NumberOfLinks;
    public uint FileIndexHigh;
    public uint FileIndexLow;
}
