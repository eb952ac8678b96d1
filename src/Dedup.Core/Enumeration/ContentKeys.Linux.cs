using System.IO.Hashing;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Interop;

namespace Dedup.Core.Enumeration;

/// <summary>
/// Keys a small file by a hash of its bytes while its folder is listed (<see cref="FileTable.KeyedLength"/>): opened by
/// its name relative to the folder's descriptor, which is the cheapest open it will ever get (no path walked), where the
/// compare stage would open it below the nearest cached ancestor, in size order, with the walks and cache misses that
/// cost (a warm 1 M scan: −15 % wall time, docs/architecture.md, Enumerate).
/// </summary>
/// <remarks>
/// The key only tells files apart: files of one size with equal keys are still compared byte for byte by the compare
/// stage. A key is given only when the file read is the file listed (same device, inode, size and modification time by
/// <c>fstat</c> of the descriptor) and it read exactly as many bytes as listed (while listing, all from the page cache:
/// what is not there is keyed by <see cref="Scanning.KeyPass"/> after the listing); otherwise the row has none, and the
/// compare stage reads it as before (reporting any error then, once). A size with a row without a key is not split by
/// key at the barrier.
/// </remarks>
[SupportedOSPlatform("linux")]
internal static unsafe class ContentKeys
{
    private const int MaxLength = FileTable.MaxKeyedLength;

    private static readonly uint s_effectiveUid = Libc.GetEuid();

    /// <summary>The key of <paramref name="bytes"/>, never 0 (0 means no key).</summary>
    public static uint Of(ReadOnlySpan<byte> bytes)
    {
        var key = (uint)XxHash3.HashToUInt64(bytes);
        return key == 0 ? 1 : key;
    }

    /// <summary>
    /// Reads the file <paramref name="name"/> of the folder <paramref name="dirFd"/>, listed as <paramref name="listed"/>,
    /// from the page cache only; its key, or 0.
    /// </summary>
    public static uint Read(int dirFd, byte* name, StatxBuffer* listed)
        => Read(dirFd, name, listed->Device, listed->Ino, (long)listed->Size, listed->LastWriteTimeNs, listed->Uid, cachedOnly: true);

    /// <summary>
    /// Reads the file <paramref name="name"/> of the folder <paramref name="dirFd"/>, listed as <paramref name="row"/>,
    /// waiting for the disk if it must (<see cref="Scanning.KeyPass"/>); its key, or 0.
    /// </summary>
    public static uint Read(int dirFd, byte* name, in FileRow row)
        => Read(dirFd, name, row.Identity.Device, row.Identity.FileId, row.Length, row.LastWriteTimeNs, row.OwnerId, cachedOnly: false);

    [SkipLocalsInit] // only the bytes read are hashed: zeroing 8 KiB per small file would be ~7 GB of memset on 1 M files
    private static uint Read(int dirFd, byte* name, ulong device, ulong inode, long size, long lastWriteTimeNs, uint owner, bool cachedOnly)
    {
        if (size <= 0 || size > MaxLength)
        {
            return 0;
        }

        var length = (int)size;

        // As the compare stage opens: O_NONBLOCK so a FIFO swapped in since the listing cannot hang the walk, O_NOFOLLOW
        // so a link swapped in is not followed, O_NOATIME where the kernel allows it (files we own, or as root).
        var flags = Libc.O_RDONLY | Libc.O_CLOEXEC | Libc.O_NONBLOCK | Libc.O_NOFOLLOW;
        var noAtime = s_effectiveUid == 0 || owner == s_effectiveUid;
        var fd = Libc.OpenAt(dirFd, name, noAtime ? flags | Libc.O_NOATIME : flags, 0);
        if (fd < 0 && noAtime && Marshal.GetLastPInvokeError() == Libc.EPERM)
        {
            fd = Libc.OpenAt(dirFd, name, flags, 0);
        }

        if (fd < 0)
        {
            return 0;
        }

        try
        {
            StatxBuffer opened;
            byte empty = 0;
            if (Libc.Statx(fd, &empty, Libc.AT_EMPTY_PATH | Libc.AT_STATX_DONT_SYNC, Libc.STATX_BASIC_STATS, &opened) != 0
                || !opened.IsRegularFile
                || opened.Ino != inode
                || opened.Device != device
                || opened.Size != (ulong)size
                || opened.LastWriteTimeNs != lastWriteTimeNs)
            {
                return 0;
            }

            // One byte more than listed: a file that grew since reads long and gets no key. While listing, only from the
            // page cache (RWF_NOWAIT): the walk's threads waiting on one block each made a cold 1 M scan take 257 s,
            // against 123 s; a read that fails there still starts the kernel's read-ahead, so the pages are mostly in
            // memory by the time the key pass reads them (docs/architecture.md, Enumerate and The size barrier).
            var buffer = stackalloc byte[MaxLength + 1];
            nint read;
            if (cachedOnly)
            {
                var iov = new IoVec { Base = buffer, Length = (nuint)(length + 1) };
                read = Libc.PReadV2(fd, &iov, 1, 0, Libc.RWF_NOWAIT);
            }
            else
            {
                while ((read = Libc.PRead(fd, buffer, (nuint)(length + 1), 0)) < 0 && Marshal.GetLastPInvokeError() == Libc.EINTR)
                {
                }
            }

            return read == length ? Of(new ReadOnlySpan<byte>(buffer, length)) : 0;
        }
        finally
        {
            _ = Libc.Close(fd);
        }
    }
}
