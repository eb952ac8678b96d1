using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.WindowsTests.Infrastructure;

/// <summary>
/// The tests' own Win32 calls, independent of the library's Interop: hard links to set up trees, and the oracles
/// (volume serial, file index) the library's answers are checked against.
/// </summary>
internal static unsafe partial class Win32
{
    /// <summary>Creates <paramref name="link"/> as a second name of <paramref name="existing"/>.</summary>
    public static void CreateHardLink(string link, string existing)
    {
        if (!CreateHardLinkW(link, existing, 0))
        {
            throw new IOException($"CreateHardLinkW({link}, {existing}) failed: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
        }
    }

    /// <summary>The serial of the volume whose root is <paramref name="root"/> (<c>C:\</c>).</summary>
    public static uint VolumeSerial(string root)
    {
        uint serial;
        if (!GetVolumeInformationW(root, null, 0, &serial, null, null, null, 0))
        {
            throw new IOException($"GetVolumeInformationW({root}) failed: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
        }

        return serial;
    }

    /// <summary>FILE_SUPPORTS_BLOCK_REFCOUNTING: the volume flag of ReFS, whose files can share clusters (block cloning).</summary>
    public const uint FileSupportsBlockRefcounting = 0x08000000;

    /// <summary>The file-system flags of the volume whose root is <paramref name="root"/> (<c>C:\</c>).</summary>
    public static uint VolumeFlags(string root)
    {
        uint flags;
        if (!GetVolumeInformationW(root, null, 0, null, null, &flags, null, 0))
        {
            throw new IOException($"GetVolumeInformationW({root}) failed: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
        }

        return flags;
    }

    /// <summary>(volume serial, 64-bit file index, link count) of <paramref name="path"/>, from GetFileInformationByHandle.</summary>
    public static (uint Serial, ulong Index, uint Links) FileIdentity(string path)
    {
        using var handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        ByHandleFileInformation info;
        if (!GetFileInformationByHandle(handle, &info))
        {
            throw new IOException($"GetFileInformationByHandle({path}) failed: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
        }

        return (info.VolumeSerialNumber, ((ulong)info.FileIndexHigh << 32) | info.FileIndexLow, info.NumberOfLinks);
    }

    [LibraryImport("kernel32.dll", EntryPoint = "CreateHardLinkW", StringMarshalling = StringMarshalling.Utf16, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool CreateHardLinkW(string fileName, string existingFileName, nint securityAttributes);

    [LibraryImport("kernel32.dll", EntryPoint = "GetVolumeInformationW", StringMarshalling = StringMarshalling.Utf16, SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool GetVolumeInformationW(string rootPathName, char* volumeName, uint volumeNameSize, uint* serial, uint* maxComponentLength, uint* flags, char* fileSystemName, uint fileSystemNameSize);

    [LibraryImport("kernel32.dll", SetLastError = true)]
    [return: MarshalAs(UnmanagedType.Bool)]
    private static partial bool GetFileInformationByHandle(SafeFileHandle file, ByHandleFileInformation* information);

    [StructLayout(LayoutKind.Sequential)]
    private struct ByHandleFileInformation
    {
        public uint FileAttributes;
        public FileTime CreationTime; // FILETIME: two DWORDs, so 4-byte aligned (a long here would shift every field after it)
        public FileTime LastAccessTime;
        public FileTime LastWriteTime;
        public uint VolumeSerialNumber;
        public uint FileSizeHigh;
        public uint FileSizeLow;
        public uint NumberOfLinks;
        public uint FileIndexHigh;
        public uint FileIndexLow;
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct FileTime
    {
        public uint Low;
        public uint High;
    }
}
