using System.Runtime.InteropServices;

namespace Dedup.Core.Interop;

/// <summary>The few libc calls the BCL does not expose: statx (identity, links), getdents64, openat.</summary>
internal static unsafe partial class Libc
{
    private const string LibraryName = "libc";

    // netstandard2.0 (Mono, .NET Framework): LibraryImport's generator does not run there, so every declaration in
    // Interop has a [DllImport] twin under #if; CharSet.Ansi marshals UTF-8 on every Unix runtime.

    public const int AT_FDCWD = -100;
    public const int AT_SYMLINK_NOFOLLOW = 0x100;
    public const int AT_EMPTY_PATH = 0x1000;
    public const int AT_STATX_DONT_SYNC = 0x4000;
    public const uint STATX_BASIC_STATS = 0x7ff;

    public const int O_RDONLY = 0;
    public const int O_NONBLOCK = 0x800;

    // O_DIRECTORY and O_NOFOLLOW differ by architecture: ARM and PowerPC use 0x4000/0x8000 (values that mean
    // O_DIRECT/O_LARGEFILE on x86), every other Linux port the generic 0x10000/0x20000.
    public static readonly int O_DIRECTORY = HasArmLayout ? 0x4000 : 0x10000;
    public static readonly int O_NOFOLLOW = HasArmLayout ? 0x8000 : 0x20000;
    public const int O_NOATIME = 0x40000;
    public const int O_CLOEXEC = 0x80000;

#if NET
    private static bool HasArmLayout => RuntimeInformation.ProcessArchitecture is Architecture.Arm or Architecture.Arm64 or Architecture.Armv6 or Architecture.Ppc64le;
#else
    // netstandard2.0's Architecture enum stops at Arm64; Mono reports ARMv6 as Arm and has no ppc64le port.
    private static bool HasArmLayout => RuntimeInformation.ProcessArchitecture is Architecture.Arm or Architecture.Arm64;
#endif

    public const int O_PATH = 0x200000; // the same on every Linux architecture
    public const int EPERM = 1;
    public const int ENOENT = 2;
    public const int EINTR = 4;
    public const int EACCES = 13;
    public const int ENOTDIR = 20;
    public const int ELOOP = 40;
    public const int ENOSYS = 38;

    public const ushort S_IFMT = 0xF000;
    public const ushort S_IFREG = 0x8000;
    public const ushort S_IFDIR = 0x4000;
    public const ushort S_IFLNK = 0xA000;

    public const byte DT_UNKNOWN = 0;
    public const byte DT_DIR = 4;
    public const byte DT_REG = 8;
    public const byte DT_LNK = 10;

#if NET
    [LibraryImport(LibraryName, EntryPoint = "geteuid")]
    public static partial uint GetEuid();
#else
    [DllImport(LibraryName, EntryPoint = "geteuid", ExactSpelling = true)]
    public static extern uint GetEuid();
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "statx", SetLastError = true)]
    public static partial int Statx(int dirfd, byte* path, int flags, uint mask, StatxBuffer* buffer);
#else
    [DllImport(LibraryName, EntryPoint = "statx", SetLastError = true, ExactSpelling = true)]
    public static extern int Statx(int dirfd, byte* path, int flags, uint mask, StatxBuffer* buffer);
#endif

