using System.Runtime.InteropServices;
using System.Text;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Cli.Tests.Undo;

/// <summary>
/// Test-side libc on exact name bytes (no UTF-8 round trip, so a name that is not UTF-8 stays itself): the tree
/// generator writes through it and the manifest reads through it, independently of the code under test's interop.
/// Paths are byte arrays without the terminating NUL.
/// </summary>
internal static unsafe partial class RawFs
{
    public const int AtFdCwd = -100;
    private const int AtSymlinkNoFollow = 0x100;
    private const int ORdOnly = 0;
    private const int OWrOnly = 1;
    private const int OCreat = 0x40;
    private const int OExcl = 0x80;
    private const int ONonBlock = 0x800;
    private const int ONoFollow = 0x20000;
    private const int OCloExec = 0x80000;
    private const uint StatxBasicStats = 0x7FF;
    private const ulong FsIocGetFlags = 0x80086601;
    private const ulong FsIocSetFlags = 0x40086602;

    public static byte[] Bytes(string path) => Encoding.UTF8.GetBytes(path);

    public static byte[] Join(byte[] folder, byte[] name) => [.. folder, (byte)'/', .. name];

    public static byte[] Join(byte[] folder, string name) => Join(folder, Bytes(name));

    /// <summary>A name for messages: UTF-8 where valid, each other byte as \xNN (and a backslash as \\, so it stays one to one).</summary>
    public static string Show(ReadOnlySpan<byte> name)
    {
        var text = new StringBuilder();
        var strict = new UTF8Encoding(false, true);
        for (var i = 0; i < name.Length;)
        {
            var length = name[i] < 0x80 ? 1 : name[i] >= 0xF0 ? 4 : name[i] >= 0xE0 ? 3 : name[i] >= 0xC0 ? 2 : 0;
            string? piece = null;
            if (length > 0 && i + length <= name.Length)
            {
                try
                {
                    piece = strict.GetString(name.Slice(i, length));
                }
                catch (DecoderFallbackException)
                {
                }
            }

            if (piece is null)
            {
                text.Append(System.Globalization.CultureInfo.InvariantCulture, $"\\x{name[i]:X2}");
                i++;
            }
            else
            {
                text.Append(piece == "\\" ? "\\\\" : piece);
                i += length;
            }
        }

        return text.ToString();
    }

    public static void WriteFile(byte[] path, ReadOnlySpan<byte> content)
    {
        var fd = Check(Open(path, OWrOnly | OCreat | OExcl | ONoFollow | OCloExec, 0x1B6), "open", path);
        using var handle = new SafeFileHandle((nint)fd, ownsHandle: true);
        RandomAccess.Write(handle, content, 0);
    }

    public static void MakeFolder(byte[] path, uint mode = 0x1ED) => Check(MkDir(path, mode), "mkdir", path);

    public static void Link(byte[] existing, byte[] link) => Check(LinkAt(AtFdCwd, existing, AtFdCwd, link, 0), "link", link);

    public static void Symlink(byte[] target, byte[] link) => Check(SymlinkRaw(target, link), "symlink", link);

    public static void Chown(byte[] path, uint uid, uint gid) => Check(LChown(path, uid, gid), "lchown", path);

    public static void Chmod(byte[] path, uint mode) => Check(FchmodAt(AtFdCwd, path, mode, 0), "chmod", path);

    public static void SetXattr(byte[] path, string name, byte[] value) =>
        Check(LSetXattr(path, Bytes(name), value, (nuint)value.Length, 0), "lsetxattr " + name, path);

    public static void RemoveXattr(byte[] path, string name)
    {
        fixed (byte* p = Z(path))
        fixed (byte* n = Z(Bytes(name)))
        {
            Check(LRemoveXattrRaw(p, n), "lremovexattr " + name, path);
        }
    }

