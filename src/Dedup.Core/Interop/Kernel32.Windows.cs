// Compiled on every platform; untested here (no Windows machine).
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Interop;

/// <summary>
/// The few kernel32 calls the BCL does not expose: volume serials, volume enumeration, drive types and
/// the storage seek-penalty query (topology); opening a name itself rather than what its reparse point leads
/// to, and file identity (the re-checks before Delete and Trash). Source-generated (<c>LibraryImport</c>), so trimming and AOT are safe.
/// </summary>
[SupportedOSPlatform("windows")]
internal static unsafe partial class Kernel32
{
    private const string LibraryName = "kernel32.dll";

    /// <summary>MAX_PATH + 1: the buffer size the volume functions document.</summary>
    public const int VolumeBufferLength = 261;

    public const uint GENERIC_READ = 0x80000000;
    public const uint FILE_FLAG_OPEN_REPARSE_POINT = 0x00200000;
    public const uint FILE_ATTRIBUTE_DIRECTORY = 0x10;
    public const uint FILE_ATTRIBUTE_DEVICE = 0x40;
    public const uint FILE_ATTRIBUTE_REPARSE_POINT = 0x400;
    public const uint FILE_SHARE_READ = 0x1;
    public const uint FILE_SHARE_WRITE = 0x2;
    public const uint FILE_SHARE_DELETE = 0x4;
    public const uint OPEN_EXISTING = 3;
    public const uint FILE_FLAG_BACKUP_SEMANTICS = 0x02000000;

    /// <summary>The only right an identity query needs: no data access, so no sharing conflict and no recall of a placeholder's data.</summary>
    public const uint FILE_READ_ATTRIBUTES = 0x80;

    // Cloud placeholders (OneDrive files on demand, other cloud filter drivers) and HSM-offline files: opening or
    // reading them may download or recall the data.
    public const uint FILE_ATTRIBUTE_OFFLINE = 0x1000;
    public const uint FILE_ATTRIBUTE_RECALL_ON_OPEN = 0x40000;
    public const uint FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS = 0x400000;

    /// <summary><c>FILE_INFO_BY_HANDLE_CLASS.FileIdInfo</c> (Windows 8 / Server 2012 and later).</summary>
    public const int FileIdInfo = 0x12;

    public const uint MOVEFILE_REPLACE_EXISTING = 0x1;
    public const uint MOVEFILE_WRITE_THROUGH = 0x8;

    public const int ERROR_FILE_NOT_FOUND = 2;
    public const int ERROR_PATH_NOT_FOUND = 3;
    public const int ERROR_ACCESS_DENIED = 5;
    public const int ERROR_NOT_SAME_DEVICE = 17;
    public const int ERROR_INVALID_PARAMETER = 87;
    public const int ERROR_TOO_MANY_LINKS = 1142;
    public const int ERROR_PRIVILEGE_NOT_HELD = 1314;
    public const int ERROR_NOT_SUPPORTED = 50;
    public const int ERROR_INVALID_FUNCTION = 1;

    /// <summary>Lets a non-elevated process create a symbolic link when Developer Mode is on (Windows 10 1703 and later; older versions answer ERROR_INVALID_PARAMETER).</summary>
    public const uint SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE = 0x2;

    /// <summary>The volume flag of file systems that share clusters between files (ReFS): block cloning works there.</summary>
    public const uint FILE_SUPPORTS_BLOCK_REFCOUNTING = 0x08000000;

    public const uint FSCTL_DUPLICATE_EXTENTS_TO_FILE = 0x00098344;
    public const uint FSCTL_GET_INTEGRITY_INFORMATION = 0x0009027C;
    public const uint FSCTL_SET_INTEGRITY_INFORMATION = 0x0009C280;
    public const uint FSCTL_SET_SPARSE = 0x000900C4;
    public const uint FILE_ATTRIBUTE_READONLY = 0x1;
    public const uint FILE_ATTRIBUTE_HIDDEN = 0x2;
    public const uint FILE_ATTRIBUTE_SYSTEM = 0x4;
    public const uint FILE_ATTRIBUTE_ARCHIVE = 0x20;
    public const uint FILE_ATTRIBUTE_NORMAL = 0x80;
    public const uint FILE_ATTRIBUTE_SPARSE_FILE = 0x200;
    public const uint FILE_ATTRIBUTE_NOT_CONTENT_INDEXED = 0x2000;

    /// <summary><c>FILE_INFO_BY_HANDLE_CLASS.FileBasicInfo</c>: times and attributes (<see cref="FileBasicInformation"/>).</summary>
    public const int FileBasicInfo = 0;

    public const uint IOCTL_STORAGE_QUERY_PROPERTY = 0x002D1400;

    public const uint SEM_FAILCRITICALERRORS = 0x0001;

    public const int ERROR_MORE_DATA = 234;

