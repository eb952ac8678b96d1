using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Paths;

namespace Dedup.Core.FileSystem;

/// <summary>
/// The one walk from a root to what lies below it, on Linux: a root is opened by its path (links followed, as the user
/// named it), and every folder below it by its one listed name from its parent's descriptor, never through a link the
/// listing did not go through (<see cref="TreeWalkPolicy"/>). A folder swapped meanwhile for a link, a file or another
/// folder can then not lead a walk out of its root: a link is refused (<c>O_NOFOLLOW</c>, or <c>openat2</c>'s
/// <c>RESOLVE_NO_SYMLINKS</c> for a path of several names), a file is not a folder (<c>O_DIRECTORY</c>), and another
/// folder is caught by the identity its user checks (the file's, the root's: <see cref="IsSame"/>). The listing, the
/// reader's folder cache, the key pass and every action walk through here; none opens a folder below a root otherwise.
/// </summary>
[SupportedOSPlatform("linux")]
internal static unsafe class RootedTree
{
    /// <summary>Access of a folder only walked through, or whose files are opened or looked up relative to it.</summary>
    public const int Walked = Libc.O_PATH;

    /// <summary>Access of a folder to list: readable, and never waiting on a FIFO swapped in for it.</summary>
    public const int Listed = Libc.O_RDONLY | Libc.O_NONBLOCK;

    /// <summary>Returned for a name or path that cannot be given to the kernel unchanged, or does not fit <see cref="PathMax"/>.</summary>
    public const int InvalidName = int.MinValue;

    /// <summary>PATH_MAX, with its NUL.</summary>
    public const int PathMax = 4096;

    /// <summary>Set once <c>openat2</c> proved missing (a kernel before 5.6, or a seccomp filter that refuses it).</summary>
    private static volatile bool s_noOpenAt2;

    /// <summary>Opens a root by its path, links followed: a root may be a link, and is opened as the listing opened it.</summary>
    public static int OpenRoot(AbsolutePath root, int access, out int errno) => OpenByPath(root, access, followLast: true, out errno);

    /// <summary>
    /// Opens a folder by its whole path (a root, or a folder no descriptor above reaches); with <paramref name="followLast"/>
    /// false a link at its last name is refused. <see cref="InvalidName"/> if the path cannot be written.
    /// </summary>
    public static int OpenByPath(AbsolutePath folder, int access, bool followLast, out int errno)
    {
        errno = 0;
        Span<byte> path = stackalloc byte[PathMax];
        if (folder.WriteUtf8(path) < 0)
        {
            return InvalidName;
        }

        fixed (byte* p = path)
        {
            var fd = Libc.OpenAt(Libc.AT_FDCWD, p, access | Libc.O_DIRECTORY | Libc.O_CLOEXEC | (followLast ? 0 : Libc.O_NOFOLLOW), 0);
            errno = fd < 0 ? Marshal.GetLastPInvokeError() : 0;
            return fd;
        }
    }

    /// <summary>
    /// Opens <paramref name="folder"/> by its one name relative to its parent's descriptor <paramref name="parentFd"/>:
    /// through a link there only where <paramref name="policy"/> follows the link the listing followed, else a link in
    /// its place fails (<c>ELOOP</c> or <c>ENOTDIR</c>), as does a file (<c>ENOTDIR</c>).
    /// </summary>
    /// <returns>The descriptor; -1 with <paramref name="errno"/>; <see cref="InvalidName"/> for a name that cannot be encoded.</returns>
    public static int OpenChild(int parentFd, AbsolutePath folder, in TreeWalkPolicy policy, int access, out int errno) =>
        Libc.OpenAtName(parentFd, folder.Name.AsSpan(), access | Libc.O_DIRECTORY | Libc.O_CLOEXEC | (policy.Follows(folder) ? 0 : Libc.O_NOFOLLOW), out errno);

    /// <summary>An action's step down: the folder <paramref name="name"/> below <paramref name="parentFd"/>, never through a link (<see cref="TreeWalkPolicy.ForActions"/>); -1 with <paramref name="errno"/>.</summary>
    public static int OpenChild(int parentFd, string name, out int errno)
    {
        var fd = Libc.OpenAt(parentFd, name, Walked | Libc.O_DIRECTORY | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0);
        errno = fd < 0 ? Libc.LastErrno : 0;
        return fd;
    }

