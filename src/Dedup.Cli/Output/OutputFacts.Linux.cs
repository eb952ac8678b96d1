using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using System.Text;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Cli.Output;

/// <summary>What the report's target is to the kernel (<c>statx</c>), which open descriptor reaches it, and the calls that keep a replaced report's owner.</summary>
[SupportedOSPlatform("linux")]
internal static unsafe class OutputFacts
{
    public const int TypeMask = 0xF000, Regular = 0x8000, Folder = 0x4000, Link = 0xA000;

    private const int AtFdCwd = -100, AtSymlinkNoFollow = 0x100, AtEmptyPath = 0x1000, AtEaccess = 0x200;
    private const uint BasicStats = 0x7FF;
    private const int WriteOk = 2, ExecuteOk = 1;
    private const int GetFlags = 3, AccessMode = 3, ReadOnly = 0;

    /// <summary>A file's identity (device, inode), type, owner and mode.</summary>
    public readonly record struct Facts(uint DeviceMajor, uint DeviceMinor, ulong Inode, int Mode, uint Owner, uint Group)
    {
        public int Type => Mode & TypeMask;

        public bool SameFileAs(Facts other) => DeviceMajor == other.DeviceMajor && DeviceMinor == other.DeviceMinor && Inode == other.Inode;
    }

    /// <summary>What <paramref name="path"/> leads to (links followed) or, with <paramref name="follow"/> false, the last name itself; <see langword="null"/> if nothing is there.</summary>
    public static Facts? OfPath(string path, bool follow)
    {
        var bytes = Encoding.UTF8.GetBytes(path + "\0");
        fixed (byte* p = bytes)
        {
            return Stat(AtFdCwd, p, follow ? 0 : AtSymlinkNoFollow);
        }
    }

    /// <summary>What the open descriptor <paramref name="descriptor"/> is; <see langword="null"/> if it is not open.</summary>
    public static Facts? OfDescriptor(int descriptor)
    {
        byte empty = 0;
        return Stat(descriptor, &empty, AtEmptyPath);
    }

    /// <summary>
    /// The descriptor open for writing that reaches the same file as <paramref name="target"/>: standard output or error
    /// first, then any other (a shell's <c>3&gt;&gt; log</c>); -1 if none. Decided by identity, whatever the path reads.
    /// </summary>
    public static int WritableDescriptorFor(Facts target)
    {
        var others = new List<int>();
        try
        {
            foreach (var entry in Directory.EnumerateFileSystemEntries("/proc/self/fd"))
            {
                if (int.TryParse(Path.GetFileName(entry), out var fd) && fd > 2)
                {
                    others.Add(fd);
                }
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // No /proc: standard output and error are still checked.
        }

        others.Sort();
        foreach (var fd in (int[])[1, 2, .. others])
        {
            if (OfDescriptor(fd) is { } facts && facts.SameFileAs(target) && Fcntl(fd, GetFlags) is >= 0 and var flags && (flags & AccessMode) != ReadOnly)
            {
                return fd;
            }
        }

        return -1;
    }

    /// <summary>Whether this process may write in <paramref name="path"/> (a folder: create names in it), as the kernel decides; the errno otherwise.</summary>
    public static int AccessError(string path, bool folder)
    {
        var bytes = Encoding.UTF8.GetBytes(path + "\0");
        fixed (byte* p = bytes)
        {
            return FAccessAt(AtFdCwd, p, folder ? WriteOk | ExecuteOk : WriteOk, AtEaccess) == 0 ? 0 : Marshal.GetLastPInvokeError();
        }
    }

    /// <summary>Gives the open file <paramref name="handle"/> an owner and group (<c>fchown</c>).</summary>
    public static void SetOwner(SafeFileHandle handle, uint owner, uint group)
    {
        if (FChown(handle, owner, group) != 0)
        {
            throw new IOException($"cannot give the new report the owner ({owner}:{group}) of the one it replaces: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
        }
    }

    /// <summary>Writes all of <paramref name="buffer"/> to <paramref name="descriptor"/> with <c>write(2)</c>: at the descriptor's own offset, which the shell shares.</summary>
    public static void WriteAll(int descriptor, ReadOnlySpan<byte> buffer)
    {
        const int Interrupted = 4;
        fixed (byte* start = buffer)
        {
            var done = 0;
            while (done < buffer.Length)
            {
                var written = Write(descriptor, start + done, (nuint)(buffer.Length - done));
                if (written < 0)
                {
                    var errno = Marshal.GetLastPInvokeError();
                    if (errno == Interrupted)
                    {
                        continue;
                    }

                    throw new IOException(Marshal.GetPInvokeErrorMessage(errno));
                }

                done += (int)written;
            }
        }
    }

    public static string Describe(int errno) => Marshal.GetPInvokeErrorMessage(errno);

    private static Facts? Stat(int dirfd, byte* path, int flags)
    {
        var buffer = stackalloc byte[256]; // struct statx
        if (Statx(dirfd, path, flags, BasicStats, buffer) != 0)
        {
            return null;
        }

        return new Facts(
            DeviceMajor: *(uint*)(buffer + 0x88), DeviceMinor: *(uint*)(buffer + 0x8C), Inode: *(ulong*)(buffer + 0x20),
            Mode: *(ushort*)(buffer + 0x1C), Owner: *(uint*)(buffer + 0x14), Group: *(uint*)(buffer + 0x18));
    }

    [DllImport("libc", EntryPoint = "statx", SetLastError = true)]
    private static extern int Statx(int dirfd, byte* path, int flags, uint mask, byte* buffer);

    [DllImport("libc", EntryPoint = "fcntl", SetLastError = true)]
    private static extern int Fcntl(int fd, int command);

    [DllImport("libc", EntryPoint = "faccessat", SetLastError = true)]
    private static extern int FAccessAt(int dirfd, byte* path, int mode, int flags);

    [DllImport("libc", EntryPoint = "fchown", SetLastError = true)]
    private static extern int FChown(SafeFileHandle fd, uint owner, uint group);

    [DllImport("libc", EntryPoint = "write", SetLastError = true)]
    private static extern nint Write(int fd, byte* buffer, nuint count);
}
