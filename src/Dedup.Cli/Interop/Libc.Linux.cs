using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Cli.Interop;

/// <summary>
/// The CLI's own libc calls (Linux), in one place: <c>statx</c> with the struct's offsets and the file-type bits named
/// once, and the descriptor calls <c>-o</c> needs. Dedup.Core's interop is internal to it (the CLI is not one of its
/// friend assemblies), so the few the CLI needs are declared here.
/// </summary>
[SupportedOSPlatform("linux")]
internal static unsafe partial class Libc
{
    /// <summary>The file-type bits of a mode (<c>S_IFMT</c>) and the types the CLI tells apart.</summary>
    public const int TypeMask = 0xF000, Regular = 0x8000, Folder = 0x4000, Link = 0xA000, CharacterDevice = 0x2000, BlockDevice = 0x6000, Pipe = 0x1000, Socket = 0xC000;

    public const int AtFdCwd = -100, AtSymlinkNoFollow = 0x100, AtEmptyPath = 0x1000, AtEaccess = 0x200;
    public const int WriteOk = 2, ExecuteOk = 1;
    public const int GetFlags = 3, AccessMode = 3, ReadOnly = 0;
    public const int Interrupted = 4; // EINTR

    private const uint BasicStats = 0x7FF;

    /// <summary>What <c>statx</c> says of a file: its identity (device, inode), type, owner and mode.</summary>
    public readonly record struct FileStatus(uint DeviceMajor, uint DeviceMinor, ulong Inode, int Mode, uint Owner, uint Group)
    {
        public int Type => Mode & TypeMask;

        public bool SameFileAs(FileStatus other) => DeviceMajor == other.DeviceMajor && DeviceMinor == other.DeviceMinor && Inode == other.Inode;
    }

    /// <summary>What <paramref name="path"/> leads to (links followed) or, with <paramref name="follow"/> false, the last name itself; <see langword="null"/> if nothing is there (or it cannot be reached).</summary>
    public static FileStatus? StatusOf(string path, bool follow)
    {
        var bytes = Encoding.UTF8.GetBytes(path + "\0");
        fixed (byte* p = bytes)
        {
            return Stat(AtFdCwd, p, follow ? 0 : AtSymlinkNoFollow);
        }
    }

    /// <summary>What the open descriptor <paramref name="descriptor"/> is; <see langword="null"/> if it is not open.</summary>
    public static FileStatus? StatusOf(int descriptor)
    {
        byte empty = 0;
        return Stat(descriptor, &empty, AtEmptyPath);
    }

    /// <summary>A type that is neither a regular file nor a folder, in words (for messages).</summary>
    public static string TypeName(int type) => type switch
    {
        CharacterDevice => "a character device",
        BlockDevice => "a block device",
        Pipe => "a named pipe",
        Socket => "a socket",
        Link => "a symbolic link",
        _ => "not a file",
    };

    /// <summary>Whether this process may write in <paramref name="path"/> (a folder: create names in it), as the kernel decides; the errno otherwise.</summary>
    public static int AccessError(string path, bool folder)
    {
        var bytes = Encoding.UTF8.GetBytes(path + "\0");
        fixed (byte* p = bytes)
        {
            return FAccessAt(AtFdCwd, p, folder ? WriteOk | ExecuteOk : WriteOk, AtEaccess) == 0 ? 0 : Marshal.GetLastPInvokeError();
        }
    }

    public static string Describe(int errno) => Marshal.GetPInvokeErrorMessage(errno);

    private static FileStatus? Stat(int dirfd, byte* path, int flags)
    {
        var buffer = stackalloc byte[256]; // struct statx
        if (Statx(dirfd, path, flags, BasicStats, buffer) != 0)
        {
            return null;
        }

        return new FileStatus(
            DeviceMajor: *(uint*)(buffer + 0x88), DeviceMinor: *(uint*)(buffer + 0x8C), Inode: *(ulong*)(buffer + 0x20),
            Mode: *(ushort*)(buffer + 0x1C), Owner: *(uint*)(buffer + 0x14), Group: *(uint*)(buffer + 0x18));
    }

    [LibraryImport("libc", EntryPoint = "statx", SetLastError = true)]
    private static partial int Statx(int dirfd, byte* path, int flags, uint mask, byte* buffer);

    [LibraryImport("libc", EntryPoint = "fcntl", SetLastError = true)]
    public static partial int Fcntl(int fd, int command);

    [LibraryImport("libc", EntryPoint = "faccessat", SetLastError = true)]
    private static partial int FAccessAt(int dirfd, byte* path, int mode, int flags);

    [LibraryImport("libc", EntryPoint = "fchown", SetLastError = true)]
    public static partial int FChown(SafeFileHandle fd, uint owner, uint group);

    [LibraryImport("libc", EntryPoint = "write", SetLastError = true)]
    public static partial nint Write(int fd, byte* buffer, nuint count);
}