    /// <summary>Sets the modification and access time (nanoseconds since the epoch) of the name itself.</summary>
    public static void SetTimes(byte[] path, long atimeNs, long mtimeNs)
    {
        var times = stackalloc long[4];
        times[0] = atimeNs / 1_000_000_000;
        times[1] = atimeNs % 1_000_000_000;
        times[2] = mtimeNs / 1_000_000_000;
        times[3] = mtimeNs % 1_000_000_000;
        Check(UtimensAt(AtFdCwd, path, times, AtSymlinkNoFollow), "utimensat", path);
    }

    /// <summary>The name's own status (statx, links not followed), or null when there is no such name.</summary>
    public static RawStatus? Status(byte[] path)
    {
        var buffer = stackalloc byte[256];
        if (Statx(AtFdCwd, path, AtSymlinkNoFollow, StatxBasicStats, buffer) != 0)
        {
            var errno = Marshal.GetLastPInvokeError();
            return errno == 2 ? null : throw Failure("statx", path, errno);
        }

        return new RawStatus(
            Mode: *(ushort*)(buffer + 28),
            Uid: *(uint*)(buffer + 20),
            Gid: *(uint*)(buffer + 24),
            Inode: *(ulong*)(buffer + 32),
            Size: *(long*)(buffer + 40),
            Links: *(uint*)(buffer + 16),
            MtimeNs: (*(long*)(buffer + 112) * 1_000_000_000) + *(uint*)(buffer + 120),
            Device: ((ulong)*(uint*)(buffer + 136) << 32) | *(uint*)(buffer + 140));
    }

    /// <summary>Every entry of a folder (not . and ..), each name's exact bytes.</summary>
    public static List<byte[]> List(byte[] folder)
    {
        var dir = OpenDir(folder);
        if (dir == 0)
        {
            throw Failure("opendir", folder, Marshal.GetLastPInvokeError());
        }

        var names = new List<byte[]>();
        try
        {
            while (ReadDir(dir) is var entry && entry != 0)
            {
                var name = MemoryMarshal.CreateReadOnlySpanFromNullTerminated((byte*)entry + 19);
                if (!name.SequenceEqual("."u8) && !name.SequenceEqual(".."u8))
                {
                    names.Add(name.ToArray());
                }
            }
        }
        finally
        {
            _ = CloseDir(dir);
        }

        return names;
    }

    public static byte[] ReadLink(byte[] path)
    {
        var buffer = new byte[4096];
        var length = ReadLinkRaw(path, buffer, (nuint)buffer.Length);
        return length < 0 ? throw Failure("readlink", path, Marshal.GetLastPInvokeError()) : buffer[..(int)length];
    }

    /// <summary>Opens a file or folder for reading without following a link at the name.</summary>
    public static SafeFileHandle OpenRead(byte[] path) =>
        new((nint)Check(Open(path, ORdOnly | ONoFollow | ONonBlock | OCloExec, 0), "open", path), ownsHandle: true);

    /// <summary>FS_IOC_GETFLAGS of an open file or folder; 0 where the file system has none.</summary>
    public static int InodeFlags(SafeFileHandle handle)
    {
        int flags = 0;
        return Ioctl((int)handle.DangerousGetHandle(), FsIocGetFlags, &flags) == 0 ? flags : 0;
    }

    /// <summary>Adds inode flags (FS_IOC_SETFLAGS, e.g. 0x40 = nodump, chattr +d) to a file or folder.</summary>
    public static void AddInodeFlags(byte[] path, int add)
    {
        using var handle = OpenRead(path);
        var flags = 0;
        var fd = (int)handle.DangerousGetHandle();
        if (Ioctl(fd, FsIocGetFlags, &flags) != 0)
        {
            throw Failure("FS_IOC_GETFLAGS", path, Marshal.GetLastPInvokeError());
        }

        flags |= add;
        if (Ioctl(fd, FsIocSetFlags, &flags) != 0)
        {
            throw Failure("FS_IOC_SETFLAGS", path, Marshal.GetLastPInvokeError());
        }
    }

