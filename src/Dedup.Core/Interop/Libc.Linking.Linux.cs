using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Dedup.Core.Interop;

// The libc calls the linkers need, in the one Libc declaration: the *at calls relative to an open folder (link,
// symlink, rename, unlink, open, statx) with marshalled string names, ioctl (FICLONE, FIDEDUPERANGE), xattrs and friends.
internal static unsafe partial class Libc
{

    public const int O_WRONLY = 1;
    public const int O_CREAT = 0x40;
    public const int O_EXCL = 0x80;
    public const int O_RDWR = 2;
    public const int O_APPEND = 0x400;

    /// <summary>
    /// <c>O_TMPFILE</c>: an unnamed regular file in the folder given, gone when closed (<c>__O_TMPFILE | O_DIRECTORY</c>;
    /// <c>__O_TMPFILE</c> is 020000000 on every architecture but Alpha, PA-RISC and SPARC, which .NET does not run on).
    /// A property: a field initializer here could run before <c>O_DIRECTORY</c>'s in the other part of the class.
    /// </summary>
    public static int O_TMPFILE => 0x400000 | O_DIRECTORY;

    public const uint RENAME_NOREPLACE = 1;

    public const int EEXIST = 17;
    public const int EXDEV = 18;
    public const int EINVAL = 22;
    public const int ENOTTY = 25;
    public const int EMLINK = 31;
    public const int ENODATA = 61;
    public const int ERANGE = 34;
    public const int EOPNOTSUPP = 95;

    /// <summary>The largest extended-attribute value and name list the kernel allows (<c>XATTR_SIZE_MAX</c>, <c>XATTR_LIST_MAX</c>).</summary>
    public const int XattrMax = 65536;

    public const ulong FICLONE = 0x40049409;
    public const ulong FIDEDUPERANGE = 0xC0189436;

    /// <summary><c>FS_IOC_GETFLAGS</c>/<c>FS_IOC_SETFLAGS</c> (declared with a long, but the kernel reads and writes an int).</summary>
    public const ulong FS_IOC_GETFLAGS = 0x80086601;
    public const ulong FS_IOC_SETFLAGS = 0x40086602;

