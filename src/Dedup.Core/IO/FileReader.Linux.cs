using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Reporting;
using Dedup.Core.FileSystem;

namespace Dedup.Core.IO;

internal sealed unsafe partial class FileReader
{
    private const int PathBufferSize = 4096;

    [SupportedOSPlatform("linux")]
    private OpenedFile TryOpenLinux(FileNode node)
    {
        var fd = TryOpenDescriptorLinux(node.Primary);
        return fd < 0 ? OpenedFile.None : OpenedFile.Of(node, fd);
    }

    /// <summary>As <see cref="ReadExactly"/> without a map, through a bare descriptor; errors are reported as it reports them.</summary>
    [SupportedOSPlatform("linux")]
    private bool ReadExactlyLinux(ScannedFile file, int fd, long offset, Span<byte> destination)
    {
        fixed (byte* p = destination)
        {
            var total = 0;
            while (total < destination.Length)
            {
                var want = (int)Math.Min(destination.Length - total, file.Length - (offset + total));
                var read = want <= 0 ? 0 : Libc.PRead(fd, p + total, (nuint)want, offset + total);
                if (read < 0)
                {
                    var errno = Marshal.GetLastPInvokeError();
                    if (errno == Libc.EINTR)
                    {
                        continue;
                    }

                    ReportError(file.Path.ToString(), ScanErrorKind.IOError, Marshal.GetPInvokeErrorMessage(errno));
                    return false;
                }

                Interlocked.Add(ref _bytesRead, read);
                if (read == 0)
                {
                    ReportError(file.Path.ToString(), ScanErrorKind.Changed, "File shrank during the scan; left out");
                    return false;
                }

                total += (int)read;
            }

            return true;
        }
    }

    /// <summary>Opens the file and checks it is still the one listed: its descriptor, or -1 (the failure reported).</summary>
    [SupportedOSPlatform("linux")]
    [SkipLocalsInit] // the path buffers are written, NUL-terminated, before use: zeroing 4 KiB per file showed in perf
    private int TryOpenDescriptorLinux(ScannedFile file)
    {
        Span<byte> path = stackalloc byte[PathBufferSize];
        var dirfd = Locate(file, path, out var beneathRoot);
        if (dirfd == InvalidName)
        {
            ReportError(file.Path.ToString(), ScanErrorKind.InvalidName, "Path too long to open");
            return -1;
        }

        // O_NONBLOCK: should a FIFO have replaced the file since it was listed, open must not hang. Not following
        // links, a link now on the path is one swapped in since the listing: it is not opened through (a device's
        // open alone can act), at the file's name (O_NOFOLLOW) nor, below a root's descriptor, on the way (openat2).
        var flags = Libc.O_RDONLY | Libc.O_CLOEXEC | Libc.O_NONBLOCK | (_refuseLinks ? Libc.O_NOFOLLOW : 0);
        var noLinks = _refuseLinks && beneathRoot;
        int fd;
        fixed (byte* p = path)
        {
            var noAtime = AskNoAtime(file);
            fd = Open(dirfd, p, noAtime ? flags | Libc.O_NOATIME : flags, noLinks);
            if (fd < 0 && noAtime && Marshal.GetLastPInvokeError() == Libc.EPERM)
            {
                // O_NOATIME is only allowed on files we own (or with CAP_FOWNER).
                Interlocked.Increment(ref _noAtimeRefusals);
                fd = Open(dirfd, p, flags, noLinks);
            }
            else if (fd >= 0 && noAtime)
            {
                Interlocked.Increment(ref _noAtimeOpens);
            }
        }

        if (fd < 0)
        {
            var errno = Marshal.GetLastPInvokeError();
            if (errno == Libc.ELOOP && _refuseLinks)
            {
                ReportChanged(file, "a symbolic link now stands on its path; not followed");
            }
            else
            {
                ReportErrno(file.Path.ToString(), errno);
            }

            return -1;
        }

        StatxBuffer stx;
        byte empty = 0;
        if (Libc.Statx(fd, &empty, Libc.AT_EMPTY_PATH, Libc.STATX_BASIC_STATS, &stx) != 0)
        {
            ReportErrno(file.Path.ToString(), Marshal.GetLastPInvokeError());
            _ = Libc.Close(fd);
            return -1;
        }

        if (!Matches(file, in stx))
        {
            _ = Libc.Close(fd);
            return -1;
        }

        return fd;
    }