/// <summary>
    /// Opens the entry named <paramref name="name"/> (one path component, as <see cref="Paths.KernelNames"/> maps it to
    /// the kernel's bytes) relative to <paramref name="dirfd"/>: the one-component open of the walk and the folder cache.
    /// </summary>
    /// <returns>The descriptor; -1 with the error in <paramref name="errno"/>; <see cref="int.MinValue"/> when the name is
    /// empty, holds a separator or cannot be encoded (open by path instead).</returns>
    public static int OpenAtName(int dirfd, ReadOnlySpan<char> name, int flags, out int errno)
    {
        errno = 0;
        Span<byte> bytes = stackalloc byte[1024];
        if (!KernelNameCodec.TryEncode(name, bytes[..^1], out var count) || count == 0 || bytes[..count].IndexOf((byte)'/') >= 0)
        {
            return int.MinValue;
        }

        bytes[count] = 0;
        int fd;
        fixed (byte* p = bytes)
        {
            fd = OpenAt(dirfd, p, flags, 0);
        }

        if (fd < 0)
        {
            errno = System.Runtime.InteropServices.Marshal.GetLastPInvokeError();
        }

        return fd;
    }

        /// <summary><c>openat2</c>'s <c>RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS</c>: no component of the path may be a link.</summary>
    public const ulong RESOLVE_NO_LINKS = 0x02 | 0x04;

    // openat2 (Linux 5.6) has the same number on every architecture; glibc 2.36 has no wrapper for it.
    private const long SYS_openat2 = 437;

    [StructLayout(LayoutKind.Sequential)]
    private struct OpenHow
    {
        public ulong Flags;
        public ulong Mode;
        public ulong Resolve;
    }

    /// <summary><c>openat2</c> with <paramref name="resolve"/> flags; -1 with <c>ENOSYS</c> on a kernel before 5.6.</summary>
    public static int OpenAt2(int dirfd, byte* path, int flags, ulong resolve)
    {
        var how = new OpenHow { Flags = (ulong)(uint)flags, Resolve = resolve };
        return (int)Syscall(SYS_openat2, dirfd, path, &how, (nuint)sizeof(OpenHow));
    }

    // Variadic in C; the call passes every argument in a register on x86-64 and arm64 alike, and glibc's syscall()
    // only moves them into place.
#if NET
    [LibraryImport(LibraryName, EntryPoint = "syscall", SetLastError = true)]
    private static partial long Syscall(long number, int dirfd, byte* path, OpenHow* how, nuint size);
#else
    [DllImport(LibraryName, EntryPoint = "syscall", SetLastError = true, ExactSpelling = true)]
    private static extern long Syscall(long number, int dirfd, byte* path, OpenHow* how, nuint size);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "openat", SetLastError = true)]
    public static partial int OpenAt(int dirfd, byte* path, int flags, int mode);
#else
    [DllImport(LibraryName, EntryPoint = "openat", SetLastError = true, ExactSpelling = true)]
    public static extern int OpenAt(int dirfd, byte* path, int flags, int mode);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "pread64", SetLastError = true)]
    public static partial nint PRead(int fd, byte* buffer, nuint count, long offset);
#else
    [DllImport(LibraryName, EntryPoint = "pread64", SetLastError = true, ExactSpelling = true)]
    public static extern nint PRead(int fd, byte* buffer, nuint count, long offset);
#endif

    public const int RLIMIT_NOFILE = 7;
    public const int EMFILE = 24;
    public const int ENFILE = 23;

#if NET
    [LibraryImport(LibraryName, EntryPoint = "getrlimit", SetLastError = true)]
    public static partial int GetRLimit(int resource, RLimit* limit);
#else
    [DllImport(LibraryName, EntryPoint = "getrlimit", SetLastError = true, ExactSpelling = true)]
    public static extern int GetRLimit(int resource, RLimit* limit);
#endif

    public const int POSIX_FADV_RANDOM = 1;
    public const int POSIX_FADV_SEQUENTIAL = 2;

    /// <summary>Returns the error number (0 on success); does not set errno.</summary>
#if NET
    [LibraryImport(LibraryName, EntryPoint = "posix_fadvise64")]
    public static partial int FAdvise(int fd, long offset, long length, int advice);
#else
    [DllImport(LibraryName, EntryPoint = "posix_fadvise64", ExactSpelling = true)]
    public static extern int FAdvise(int fd, long offset, long length, int advice);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "preadv64", SetLastError = true)]
    public static partial nint PReadV(int fd, IoVec* iov, int iovcnt, long offset);
#else
    [DllImport(LibraryName, EntryPoint = "preadv64", SetLastError = true, ExactSpelling = true)]
    public static extern nint PReadV(int fd, IoVec* iov, int iovcnt, long offset);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "close", SetLastError = true)]
    public static partial int Close(int fd);
#else
    [DllImport(LibraryName, EntryPoint = "close", SetLastError = true, ExactSpelling = true)]
    public static extern int Close(int fd);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "getdents64", SetLastError = true)]
    public static partial nint GetDents64(int fd, byte* buffer, nuint count);
#else
    [DllImport(LibraryName, EntryPoint = "getdents64", SetLastError = true, ExactSpelling = true)]
    public static extern nint GetDents64(int fd, byte* buffer, nuint count);
#endif