    public const ushort S_ISVTX = 0x200;

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "statx", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    public static partial int Statx(int dirfd, string path, int flags, uint mask, out StatxBuffer buffer);
#else
    [DllImport(LibraryName, EntryPoint = "statx", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int Statx(int dirfd, [MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, int flags, uint mask, out StatxBuffer buffer);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    public static partial int Open(string path, int flags, int mode);
#else
    [DllImport(LibraryName, EntryPoint = "open", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int Open([MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, int flags, int mode);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "openat", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    public static partial int OpenAt(int dirfd, string path, int flags, int mode);
#else
    [DllImport(LibraryName, EntryPoint = "openat", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int OpenAt(int dirfd, [MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, int flags, int mode);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "linkat", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    public static partial int LinkAt(int olddirfd, string oldpath, int newdirfd, string newpath, int flags);
#else
    [DllImport(LibraryName, EntryPoint = "linkat", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int LinkAt(int olddirfd, [MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string oldpath, int newdirfd, [MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string newpath, int flags);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "symlinkat", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    public static partial int SymlinkAt(string target, int newdirfd, string linkpath);
#else
    [DllImport(LibraryName, EntryPoint = "symlinkat", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int SymlinkAt([MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string target, int newdirfd, [MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string linkpath);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "renameat2", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    public static partial int RenameAt2(int olddirfd, string oldpath, int newdirfd, string newpath, uint flags);
#else
    [DllImport(LibraryName, EntryPoint = "renameat2", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int RenameAt2(int olddirfd, [MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string oldpath, int newdirfd, [MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string newpath, uint flags);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "unlinkat", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    public static partial int UnlinkAt(int dirfd, string path, int flags);
#else
    [DllImport(LibraryName, EntryPoint = "unlinkat", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int UnlinkAt(int dirfd, [MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, int flags);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "mkdir", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    public static partial int Mkdir(string path, int mode);
#else
    [DllImport(LibraryName, EntryPoint = "mkdir", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int Mkdir([MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, int mode);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "ioctl", SetLastError = true)]
    public static partial int Ioctl(int fd, ulong request, nint argument);
#else
    [DllImport(LibraryName, EntryPoint = "ioctl", SetLastError = true, ExactSpelling = true)]
    public static extern int Ioctl(int fd, ulong request, nint argument);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "fchmod", SetLastError = true)]
    public static partial int Fchmod(int fd, int mode);
#else
    [DllImport(LibraryName, EntryPoint = "fchmod", SetLastError = true, ExactSpelling = true)]
    public static extern int Fchmod(int fd, int mode);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "fchown", SetLastError = true)]
    public static partial int Fchown(int fd, uint owner, uint group);
#else
    [DllImport(LibraryName, EntryPoint = "fchown", SetLastError = true, ExactSpelling = true)]
    public static extern int Fchown(int fd, uint owner, uint group);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "futimens", SetLastError = true)]
    public static partial int Futimens(int fd, TimeSpec* times);
#else
    [DllImport(LibraryName, EntryPoint = "futimens", SetLastError = true, ExactSpelling = true)]
    public static extern int Futimens(int fd, TimeSpec* times);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "fsync", SetLastError = true)]
    public static partial int Fsync(int fd);
#else
    [DllImport(LibraryName, EntryPoint = "fsync", SetLastError = true, ExactSpelling = true)]
    public static extern int Fsync(int fd);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "fdatasync", SetLastError = true)]
    public static partial int Fdatasync(int fd);
#else
    [DllImport(LibraryName, EntryPoint = "fdatasync", SetLastError = true, ExactSpelling = true)]
    public static extern int Fdatasync(int fd);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "llistxattr", SetLastError = true)]
    public static partial nint LListXattr(byte* path, byte* list, nuint size);
#else
    [DllImport(LibraryName, EntryPoint = "llistxattr", SetLastError = true, ExactSpelling = true)]
    public static extern nint LListXattr(byte* path, byte* list, nuint size);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "lgetxattr", SetLastError = true)]
    public static partial nint LGetXattr(byte* path, byte* name, byte* value, nuint size);
#else
    [DllImport(LibraryName, EntryPoint = "lgetxattr", SetLastError = true, ExactSpelling = true)]
    public static extern nint LGetXattr(byte* path, byte* name, byte* value, nuint size);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "flistxattr", SetLastError = true)]
    public static partial nint FListXattr(int fd, byte* list, nuint size);
#else
    [DllImport(LibraryName, EntryPoint = "flistxattr", SetLastError = true, ExactSpelling = true)]
    public static extern nint FListXattr(int fd, byte* list, nuint size);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "fgetxattr", SetLastError = true)]
    public static partial nint FGetXattr(int fd, byte* name, byte* value, nuint size);
#else
    [DllImport(LibraryName, EntryPoint = "fgetxattr", SetLastError = true, ExactSpelling = true)]
    public static extern nint FGetXattr(int fd, byte* name, byte* value, nuint size);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "fsetxattr", SetLastError = true)]
    public static partial int FSetXattr(int fd, byte* name, byte* value, nuint size, int flags);
#else
    [DllImport(LibraryName, EntryPoint = "fsetxattr", SetLastError = true, ExactSpelling = true)]
    public static extern int FSetXattr(int fd, byte* name, byte* value, nuint size, int flags);
#endif

    [SupportedOSPlatform("linux")]
#if NET
    [LibraryImport(LibraryName, EntryPoint = "realpath", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    private static partial nint RealPath(string path, nint resolved);
#else
    [DllImport(LibraryName, EntryPoint = "realpath", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    private static extern nint RealPath([MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, nint resolved);
#endif

    /// <summary>The path with every symbolic link resolved (<c>realpath</c>), or <see langword="null"/> with the errno.</summary>
    [SupportedOSPlatform("linux")]
    public static string? RealPathOf(string path, out int errno)
    {
        var resolved = RealPath(path, 0);
        if (resolved == 0)
        {
            errno = LastErrno;
            return null;
        }

        try
        {
            errno = 0;
            return KernelNameCodec.GetString(MemoryMarshal.CreateReadOnlySpanFromNullTerminated((byte*)resolved));
        }
        finally
        {
            NativeMemory.Free((void*)resolved);
        }
    }

    /// <summary>The path with every symbolic link in its folders resolved (the name itself is kept); the input when that fails.</summary>
    [SupportedOSPlatform("linux")]
    public static string CanonicalFolderPath(string path)
    {
        var folder = Path.GetDirectoryName(path);
        return folder is not null && RealPathOf(folder, out _) is { } resolved ? Path.Combine(resolved, Path.GetFileName(path)) : path;
    }

    /// <summary>The target of the symbolic link <paramref name="name"/> in the folder <paramref name="dirfd"/> (its exact bytes, decoded without loss), or <see langword="null"/>.</summary>
    [SupportedOSPlatform("linux")]
    public static string? ReadLinkTarget(int dirfd, string name)
    {
        var bytes = KernelNameCodec.ToNullTerminated(name);
        if (bytes is null)
        {
            return null;
        }

        fixed (byte* p = bytes)
        {
            return ReadLinkTarget(dirfd, p);
        }
    }

    public static int LastErrno => Marshal.GetLastPInvokeError();

    [SupportedOSPlatform("linux")]
    public static string Message(int errno) => Marshal.GetPInvokeErrorMessage(errno);

    /// <summary><c>statx</c> of a path without following a final symbolic link; returns 0 or an errno.</summary>
    [SupportedOSPlatform("linux")]
    public static int LStat(string path, out StatxBuffer status) =>
        Statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, out status) == 0 ? 0 : LastErrno;

    /// <summary><c>statx</c> of a name in an open folder without following a final symbolic link; returns 0 or an errno.</summary>
    [SupportedOSPlatform("linux")]
    public static int LStatAt(int dirfd, string name, out StatxBuffer status) =>
        Statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, out status) == 0 ? 0 : LastErrno;

    /// <summary><c>statx</c> of an open descriptor; returns 0 or an errno.</summary>
    [SupportedOSPlatform("linux")]
    public static int FStat(int fd, out StatxBuffer status) =>
        Statx(fd, string.Empty, AT_EMPTY_PATH, STATX_BASIC_STATS, out status) == 0 ? 0 : LastErrno;
}


/// <summary><c>struct timespec</c>.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct TimeSpec
{
    public long Seconds;
    public long Nanoseconds;
}

/// <summary>The 24-byte header of <c>struct file_dedupe_range</c> followed by one 32-byte destination.</summary>
[StructLayout(LayoutKind.Explicit, Size = 56)]
internal struct DedupeRangeOne
{
    [FieldOffset(0)] public ulong SrcOffset;
    [FieldOffset(8)] public ulong SrcLength;
    [FieldOffset(16)] public ushort DestCount;
    [FieldOffset(24)] public long DestFd;
    [FieldOffset(32)] public ulong DestOffset;
    [FieldOffset(40)] public ulong BytesDeduped;
    [FieldOffset(48)] public int Status;
}