    /// <summary><c>openat</c>, or with <paramref name="noLinks"/> no link on any name of the path (<see cref="FileSystem.RootedTree.OpenBeneath"/>).</summary>
    [SupportedOSPlatform("linux")]
    private static int Open(int dirfd, byte* path, int flags, bool noLinks) => FileSystem.RootedTree.OpenBeneath(dirfd, path, flags, noLinks);

    [SupportedOSPlatform("linux")]
    [SkipLocalsInit] // the path buffers are written, NUL-terminated, before use: zeroing 4 KiB per file showed in perf
    private bool IsUnchangedLinux(FileNode node, int fd)
    {
        var file = node.Primary;
        StatxBuffer stx;
        int rc;
        if (fd >= 0)
        {
            byte empty = 0;
            rc = Libc.Statx(fd, &empty, Libc.AT_EMPTY_PATH, Libc.STATX_BASIC_STATS, &stx);
        }
        else
        {
            // By the path a report will show: relative to a folder descriptor only once it is known to be that
            // folder's (FolderHandles.LocateAtPath). A link is followed, as the open followed it (--follow-symlinks).
            Span<byte> path = stackalloc byte[PathBufferSize];
            var dirfd = Locate(file, path, atPath: true);
            if (dirfd == InvalidName)
            {
                return false;
            }

            fixed (byte* p = path)
            {
                rc = Libc.Statx(dirfd, p, 0, Libc.STATX_BASIC_STATS, &stx);
            }
        }

        if (rc != 0)
        {
            ReportErrno(file.Path.ToString(), Marshal.GetLastPInvokeError());
            return false;
        }

        if (!Matches(file, in stx))
        {
            return false;
        }

        node.LastChangeTimeUtc = stx.ChangeTimeUtc;
        node.Access = (stx.Uid, stx.Gid, stx.Mode & 0xFFF);
        return true;
    }

    private const int InvalidName = int.MinValue;

    /// <summary>
    /// Writes the NUL-terminated path to open the file by, relative to the returned descriptor (its folder's, or a cached
    /// ancestor's: see <see cref="FolderHandles"/>), or whole with <see cref="Libc.AT_FDCWD"/>; <see cref="InvalidName"/>
    /// if it does not fit.
    /// </summary>
    /// <remarks>With <paramref name="atPath"/>, for the last check before a report: see <see cref="FolderHandles.LocateAtPath"/>.</remarks>
    [SupportedOSPlatform("linux")]
    [SkipLocalsInit] // the path buffers are written, NUL-terminated, before use: zeroing 4 KiB per file showed in perf
    private int Locate(ScannedFile file, Span<byte> destination, bool atPath = false) => Locate(file, destination, out _, atPath);

    // As above; beneathRoot as FolderHandles.Locate gives it.
    [SupportedOSPlatform("linux")]
    [SkipLocalsInit]
    private int Locate(ScannedFile file, Span<byte> destination, out bool beneathRoot, bool atPath = false)
    {
        beneathRoot = false;
        if (file.Folder is not { } folder)
        {
            return file.Path.WriteUtf8(destination) < 0 ? InvalidName : Libc.AT_FDCWD;
        }

        // A row of the scan's table: its name is already the kernel's bytes, and no path is made.
        var name = file.NameBytes;
        if (!name.IsEmpty)
        {
            return atPath ? _folders.LocateAtPath(folder, name, destination) : _folders.Locate(folder, name, destination, out beneathRoot);
        }

        Span<byte> encoded = stackalloc byte[1024];
        return Paths.KernelNames.TryEncode(file.Path.Name.AsSpan(), encoded, out var count) && count > 0
            ? (atPath ? _folders.LocateAtPath(folder, encoded[..count], destination) : _folders.Locate(folder, encoded[..count], destination, out beneathRoot))
            : InvalidName;
    }