    public const nint InvalidHandleValue = -1;

#if NET
    [LibraryImport(LibraryName, EntryPoint = "CreateFileW", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    public static partial SafeFileHandle CreateFile(string fileName, uint desiredAccess, uint shareMode, nint securityAttributes, uint creationDisposition, uint flagsAndAttributes, nint templateFile);
#else
    [DllImport(LibraryName, EntryPoint = "CreateFileW", SetLastError = true, CharSet = CharSet.Unicode, ExactSpelling = true)]
    public static extern SafeFileHandle CreateFile(string fileName, uint desiredAccess, uint shareMode, nint securityAttributes, uint creationDisposition, uint flagsAndAttributes, nint templateFile);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "GetVolumeInformationByHandleW", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool GetVolumeInformationByHandle(SafeFileHandle file, char* volumeName, uint volumeNameSize, uint* serialNumber, uint* maximumComponentLength, uint* fileSystemFlags, char* fileSystemName, uint fileSystemNameSize);
#else
    [DllImport(LibraryName, EntryPoint = "GetVolumeInformationByHandleW", SetLastError = true, ExactSpelling = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static extern bool GetVolumeInformationByHandle(SafeFileHandle file, char* volumeName, uint volumeNameSize, uint* serialNumber, uint* maximumComponentLength, uint* fileSystemFlags, char* fileSystemName, uint fileSystemNameSize);
#endif

    /// <summary><paramref name="rootPathName"/> must end with a backslash (<c>C:\</c>, <c>\\server\share\</c>, <c>\\?\Volume{…}\</c>).</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "GetVolumeInformationW", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool GetVolumeInformation(string rootPathName, char* volumeName, uint volumeNameSize, uint* serialNumber, uint* maximumComponentLength, uint* fileSystemFlags, char* fileSystemName, uint fileSystemNameSize);
#else
    [DllImport(LibraryName, EntryPoint = "GetVolumeInformationW", SetLastError = true, CharSet = CharSet.Unicode, ExactSpelling = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static extern bool GetVolumeInformation(string rootPathName, char* volumeName, uint volumeNameSize, uint* serialNumber, uint* maximumComponentLength, uint* fileSystemFlags, char* fileSystemName, uint fileSystemNameSize);
#endif

    /// <summary>Returns a search handle (closed with <see cref="FindVolumeClose"/>, not CloseHandle) or INVALID_HANDLE_VALUE.</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "FindFirstVolumeW", SetLastError = true)]
    public static partial nint FindFirstVolume(char* volumeName, uint bufferLength);
#else
    [DllImport(LibraryName, EntryPoint = "FindFirstVolumeW", SetLastError = true, ExactSpelling = true)]
    public static extern nint FindFirstVolume(char* volumeName, uint bufferLength);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "FindNextVolumeW", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool FindNextVolume(nint findVolume, char* volumeName, uint bufferLength);
#else
    [DllImport(LibraryName, EntryPoint = "FindNextVolumeW", SetLastError = true, ExactSpelling = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static extern bool FindNextVolume(nint findVolume, char* volumeName, uint bufferLength);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "FindVolumeClose", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool FindVolumeClose(nint findVolume);
#else
    [DllImport(LibraryName, EntryPoint = "FindVolumeClose", SetLastError = true, ExactSpelling = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static extern bool FindVolumeClose(nint findVolume);
#endif

    /// <summary>One of the <c>DRIVE_*</c> values in <see cref="Topology.WindowsStorageLayout"/>.</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "GetDriveTypeW", StringMarshalling = StringMarshalling.Utf16)]
    public static partial uint GetDriveType(string rootPathName);
#else
    [DllImport(LibraryName, EntryPoint = "GetDriveTypeW", CharSet = CharSet.Unicode, ExactSpelling = true)]
    public static extern uint GetDriveType(string rootPathName);
#endif

    /// <summary>Fills a double-NUL-terminated list of the volume's mount paths (drive letters and folders).</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "GetVolumePathNamesForVolumeNameW", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool GetVolumePathNamesForVolumeName(string volumeName, char* volumePathNames, uint bufferLength, uint* returnLength);
#else
    [DllImport(LibraryName, EntryPoint = "GetVolumePathNamesForVolumeNameW", SetLastError = true, CharSet = CharSet.Unicode, ExactSpelling = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static extern bool GetVolumePathNamesForVolumeName(string volumeName, char* volumePathNames, uint bufferLength, uint* returnLength);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "DeviceIoControl", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool DeviceIoControl(SafeFileHandle device, uint ioControlCode, void* inBuffer, uint inBufferSize, void* outBuffer, uint outBufferSize, uint* bytesReturned, nint overlapped);
#else
    [DllImport(LibraryName, EntryPoint = "DeviceIoControl", SetLastError = true, ExactSpelling = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static extern bool DeviceIoControl(SafeFileHandle device, uint ioControlCode, void* inBuffer, uint inBufferSize, void* outBuffer, uint outBufferSize, uint* bytesReturned, nint overlapped);
#endif

    /// <summary>Suppresses the "no disk in drive" dialog while empty card readers and optical drives are probed (as the BCL's DriveInfo does).</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "SetThreadErrorMode", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool SetThreadErrorMode(uint newMode, uint* oldMode);
#else
    [DllImport(LibraryName, EntryPoint = "SetThreadErrorMode", SetLastError = true, ExactSpelling = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static extern bool SetThreadErrorMode(uint newMode, uint* oldMode);
#endif

    public const uint VOLUME_NAME_GUID = 0x1;

    /// <summary>The final path of an open file (links, junctions and mount folders resolved); with <see cref="VOLUME_NAME_GUID"/> it starts with the volume's GUID path.</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "GetFinalPathNameByHandleW", SetLastError = true)]
    public static partial uint GetFinalPathNameByHandle(SafeFileHandle file, char* filePath, uint filePathLength, uint flags);
#else
    [DllImport(LibraryName, EntryPoint = "GetFinalPathNameByHandleW", SetLastError = true, ExactSpelling = true)]
    public static extern uint GetFinalPathNameByHandle(SafeFileHandle file, char* filePath, uint filePathLength, uint flags);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "GetFileInformationByHandle", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool GetFileInformationByHandle(SafeFileHandle file, out ByHandleFileInformation information);
#else
    [DllImport(LibraryName, EntryPoint = "GetFileInformationByHandle", SetLastError = true, ExactSpelling = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static extern bool GetFileInformationByHandle(SafeFileHandle file, out ByHandleFileInformation information);
#endif

    /// <summary>With <see cref="FileIdInfo"/>: fills a <see cref="FileIdInformation"/> (the 64-bit volume serial and the 128-bit file ID).</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "GetFileInformationByHandleEx", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool GetFileInformationByHandleEx(SafeFileHandle file, int informationClass, void* information, uint bufferSize);
#else
    [DllImport(LibraryName, EntryPoint = "GetFileInformationByHandleEx", SetLastError = true, ExactSpelling = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static extern bool GetFileInformationByHandleEx(SafeFileHandle file, int informationClass, void* information, uint bufferSize);
#endif

    /// <summary>Creates <paramref name="fileName"/> as a new name of <paramref name="existingFileName"/>; fails if the new name exists.</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "CreateHardLinkW", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool CreateHardLink(string fileName, string existingFileName, nint securityAttributes);
#else
    [DllImport(LibraryName, EntryPoint = "CreateHardLinkW", SetLastError = true, CharSet = CharSet.Unicode, ExactSpelling = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static extern bool CreateHardLink(string fileName, string existingFileName, nint securityAttributes);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "MoveFileExW", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool MoveFileEx(string existingFileName, string newFileName, uint flags);
#else
    [DllImport(LibraryName, EntryPoint = "MoveFileExW", SetLastError = true, CharSet = CharSet.Unicode, ExactSpelling = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static extern bool MoveFileEx(string existingFileName, string newFileName, uint flags);
#endif

    /// <summary>Returns a BOOLEAN (one byte), not a BOOL. <paramref name="flags"/>: 0 for a file link.</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "CreateSymbolicLinkW", SetLastError = true, StringMarshalling = StringMarshalling.Utf16)]
    [return: MarshalAs(UnmanagedType.U1)]
    public static partial bool CreateSymbolicLink(string symlinkFileName, string targetFileName, uint flags);
#else
    [DllImport(LibraryName, EntryPoint = "CreateSymbolicLinkW", SetLastError = true, CharSet = CharSet.Unicode, ExactSpelling = true)]
    [return: MarshalAs(UnmanagedType.U1)]
    public static extern bool CreateSymbolicLink(string symlinkFileName, string targetFileName, uint flags);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "SetFileInformationByHandle", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static partial bool SetFileInformationByHandle(SafeFileHandle file, int informationClass, void* information, uint bufferSize);
#else
    [DllImport(LibraryName, EntryPoint = "SetFileInformationByHandle", SetLastError = true, ExactSpelling = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    public static extern bool SetFileInformationByHandle(SafeFileHandle file, int informationClass, void* information, uint bufferSize);
#endif
}

/// <summary><c>DUPLICATE_EXTENTS_DATA</c>: the source handle, then three LARGE_INTEGERs (offsets and length).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct DuplicateExtentsData
{
    public nint FileHandle;
    public long SourceFileOffset;
    public long TargetFileOffset;
    public long ByteCount;
}

/// <summary><c>FSCTL_GET_INTEGRITY_INFORMATION_BUFFER</c>; its first two fields and flags are the SET buffer.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct IntegrityInformation
{
    public ushort ChecksumAlgorithm;
    public ushort Reserved;
    public uint Flags;
    public uint ChecksumChunkSizeInBytes;
    public uint ClusterSizeInBytes;
}

/// <summary><c>FILE_BASIC_INFO</c>: four LARGE_INTEGER times (0 = leave unchanged when set) and the attributes (40 bytes with padding).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct FileBasicInformation
{
    public long CreationTime;
    public long LastAccessTime;
    public long LastWriteTime;
    public long ChangeTime;
    public uint FileAttributes;
}

/// <summary><c>FILE_ID_INFO</c>: a ULONGLONG volume serial and a 16-byte <c>FILE_ID_128</c> (24 bytes, 8-byte aligned).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct FileIdInformation
{
    public ulong VolumeSerialNumber;
    public ulong FileIdLow;
    public ulong FileIdHigh;
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
