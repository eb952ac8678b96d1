using Dedup.Core.Interop;
using Dedup.Core.Reporting;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Scanning;

/// <summary>
/// Thread-safe positional reads of a file's content (whole file, or media payload ranges), for stages
/// that read each file once and may do so from several threads.
/// </summary>
internal static class ContentReader
{
    /// <summary>Opens the file, reads each (offset, destination) pair exactly, closes it.</summary>
    /// <remarks>With <c>recordPhysicalOffset</c> (rotational disks) the first extent's physical offset (FIEMAP) is
    /// noted while the file is open, so later full reads can follow disk order. With <c>probe</c> the kernel is told
    /// not to read ahead around these small reads.</remarks>
    public static bool TryRead(FileNode node, ScanState state, long offset1, Span<byte> destination1, long offset2, Span<byte> destination2, bool recordPhysicalOffset = false, bool probe = false)
    {
        using var handle = FileOpener.TryOpen(node.Primary, state);
        if (handle is null)
        {
            return false;
        }

        if (probe)
        {
            FileOpener.Advise(handle, sequential: false);
        }

        if (recordPhysicalOffset && node.PhysicalOffset < 0)
        {
            node.PhysicalOffset = Topology.PhysicalOrder.FirstExtentOffset(handle);
        }

        return TryRead(node, handle, state, offset1, destination1) && (destination2.IsEmpty || TryRead(node, handle, state, offset2, destination2));
    }

    /// <summary>Reads exactly <paramref name="destination"/> at a content offset through an open handle.</summary>
    public static bool TryRead(FileNode node, SafeFileHandle handle, ScanState state, long offset, Span<byte> destination)
    {
        var file = node.Primary;
        byte[]? window = null;
        try
        {
            var total = 0;
            while (total < destination.Length)
            {
                var (fileOffset, available) = node.MapOffset(offset + total);
                var remaining = destination.Length - total;
                int read;
                if (available >= remaining || available >= GatherBelow)
                {
                    var want = (int)Math.Min(available, remaining);
                    read = want <= 0 ? 0 : PositionalRead.Read(handle, destination.Slice(total, want), fileOffset);
                    state.AddBytesRead(read);
                    total += read;
                }
                else if (OperatingSystem.IsLinux())
                {
                    // Many small payload ranges (PNG IDAT chunks, MP4 samples): one preadv of the span that
                    // holds them, payload pieces straight into place and the framing between them into a
                    // scratch buffer, so the pieces are not copied a second time.
                    read = ScatterRead(node, handle, offset + total, destination[total..], out var spanRead);
                    state.AddBytesRead(spanRead);
                    total += read;
                }
                else
                {
                    // Many small payload ranges (PNG IDAT chunks, MP4 samples): one read of the span
                    // that holds them, then copy the payload pieces out, instead of a read per range.
                    // The window covers the next ranges while the gaps between them are small (chunk
                    // framing), so bytes of other tracks or metadata are not read for nothing.
                    window ??= state.Options.Buffers.Rent(WindowSize);
                    var span = Math.Min(node.CoalescedSpan(offset + total, remaining, WindowSize, MaxGap), file.Length - fileOffset);
                    read = PositionalRead.Read(handle, window.AsSpan(0, (int)Math.Max(0, span)), fileOffset);
                    state.AddBytesRead(read);
                    total += Gather(node, offset + total, destination[total..], window.AsSpan(0, read), fileOffset);
                }

                if (read == 0)
                {
                    state.ReportError(file.Path.ToString(), ScanErrorKind.Changed, "File shrank during the scan; left out");
                    return false;
                }
            }

            return true;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            FileOpener.ReportException(file.Path.ToString(), ex, state);
            return false;
        }
        finally
        {
            if (window is not null)
            {
                state.Options.Buffers.Return(window);
            }
        }
    }

    /// <summary>
    /// Media mode's first stage: feeds a PNG's bytes to its chunk walk as they are read for comparison. Called for
    /// whole reads (small files, comparer strategies), not for probes: a file told apart by its probe would only
    /// hold a list it never needs.
    /// </summary>
    public static void FollowPng(FileNode node, ScanState state, long offset, ReadOnlySpan<byte> bytes)
    {
        if (node.Ranges is not null || !state.Options.MediaMode)
        {
            return;
        }

        if (node.PngStream is null && Media.PngChunkStream.Starts(offset, bytes))
        {
            node.PngStream = new Media.PngChunkStream(node.Primary.Length, state.MediaOptions, state.PngRanges);
        }

        node.PngStream?.Feed(offset, bytes);
    }

    /// <summary>Most buffers one scatter read fills (payload pieces and the gaps between them).</summary>
    private const int MaxIoVecs = 128;

    /// <summary>
    /// Reads the payload from <paramref name="contentOffset"/> into <paramref name="destination"/> with one
    /// <c>preadv</c> over the file span holding the next ranges (gaps up to <see cref="MaxGap"/> go to a scratch
    /// buffer; the span stops at <see cref="WindowSize"/>); returns the payload bytes placed.
    /// </summary>
    private static unsafe int ScatterRead(FileNode node, SafeFileHandle handle, long contentOffset, Span<byte> destination, out long spanRead)
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
                var (fileOffset, available) = node.MapOffset(contentOffset + placed);
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

            var added = false;
            try
            {
                handle.DangerousAddRef(ref added);
                nint read;
                while ((read = Libc.PReadV((int)handle.DangerousGetHandle(), iov, count, start)) < 0)
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
            finally
            {
                if (added)
                {
                    handle.DangerousRelease();
                }
            }
        }
    }

    /// <summary>Ranges shorter than this are gathered from one larger read.</summary>
    private const int GatherBelow = 64 * 1024;

    private const int WindowSize = 256 * 1024;

    /// <summary>Gaps up to this are read through rather than skipped with another read.</summary>
    private const int MaxGap = 4096;

    /// <summary>Copies payload bytes from a window read at <paramref name="windowOffset"/>; returns how many.</summary>
    private static int Gather(FileNode node, long contentOffset, Span<byte> destination, ReadOnlySpan<byte> window, long windowOffset)
    {
        var copied = 0;
        while (copied < destination.Length)
        {
            var (fileOffset, available) = node.MapOffset(contentOffset + copied);
            var start = fileOffset - windowOffset;
            if (available <= 0 || start < 0 || start >= window.Length)
            {
                break;
            }

            var count = (int)Math.Min(Math.Min(available, destination.Length - copied), window.Length - start);
            window.Slice((int)start, count).CopyTo(destination[copied..]);
            copied += count;
        }

        return copied;
    }
}
