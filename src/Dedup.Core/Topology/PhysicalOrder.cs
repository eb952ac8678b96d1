using System.Runtime.InteropServices;
using Dedup.Core.Interop;

namespace Dedup.Core.Topology;

/// <summary>
/// Read order for rotational disks: the physical offset of a file's first extent (FIEMAP on Linux), with
/// the inode number as the fallback where FIEMAP is unsupported (inodes are allocated roughly in disk order).
/// </summary>
internal static unsafe class PhysicalOrder
{
    private const int HeaderSize = 32;
    private const int ExtentSize = 56;

    /// <summary>The physical byte offset of the first extent of the file open as <paramref name="descriptor"/>, or -1 when unknown.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public static long FirstExtentOffset(int descriptor)
    {
        var buffer = stackalloc byte[HeaderSize + ExtentSize];
        new Span<byte>(buffer, HeaderSize + ExtentSize).Clear();
        *(ulong*)(buffer + 8) = ulong.MaxValue; // fm_length: the whole file
        *(uint*)(buffer + 24) = 1;             // fm_extent_count
        if (Libc.Ioctl(descriptor, Libc.FS_IOC_FIEMAP, buffer) != 0)
        {
            _ = Marshal.GetLastPInvokeError();
            return -1;
        }

        var mapped = *(uint*)(buffer + 20);
        return mapped == 0 ? -1 : (long)*(ulong*)(buffer + HeaderSize + 8);
    }
}