    /// <summary>Whether <paramref name="name"/> below <paramref name="folderFd"/> is a symbolic link now (for messages: why a step was refused).</summary>
    public static bool IsLinkAt(int folderFd, string name) => Libc.LStatAt(folderFd, name, out var status) == 0 && status.IsSymbolicLink;

    /// <summary>
    /// Opens an absolute, already resolved path (<c>realpath</c>) one name at a time from <c>/</c>, never following a
    /// link: a folder on it swapped for a link since it was resolved fails the walk. -1 and the errno on failure.
    /// </summary>
    public static int OpenResolved(string resolved, out int errno)
    {
        const int PathFlags = Walked | Libc.O_CLOEXEC;
        // Stryker disable once Bitwise : "/" is a folder we may read, and this descriptor is closed within the walk
        var fd = Libc.OpenAt(Libc.AT_FDCWD, "/", PathFlags | Libc.O_DIRECTORY, 0);
        if (fd < 0)
        {
            errno = Libc.LastErrno;

            // Stryker disable once Unary : unreachable, "/" always opens
            return -1;
        }

        foreach (var component in resolved.Split('/', StringSplitOptions.RemoveEmptyEntries))
        {
            // realpath gives no "." or ".." components; a name that became a symbolic link fails with ENOTDIR or ELOOP.
            var next = Libc.OpenAt(fd, component, PathFlags | Libc.O_DIRECTORY | Libc.O_NOFOLLOW, 0);
            if (next < 0)
            {
                errno = Libc.LastErrno; // before close() resets it
                _ = Libc.Close(fd);
                return -1;
            }

            _ = Libc.Close(fd);
            fd = next;
        }

        errno = 0;
        return fd;
    }

    /// <summary>
    /// The identity check between two steps: whether the descriptor <paramref name="fd"/> is what a plain lookup of
    /// <paramref name="path"/> gives now (its last name followed or not). 0 with the descriptor's status when it is; the
    /// lookup's errno when that failed; -1 when something else stands at the path (a folder or link swapped in between).
    /// </summary>
    public static int IsAtPath(int fd, string path, bool followLast, out StatxBuffer opened)
    {
        opened = default;

        // The lookup's errno is read right after it: a close() by the caller would reset it.
        var errno = Libc.Statx(Libc.AT_FDCWD, path, followLast ? 0 : Libc.AT_SYMLINK_NOFOLLOW, Libc.STATX_BASIC_STATS, out var named) == 0
            ? Libc.FStat(fd, out opened)
            : Libc.LastErrno;
        return errno != 0 ? errno : IsSame(opened, named) ? 0 : -1;
    }

    /// <summary>As <see cref="IsAtPath(int, string, bool, out StatxBuffer)"/> for a NUL-terminated path of the kernel's bytes, links followed: whether it leads to <paramref name="fd"/>'s folder.</summary>
    public static bool IsAtPath(int fd, byte* path)
    {
        StatxBuffer byPath, held;
        byte empty = 0;
        return Libc.Statx(Libc.AT_FDCWD, path, 0, Libc.STATX_BASIC_STATS, &byPath) == 0
            && Libc.Statx(fd, &empty, Libc.AT_EMPTY_PATH, Libc.STATX_BASIC_STATS, &held) == 0
            && IsSame(byPath, held);
    }

    /// <summary>Whether two statuses are of one file: same device and inode, never judged by a path.</summary>
    public static bool IsSame(in StatxBuffer a, in StatxBuffer b) => a.Device == b.Device && a.Ino == b.Ino;

    /// <summary>Whether <paramref name="status"/> is the file of <paramref name="device"/> and <paramref name="inode"/> (a root checked against the one scanned).</summary>
    public static bool IsFile(in StatxBuffer status, ulong device, ulong inode) => status.Device == device && status.Ino == inode;

