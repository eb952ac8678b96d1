// Compiled on every platform; untested here (no macOS machine): open(2) without following a final symbolic
// link and fstat(2) for the file's type and identity, for the macOS re-checks before Delete and Trash.
using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Dedup.Core.Interop;

/// <summary>The few libSystem calls the BCL does not expose on macOS.</summary>
[SupportedOSPlatform("macos")]
internal static partial class LibSystem
{
    // The install name: on macOS 11+ it lives in the dyld shared cache, where dlopen finds it by this path.
    private const string LibraryName = "/usr/lib/libSystem.B.dylib";

    // Darwin's values (not Linux's).
    public const int O_RDONLY = 0x0;
    public const int O_NONBLOCK = 0x4;
    public const int O_NOFOLLOW = 0x100;
    public const int O_CLOEXEC = 0x1000000;

    /// <summary>
    /// open(2) is variadic; Apple arm64 passes variadic arguments on the stack, so the optional mode is not
    /// declared at all (it is read only with O_CREAT, which is never passed here).
    /// </summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    public static partial int Open(string path, int flags);
#else
    [DllImport(LibraryName, EntryPoint = "open", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    public static extern int Open([MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, int flags);
#endif

    /// <summary>arm64 has only the 64-bit-inode <c>struct stat</c>, under the plain name.</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "fstat", SetLastError = true)]
    private static partial int FStatArm64(int fd, out DarwinStat status);
#else
    [DllImport(LibraryName, EntryPoint = "fstat", SetLastError = true, ExactSpelling = true)]
    private static extern int FStatArm64(int fd, out DarwinStat status);
#endif

    /// <summary>On x86-64 the plain name is the legacy 32-bit-inode layout; the 64-bit-inode one has this suffix.</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "fstat$INODE64", SetLastError = true)]
    private static partial int FStatX64(int fd, out DarwinStat status);
#else
    [DllImport(LibraryName, EntryPoint = "fstat$INODE64", SetLastError = true, ExactSpelling = true)]
    private static extern int FStatX64(int fd, out DarwinStat status);
#endif

    // lstat(2) and stat(2): the same two symbol names as fstat (see there), by architecture.
#if NET
    [LibraryImport(LibraryName, EntryPoint = "lstat", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    private static partial int LStatArm64(string path, out DarwinStat status);

    [LibraryImport(LibraryName, EntryPoint = "lstat$INODE64", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    private static partial int LStatX64(string path, out DarwinStat status);

    [LibraryImport(LibraryName, EntryPoint = "stat", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    private static partial int StatArm64(string path, out DarwinStat status);

    [LibraryImport(LibraryName, EntryPoint = "stat$INODE64", SetLastError = true, StringMarshalling = StringMarshalling.Custom, StringMarshallingCustomType = typeof(KernelNameMarshaller))]
    private static partial int StatX64(string path, out DarwinStat status);
#else
    // CharSet.Ansi is UTF-8 on Mono on Unix, the only runtime that would load these.
    [DllImport(LibraryName, EntryPoint = "lstat", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    private static extern int LStatArm64([MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, out DarwinStat status);

    [DllImport(LibraryName, EntryPoint = "lstat$INODE64", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    private static extern int LStatX64([MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, out DarwinStat status);

    [DllImport(LibraryName, EntryPoint = "stat", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    private static extern int StatArm64([MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, out DarwinStat status);

    [DllImport(LibraryName, EntryPoint = "stat$INODE64", SetLastError = true, CharSet = CharSet.Ansi, ExactSpelling = true)]
    private static extern int StatX64([MarshalAs(UnmanagedType.CustomMarshaler, MarshalTypeRef = typeof(KernelNameCustomMarshaler))] string path, out DarwinStat status);
#endif

    /// <summary>lstat(2) (<paramref name="followLink"/> false: a final symbolic link itself) or stat(2), 64-bit-inode layout; returns 0 or an errno.</summary>
    public static int Stat(string path, bool followLink, out DarwinStat status)
    {
        var x64 = RuntimeInformation.ProcessArchitecture == Architecture.X64;
        var rc = followLink
            ? (x64 ? StatX64(path, out status) : StatArm64(path, out status))
            : (x64 ? LStatX64(path, out status) : LStatArm64(path, out status));
        return rc == 0 ? 0 : Marshal.GetLastPInvokeError();
    }

    /// <summary>fstat(2) with the 64-bit-inode layout; returns 0 or an errno.</summary>
    public static int FStat(int fd, out DarwinStat status)
    {
        var rc = RuntimeInformation.ProcessArchitecture == Architecture.X64 ? FStatX64(fd, out status) : FStatArm64(fd, out status);
        return rc == 0 ? 0 : Marshal.GetLastPInvokeError();
    }
}

/// <summary>
/// Darwin's 144-byte 64-bit-inode <c>struct stat</c> (<c>__DARWIN_STRUCT_STAT64</c> in the macOS SDK's
/// <c>usr/include/sys/stat.h</c>; the types from <c>sys/_types.h</c> and <c>i386/_types.h</c> / <c>arm/_types.h</c>);
/// only the fields we read are named. Offsets, the same on x86-64 and arm64:
/// 0 <c>dev_t st_dev</c> (int32), 4 <c>mode_t st_mode</c> (uint16), 6 <c>nlink_t st_nlink</c> (uint16),
/// 8 <c>__darwin_ino64_t st_ino</c> (uint64), 16 <c>uid_t st_uid</c>, 20 <c>gid_t st_gid</c>, 24 <c>dev_t st_rdev</c>,
/// (4 bytes padding), 32/48/64/80 <c>struct timespec</c> st_atimespec, st_mtimespec, st_ctimespec, st_birthtimespec
/// (16 bytes each), 96 <c>off_t st_size</c>, 104 <c>blkcnt_t st_blocks</c>, 112 <c>blksize_t st_blksize</c> (int32),
/// 116 <c>st_flags</c>, 120 <c>st_gen</c> (uint32), 124 <c>st_lspare</c> (int32), 128 <c>st_qspare[2]</c> (int64): 144.
/// Untested (no macOS machine).
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 144)]
internal struct DarwinStat
{
    [FieldOffset(0)] public int Device;
    [FieldOffset(4)] public ushort Mode;
    [FieldOffset(6)] public ushort LinkCount;
    [FieldOffset(8)] public ulong Inode;
}