    /// <summary>Whether the file opened is still the one listed; if not, reports why (see <see cref="IdentityCheck"/> for identities).</summary>
    [SupportedOSPlatform("linux")]
    private bool Matches(ScannedFile file, in StatxBuffer stx)
    {
        if (!stx.IsRegularFile)
        {
            ReportChanged(file, "no longer a regular file");
            return false;
        }

        if (stx.Ino != file.Identity.FileId || stx.Device != file.Identity.Device)
        {
            ReportError(file.Path.ToString(), ScanErrorKind.Changed, _identities.Explain(file, stx.DevMajor, stx.DevMinor, stx.Ino));
            return false;
        }

        _identities.NoteMatch();
        var what = file.DescribeChange((long)stx.Size, stx.LastWriteTimeNs, _sourceName);
        if (what.Length > 0)
        {
            ReportChanged(file, what);
            return false;
        }

        return true;
    }

    [SupportedOSPlatform("linux")]
    private void ReportErrno(string path, int errno)
    {
        ReportError(path, ScanErrorKinds.FromErrno(errno), Marshal.GetPInvokeErrorMessage(errno));
    }

    [SupportedOSPlatform("linux")]
    private static void AdviseLinux(int fd, ReadHint hint)
    {
        _ = Libc.FAdvise(fd, 0, 0, hint == ReadHint.Sequential ? Libc.POSIX_FADV_SEQUENTIAL : Libc.POSIX_FADV_RANDOM);
    }

    /// <summary>Most buffers one scatter read fills (payload pieces and the gaps between them).</summary>
    private const int MaxIoVecs = 128;

    /// <summary>
    /// One <c>preadv</c> of the file span holding the payload ranges from <paramref name="contentOffset"/>: the pieces go
    /// straight into <paramref name="destination"/> and the framing between them (gaps up to <see cref="MaxGap"/>) into a
    /// scratch buffer, so the pieces are not copied a second time; the span stops at <see cref="WindowSize"/>. Returns
    /// the payload bytes placed; <paramref name="spanRead"/> is every byte read, gaps included.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static int ScatterReadLinux(IContentMap map, int fd, long contentOffset, Span<byte> destination, out long spanRead)
    {
        var iov = stackalloc IoVec[MaxIoVecs];
        var isGap = stackalloc bool[MaxIoVecs];
        var scratch = stackalloc byte[MaxGap];
        var count = 0;
        var placed = 0;
        long start = -1, end = 0;
        spanRead = 0;
        fixed (byte* dest = destination)
        {
            while (placed < destination.Length && count < MaxIoVecs - 1)
            {
                var (fileOffset, available) = map.Map(contentOffset + placed);
                if (available <= 0)
                {
                    break;
                }

                if (start < 0)
                {
                    start = fileOffset;
                }
                else
                {
                    var gap = fileOffset - end;
                    if (gap < 0 || gap > MaxGap || fileOffset + 1 - start > WindowSize)
                    {
                        break;
                    }

                    if (gap > 0)
                    {
                        isGap[count] = true;
                        iov[count++] = new IoVec { Base = scratch, Length = (nuint)gap };
                    }
                }

                var piece = (int)Math.Min(Math.Min(available, destination.Length - placed), WindowSize - (fileOffset - start));
                isGap[count] = false;
                iov[count++] = new IoVec { Base = dest + placed, Length = (nuint)piece };
                placed += piece;
                end = fileOffset + piece;
            }

            if (count == 0)
            {
                return 0;
            }

            nint read;
            while ((read = Libc.PReadV(fd, iov, count, start)) < 0)
            {
                PositionalRead.ThrowUnlessInterrupted();
            }

            // A short read (the file shrank) fills a prefix of the buffers: count the payload part of it.
            spanRead = read;
            var payload = 0;
            for (var i = 0; i < count && read > 0; i++)
            {
                var filled = (int)Math.Min((long)iov[i].Length, read);
                read -= filled;
                if (!isGap[i])
                {
                    payload += filled;
                    if (filled < (int)iov[i].Length)
                    {
                        break;
                    }
                }
            }

            return payload;
        }
    }
}