#if NET
    [LibraryImport(LibraryName, EntryPoint = "readlinkat", SetLastError = true)]
    public static partial nint ReadLinkAt(int dirfd, byte* path, byte* buffer, nuint size);
#else
    [DllImport(LibraryName, EntryPoint = "readlinkat", SetLastError = true, ExactSpelling = true)]
    public static extern nint ReadLinkAt(int dirfd, byte* path, byte* buffer, nuint size);
#endif

    /// <summary>A symbolic link's target (its exact bytes, see <see cref="Paths.KernelNames"/>; up to PATH_MAX), or <see langword="null"/> when it cannot be read.</summary>
    public static string? ReadLinkTarget(int dirfd, byte* name)
    {
        var buffer = stackalloc byte[4096];
        var length = ReadLinkAt(dirfd, name, buffer, 4096);
        return length <= 0 || length >= 4096 ? null : KernelNameCodec.GetString(new ReadOnlySpan<byte>(buffer, (int)length));
    }

    public const uint FS_IOC_FIEMAP = 0xC020660B;

#if NET
    [LibraryImport(LibraryName, EntryPoint = "ioctl", SetLastError = true)]
    public static partial int Ioctl(int fd, nuint request, void* argument);
#else
    [DllImport(LibraryName, EntryPoint = "ioctl", SetLastError = true, ExactSpelling = true)]
    public static extern int Ioctl(int fd, nuint request, void* argument);
#endif
}

/// <summary>The kernel's 256-byte <c>struct statx</c>; only the fields we read are named.</summary>
[StructLayout(LayoutKind.Explicit, Size = 256)]
internal struct StatxBuffer
{
    [FieldOffset(0)] public uint Mask;
    [FieldOffset(16)] public uint NLink;
    [FieldOffset(20)] public uint Uid;
    [FieldOffset(24)] public uint Gid;
    [FieldOffset(28)] public ushort Mode;
    [FieldOffset(32)] public ulong Ino;
    [FieldOffset(40)] public ulong Size;
    [FieldOffset(64)] public long AtimeSec;
    [FieldOffset(72)] public uint AtimeNsec;
    [FieldOffset(96)] public long CtimeSec;
    [FieldOffset(104)] public uint CtimeNsec;
    [FieldOffset(112)] public long MtimeSec;
    [FieldOffset(120)] public uint MtimeNsec;
    [FieldOffset(128)] public uint RdevMajor;
    [FieldOffset(132)] public uint RdevMinor;
    [FieldOffset(136)] public uint DevMajor;
    [FieldOffset(140)] public uint DevMinor;

    public readonly ushort Type => (ushort)(Mode & Libc.S_IFMT);

    public readonly bool IsRegularFile => (Mode & Libc.S_IFMT) == Libc.S_IFREG;

    public readonly bool IsDirectory => (Mode & Libc.S_IFMT) == Libc.S_IFDIR;

    public readonly bool IsSymbolicLink => (Mode & Libc.S_IFMT) == Libc.S_IFLNK;

    public readonly ulong Device => ((ulong)DevMajor << 32) | DevMinor;

    public readonly DateTime LastWriteTimeUtc =>
        DateTime.UnixEpoch.AddTicks((MtimeSec * TimeSpan.TicksPerSecond) + (MtimeNsec / 100));

    /// <summary>Modification time in nanoseconds since the Unix epoch.</summary>
    public readonly long LastWriteTimeNs => (MtimeSec * 1_000_000_000L) + MtimeNsec;

    /// <summary>Status change time in nanoseconds since the Unix epoch.</summary>
    public readonly long ChangeTimeNs => (CtimeSec * 1_000_000_000L) + CtimeNsec;

    /// <summary>The status change time (ctime) to 100 ns, the precision reports carry.</summary>
    public readonly DateTime ChangeTimeUtc =>
        DateTime.UnixEpoch.AddTicks((CtimeSec * TimeSpan.TicksPerSecond) + (CtimeNsec / 100));
}

/// <summary><c>struct iovec</c>: one buffer of a scatter read.</summary>
internal unsafe struct IoVec
{
    public byte* Base;
    public nuint Length;
}

/// <summary><c>struct rlimit</c> (64-bit fields).</summary>
internal struct RLimit
{
    public ulong Current;
    public ulong Maximum;
}
