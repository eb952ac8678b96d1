using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Dedup.Core.Interop;

// The calls only undo needs: a folder or link recreated under a temporary name (mkdirat, fchownat, utimensat without
// following the link) and the free space of a file system (fstatvfs on an open folder).
internal static unsafe partial class Libc
{
    public const int ENOSPC = 28;

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "mkdirat", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    public static partial int MkdirAt(int dirfd, string path, int mode);
#else
    [DllImport(LibraryName, EntryPoint = "mkdirat", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int MkdirAt(int dirfd, [MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, int mode);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "fchownat", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    public static partial int FchownAt(int dirfd, string path, uint owner, uint group, int flags);
#else
    [DllImport(LibraryName, EntryPoint = "fchownat", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int FchownAt(int dirfd, [MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, uint owner, uint group, int flags);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "utimensat", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    public static partial int UtimensAt(int dirfd, string path, TimeSpec* times, int flags);
#else
    [DllImport(LibraryName, EntryPoint = "utimensat", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int UtimensAt(int dirfd, [MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, TimeSpec* times, int flags);
#endif

    /// <summary><c>F_OFD_SETLK</c>: an open file description's record lock. Not <c>flock</c>, which .NET's FileStream
    /// takes for its FileShare (a reader of the journal through FileStream would fail while undo runs).</summary>
    private const int F_OFD_SETLK = 37;

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "fcntl", SetLastError = true)]
    private static partial int Fcntl(int fd, int command, FileLock* lockInfo);
#else
    [DllImport(LibraryName, EntryPoint = "fcntl", SetLastError = true, ExactSpelling = true)]
    private static extern int Fcntl(int fd, int command, FileLock* lockInfo);
#endif

    /// <summary>Takes a write lock on the whole of the file open for writing as <paramref name="fd"/>, without waiting; 0 or -1.</summary>
    [SupportedOSPlatform("linux")]
    public static int TryLockWhole(int fd)
    {
        var info = new FileLock { Type = 1 }; // F_WRLCK, from offset 0 (SEEK_SET) to the end (length 0), pid 0 as OFD locks require
        return Fcntl(fd, F_OFD_SETLK, &info);
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct FileLock
    {
        public short Type;
        public short Whence;
        public long Start;
        public long Length;
        public int Pid;
    }

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "fstatvfs", SetLastError = true)]
    public static partial int FStatVfs(int fd, StatVfsBuffer* buffer);
#else
    [DllImport(LibraryName, EntryPoint = "fstatvfs", SetLastError = true, ExactSpelling = true)]
    public static extern int FStatVfs(int fd, StatVfsBuffer* buffer);
#endif

    /// <summary>Bytes an unprivileged user may still write on the file system of the open folder <paramref name="fd"/>, or -1 with the errno.</summary>
    [SupportedOSPlatform("linux")]
    public static long AvailableBytes(int fd, out int errno)
    {
        StatVfsBuffer buffer;
        if (FStatVfs(fd, &buffer) != 0)
        {
            errno = LastErrno;
            return -1;
        }

        errno = 0;
        return (long)Math.Min((ulong)long.MaxValue, buffer.AvailableBlocks * buffer.FragmentSize);
    }

    /// <summary>The block size of the file system of the open folder <paramref name="fd"/> (the unit space is taken in), or 4096.</summary>
    [SupportedOSPlatform("linux")]
    public static long BlockSize(int fd)
    {
        StatVfsBuffer buffer;
        return FStatVfs(fd, &buffer) == 0 && buffer.FragmentSize > 0 ? (long)buffer.FragmentSize : 4096;
    }
}

/// <summary>
/// glibc's <c>struct statvfs</c> on 64-bit Linux (every field before <c>f_favail</c> is 8 bytes); only the fields read
/// are named, and the size covers the whole struct with room to spare.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 128)]
internal struct StatVfsBuffer
{
    [FieldOffset(8)] public ulong FragmentSize;
    [FieldOffset(32)] public ulong AvailableBlocks;
}