    /// <summary>
    /// Opens the file <paramref name="name"/> in the folder <paramref name="folderFd"/> for reading, as the actions'
    /// re-checks do: never through a symbolic link in its place, never waiting on a FIFO, not inherited by a child
    /// process. The descriptor, or -1 with the errno in <see cref="Libc.LastErrno"/>.
    /// </summary>
    public static int OpenFile(int folderFd, string name) =>
        Libc.OpenAt(folderFd, name, Libc.O_RDONLY | Libc.O_NOFOLLOW | Libc.O_NONBLOCK | Libc.O_CLOEXEC, 0);

    /// <summary>
    /// Adds the names in the folder <paramref name="folderFd"/> to <paramref name="names"/> as the kernel lists them
    /// (<c>getdents64</c> on the folder itself, not on its path), each decoded without loss (<see cref="KernelNames"/>:
    /// a name that is not UTF-8 keeps its bytes), "." and ".." left out. Returns 0, or the errno of the open or of a
    /// read (the names read until then are added).
    /// </summary>
    public static int ListNames(int folderFd, List<string> names)
    {
        // Stryker disable once Bitwise : "." of a folder descriptor is a folder, and this descriptor is closed before the call returns
        var fd = Libc.OpenAt(folderFd, ".", Libc.O_RDONLY | Libc.O_DIRECTORY | Libc.O_CLOEXEC, 0);
        if (fd < 0)
        {
            return Libc.LastErrno;
        }

        try
        {
            var buffer = new byte[32 * 1024];
            fixed (byte* start = buffer)
            {
                nint read;

                // Read until the kernel answers 0: a short answer is not the end (it stops early when a signal is pending).
                while ((read = Libc.GetDents64(fd, start, (nuint)buffer.Length)) > 0)
                {
                    // struct linux_dirent64: u64 d_ino, i64 d_off, u16 d_reclen, u8 d_type, char d_name[].
                    for (var offset = 0; offset < read;)
                    {
                        var length = *(ushort*)(start + offset + 16);
                        var name = new ReadOnlySpan<byte>(start + offset, length)[19..];
                        name = name[..name.IndexOf((byte)0)];
                        if (!name.SequenceEqual("."u8) && !name.SequenceEqual(".."u8))
                        {
                            names.Add(KernelNames.GetString(name));
                        }

                        offset += length;
                    }
                }

                // The loop ended on 0 (the end) or on an error (-1).
                if (read != 0)
                {
                    return Libc.LastErrno;
                }

                return 0;
            }
        }
        finally
        {
            _ = Libc.Close(fd);
        }
    }

    /// <summary>
    /// Opens the NUL-terminated <paramref name="path"/> (one name or several) relative to <paramref name="dirfd"/>; with
    /// <paramref name="noLinks"/> no name on it may be a link (<c>openat2</c>'s <c>RESOLVE_NO_SYMLINKS</c>, <c>ELOOP</c>):
    /// for a path below a descriptor reached from a root one listed name at a time, where any link is one swapped in.
    /// Without <c>openat2</c> it is <c>openat</c>, and <c>O_NOFOLLOW</c> in <paramref name="flags"/> still guards the last name.
    /// </summary>
    public static int OpenBeneath(int dirfd, byte* path, int flags, bool noLinks)
    {
        if (noLinks && !s_noOpenAt2)
        {
            var fd = Libc.OpenAt2(dirfd, path, flags, Libc.RESOLVE_NO_LINKS);
            var errno = fd < 0 ? Marshal.GetLastPInvokeError() : 0;

            // EPERM for a plain read-only open is a seccomp filter's answer, not the file's (that would be EACCES).
            if (fd >= 0 || !(errno == Libc.ENOSYS || (errno == Libc.EPERM && (flags & Libc.O_NOATIME) == 0)))
            {
                return fd;
            }

            s_noOpenAt2 = true;
        }

        return Libc.OpenAt(dirfd, path, flags, 0);
    }

    /// <summary>Tests: behave as on a kernel without <c>openat2</c> (the fallback's guard is then <c>O_NOFOLLOW</c> alone).</summary>
    internal static bool NoOpenAt2
    {
        get => s_noOpenAt2;
        set => s_noOpenAt2 = value;
    }
}