    /// <summary>Every extended attribute of the name itself (llistxattr/lgetxattr), name → value.</summary>
    public static SortedDictionary<string, byte[]> Xattrs(byte[] path)
    {
        var result = new SortedDictionary<string, byte[]>(StringComparer.Ordinal);
        var list = new byte[65536];
        var size = LListXattr(path, list, (nuint)list.Length);
        if (size < 0)
        {
            var errno = Marshal.GetLastPInvokeError();
            return errno == 95 ? result : throw Failure("llistxattr", path, errno); // EOPNOTSUPP: none
        }

        foreach (var name in list.AsSpan(0, (int)size).ToArray().Split((byte)0))
        {
            var value = new byte[65536];
            var length = LGetXattr(path, name, value, (nuint)value.Length);
            result[Encoding.UTF8.GetString(name)] = length < 0 ? throw Failure("lgetxattr", path, Marshal.GetLastPInvokeError()) : value[..(int)length];
        }

        return result;
    }

    private static IEnumerable<byte[]> Split(this byte[] list, byte separator)
    {
        var start = 0;
        for (var i = 0; i < list.Length; i++)
        {
            if (list[i] == separator)
            {
                if (i > start)
                {
                    yield return list[start..i];
                }

                start = i + 1;
            }
        }
    }

    private static int Check(int result, string call, byte[] path) =>
        result >= 0 ? result : throw Failure(call, path, Marshal.GetLastPInvokeError());

    private static IOException Failure(string call, byte[] path, int errno) =>
        new($"{call} {Show(path)}: {Marshal.GetPInvokeErrorMessage(errno)} (errno {errno})");

    private static byte[] Z(byte[] path) => [.. path, 0];

    private static int Open(byte[] path, int flags, uint mode)
    {
        fixed (byte* p = Z(path))
        {
            return OpenRaw(p, flags, mode);
        }
    }

    private static int MkDir(byte[] path, uint mode)
    {
        fixed (byte* p = Z(path))
        {
            return MkDirRaw(p, mode);
        }
    }

    private static int LinkAt(int oldDir, byte[] existing, int newDir, byte[] link, int flags)
    {
        fixed (byte* a = Z(existing))
        fixed (byte* b = Z(link))
        {
            return LinkAtRaw(oldDir, a, newDir, b, flags);
        }
    }

    private static int SymlinkRaw(byte[] target, byte[] link)
    {
        fixed (byte* a = Z(target))
        fixed (byte* b = Z(link))
        {
            return SymlinkRaw(a, b);
        }
    }

    private static int LChown(byte[] path, uint uid, uint gid)
    {
        fixed (byte* p = Z(path))
        {
            return LChownRaw(p, uid, gid);
        }
    }

    private static int FchmodAt(int dir, byte[] path, uint mode, int flags)
    {
        fixed (byte* p = Z(path))
        {
            return FchmodAtRaw(dir, p, mode, flags);
        }
    }

    private static int LSetXattr(byte[] path, byte[] name, byte[] value, nuint size, int flags)
    {
        fixed (byte* p = Z(path))
        fixed (byte* n = Z(name))
        fixed (byte* v = value)
        {
            return LSetXattrRaw(p, n, v, size, flags);
        }
    }

    private static nint LListXattr(byte[] path, byte[] list, nuint size)
    {
        fixed (byte* p = Z(path))
        fixed (byte* l = list)
        {
            return LListXattrRaw(p, l, size);
        }
    }

    private static nint LGetXattr(byte[] path, byte[] name, byte[] value, nuint size)
    {
        fixed (byte* p = Z(path))
        fixed (byte* n = Z(name))
        fixed (byte* v = value)
        {
            return LGetXattrRaw(p, n, v, size);
        }
    }

    private static int UtimensAt(int dir, byte[] path, long* times, int flags)
    {
        fixed (byte* p = Z(path))
        {
            return UtimensAtRaw(dir, p, times, flags);
        }
    }

