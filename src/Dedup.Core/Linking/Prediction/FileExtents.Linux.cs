using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;

namespace Dedup.Core.Linking.Prediction;

/// <summary>
/// A file's extent map (FS_IOC_FIEMAP), for what a clone or a dedupe would really free: only extents no other file
/// shares are freed when the duplicate's data is replaced, and a duplicate that already uses the kept file's extents
/// has nothing left to share.
/// </summary>
[SupportedOSPlatform("linux")]
internal static unsafe class FileExtents
{
    private const int HeaderSize = 32;
    private const int ExtentSize = 56;
    private const int Batch = 256;

    /// <summary>Files with more extents than this are not mapped (the plan then counts their whole length).</summary>
    private const int MaxExtents = 1 << 20;

    private const uint Last = 0x1;
    private const uint Unknown = 0x2;    // no physical location yet (also set with DELALLOC)
    private const uint Shared = 0x2000;

    internal readonly record struct Extent(ulong Logical, ulong Physical, ulong Length, uint Flags)
    {
        public bool IsShared => (Flags & Shared) != 0;

        public bool IsLocated => (Flags & Unknown) == 0;
    }

    /// <summary>The extents of the file at <paramref name="path"/> when it is still <paramref name="identity"/>; <see langword="null"/> when that cannot be told.</summary>
    public static List<Extent>? Of(string path, FileIdentity identity)
    {
        var fd = Libc.OpenAt(Libc.AT_FDCWD, path, Libc.O_RDONLY | Libc.O_NOFOLLOW | Libc.O_NONBLOCK | Libc.O_CLOEXEC, 0);
        // Stryker disable once Block : without the return, fstat(-1) fails and null is returned as well
        if (fd < 0)
        {
            return null;
        }

        try
        {
            return Libc.FStat(fd, out var status) == 0 && status.IsRegularFile && status.Device == identity.Device && status.Ino == identity.FileId
                ? Read(fd)
                : null;
        }
        finally
        {
            _ = Libc.Close(fd);
        }
    }

    /// <summary>Bytes of the first <paramref name="length"/> that lie in extents no other file shares: what replacing them frees.</summary>
    public static long UnsharedBytes(List<Extent> extents, long length)
    {
        long total = 0;
        foreach (var extent in extents)
        {
            if (!extent.IsShared && extent.Logical < (ulong)length)
            {
                total += (long)Math.Min(extent.Length, (ulong)length - extent.Logical);
            }
        }

        return total;
    }

    /// <summary>
    /// Whether every extent of <paramref name="duplicate"/> is shared and lies, at the same offset in the file, on the
    /// same disk bytes as <paramref name="kept"/>'s: a clone or dedupe already done.
    /// </summary>
    public static bool AllSharedWith(List<Extent> duplicate, List<Extent> kept)
    {
        if (duplicate.Count == 0)
        {
            return false;
        }

        var k = 0;
        foreach (var extent in duplicate)
        {
            if (!extent.IsShared || !extent.IsLocated)
            {
                return false;
            }

            // Both lists are in file order: the kept extent holding this one's start is at or after the previous one's.
            while (k < kept.Count && kept[k].Logical + kept[k].Length <= extent.Logical)
            {
                k++;
            }

            if (k == kept.Count)
            {
                return false;
            }

            var holder = kept[k];
            if (!holder.IsLocated || holder.Logical > extent.Logical || extent.Logical + extent.Length > holder.Logical + holder.Length
                || holder.Physical + (extent.Logical - holder.Logical) != extent.Physical)
            {
                return false;
            }
        }

        return true;
    }

    private static List<Extent>? Read(int fd)
    {
        var size = HeaderSize + (Batch * ExtentSize);
        var buffer = stackalloc byte[size];
        var extents = new List<Extent>();
        ulong start = 0;
        while (extents.Count < MaxExtents)
        {
            // Stryker disable once Statement : stackalloc zeroes the buffer and the kernel writes back only the header and the extents it maps
            new Span<byte>(buffer, size).Clear();
            *(ulong*)buffer = start;                        // fm_start
            *(ulong*)(buffer + 8) = ulong.MaxValue - start; // fm_length: to the end
            *(uint*)(buffer + 24) = Batch;                  // fm_extent_count
            if (Libc.Ioctl(fd, Libc.FS_IOC_FIEMAP, buffer) != 0)
            {
                return null; // no FIEMAP here (tmpfs, network): the whole length counts
            }

            var mapped = *(uint*)(buffer + 20);
            if (mapped == 0)
            {
                return extents;
            }

            for (var i = 0; i < mapped; i++)
            {
                var e = buffer + HeaderSize + (i * ExtentSize);
                var extent = new Extent(*(ulong*)e, *(ulong*)(e + 8), *(ulong*)(e + 16), *(uint*)(e + 40));
                extents.Add(extent);
                // Stryker disable once Block : past the last extent the next FIEMAP maps none: the same list, one call later
                if ((extent.Flags & Last) != 0)
                {
                    return extents;
                }
            }

            var tail = extents[^1];
            start = tail.Logical + tail.Length;
        }

        return null;
    }
}
