using System.Runtime.InteropServices;
using Dedup.Core.Interop;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Topology;

/// <summary>
/// Read order for rotational disks: the physical offset of a file's first extent (FIEMAP on Linux), with
/// the inode number as the fallback where FIEMAP is unsupported (inodes are allocated roughly in disk order).
/// </summary>
internal static unsafe class PhysicalOrder
{
    private const int HeaderSize = 32;
    private const int ExtentSize = 56;

    /// <summary>The physical byte offset of the file's first extent, or -1 when unknown.</summary>
    public static long FirstExtentOffset(SafeFileHandle handle)
    {
        if (!OperatingSystem.IsLinux())
        {
            return -1;
        }

        var buffer = stackalloc byte[HeaderSize + ExtentSize];
        new Span<byte>(buffer, HeaderSize + ExtentSize).Clear();
        *(ulong*)(buffer + 8) = ulong.MaxValue; // fm_length: the whole file
        *(uint*)(buffer + 24) = 1;             // fm_extent_count
        var added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            if (Libc.Ioctl((int)handle.DangerousGetHandle(), Libc.FS_IOC_FIEMAP, buffer) != 0)
            {
                _ = Marshal.GetLastPInvokeError();
                return -1;
            }
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
            }
        }

        var mapped = *(uint*)(buffer + 20);
        return mapped == 0 ? -1 : (long)*(ulong*)(buffer + HeaderSize + 8);
    }
}