    private static int Statx(int dir, byte[] path, int flags, uint mask, byte* buffer)
    {
        fixed (byte* p = Z(path))
        {
            return StatxRaw(dir, p, flags, mask, buffer);
        }
    }

    private static nint OpenDir(byte[] path)
    {
        fixed (byte* p = Z(path))
        {
            return OpenDirRaw(p);
        }
    }

    private static nint ReadLinkRaw(byte[] path, byte[] buffer, nuint size)
    {
        fixed (byte* p = Z(path))
        fixed (byte* b = buffer)
        {
            return ReadLinkRaw(p, b, size);
        }
    }

    [LibraryImport("libc", EntryPoint = "open", SetLastError = true)]
    private static partial int OpenRaw(byte* path, int flags, uint mode);

    [LibraryImport("libc", EntryPoint = "mkdir", SetLastError = true)]
    private static partial int MkDirRaw(byte* path, uint mode);

    [LibraryImport("libc", EntryPoint = "linkat", SetLastError = true)]
    private static partial int LinkAtRaw(int oldDir, byte* existing, int newDir, byte* link, int flags);

    [LibraryImport("libc", EntryPoint = "symlink", SetLastError = true)]
    private static partial int SymlinkRaw(byte* target, byte* link);

    [LibraryImport("libc", EntryPoint = "lchown", SetLastError = true)]
    private static partial int LChownRaw(byte* path, uint uid, uint gid);

    [LibraryImport("libc", EntryPoint = "fchmodat", SetLastError = true)]
    private static partial int FchmodAtRaw(int dir, byte* path, uint mode, int flags);

    [LibraryImport("libc", EntryPoint = "lsetxattr", SetLastError = true)]
    private static partial int LSetXattrRaw(byte* path, byte* name, byte* value, nuint size, int flags);

    [LibraryImport("libc", EntryPoint = "lremovexattr", SetLastError = true)]
    private static partial int LRemoveXattrRaw(byte* path, byte* name);

    [LibraryImport("libc", EntryPoint = "llistxattr", SetLastError = true)]
    private static partial nint LListXattrRaw(byte* path, byte* list, nuint size);

    [LibraryImport("libc", EntryPoint = "lgetxattr", SetLastError = true)]
    private static partial nint LGetXattrRaw(byte* path, byte* name, byte* value, nuint size);

    [LibraryImport("libc", EntryPoint = "utimensat", SetLastError = true)]
    private static partial int UtimensAtRaw(int dir, byte* path, long* times, int flags);

    [LibraryImport("libc", EntryPoint = "statx", SetLastError = true)]
    private static partial int StatxRaw(int dir, byte* path, int flags, uint mask, byte* buffer);

    [LibraryImport("libc", EntryPoint = "opendir", SetLastError = true)]
    private static partial nint OpenDirRaw(byte* path);

    [LibraryImport("libc", EntryPoint = "readdir64", SetLastError = true)]
    private static partial nint ReadDir(nint dir);

    [LibraryImport("libc", EntryPoint = "closedir", SetLastError = true)]
    private static partial int CloseDir(nint dir);

    [LibraryImport("libc", EntryPoint = "readlink", SetLastError = true)]
    private static partial nint ReadLinkRaw(byte* path, byte* buffer, nuint size);

    [LibraryImport("libc", EntryPoint = "ioctl", SetLastError = true)]
    private static partial int Ioctl(int fd, ulong request, int* argument);
}

/// <summary>What <see cref="RawFs.Status"/> reads of a name (statx): st_mode with its type bits, owner, times in nanoseconds.</summary>
internal readonly record struct RawStatus(uint Mode, uint Uid, uint Gid, ulong Inode, long Size, uint Links, long MtimeNs, ulong Device)
{
    public bool IsFile => (Mode & 0xF000) == 0x8000;

    public bool IsFolder => (Mode & 0xF000) == 0x4000;

    public bool IsLink => (Mode & 0xF000) == 0xA000;
}
