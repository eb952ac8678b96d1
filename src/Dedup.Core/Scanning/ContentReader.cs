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
    /// noted while the file is open, so later full reads can follow disk order.</remarks>
    /// <remarks>With <c>wholeContent</c> (the destination holds the file's entire content) the file is checked again
    /// through the still-open handle after the read, and <see cref="FileNode.CheckedAfterRead"/> is set, so the check
    /// before its group is reported need not look the path up again.</remarks>
    public static bool TryRead(FileNode node, ScanState state, long offset1, Span<byte> destination1, long offset2, Span<byte> destination2, bool recordPhysicalOffset = false, bool wholeContent = false)
    {
        using var handle = FileOpener.TryOpen(node.Primary, state);
        if (handle is null)
        {
            return false;
        }

        if (recordPhysicalOffset && node.PhysicalOffset < 0)
        {
            node.PhysicalOffset = Topology.PhysicalOrder.FirstExtentOffset(handle);
        }

        if (!TryRead(node, handle, state, offset1, destination1) || (!destination2.IsEmpty && !TryRead(node, handle, state, offset2, destination2)))
        {
            return false;
        }

        if (wholeContent)
        {
            if (!FileOpener.IsUnchanged(node.Primary, handle, state))
            {
                return false;
            }

            node.CheckedAfterRead = true;
        }

        return true;
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
                    read = want <= 0 ? 0 : ReadAt(handle, destination.Slice(total, want), fileOffset);
                    state.AddBytesRead(read);
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
                    read = ReadAt(handle, window.AsSpan(0, (int)Math.Max(0, span)), fileOffset);
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
    /// One positional read. On Linux a direct <c>pread</c> on the handle's descriptor: for a handle made
    /// from a raw descriptor, <see cref="RandomAccess.Read(SafeFileHandle, Span{byte}, long)"/> first asks the
    /// kernel whether the file is seekable (an extra <c>lseek</c> per open file, measurable on many files).
    /// </summary>
    private static unsafe int ReadAt(SafeFileHandle handle, Span<byte> destination, long offset)
    {
        if (!OperatingSystem.IsLinux())
        {
            return RandomAccess.Read(handle, destination, offset);
        }

        var added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            fixed (byte* p = destination)
            {
                while (true)
                {
                    var read = Interop.Libc.PRead((int)handle.DangerousGetHandle(), p, (nuint)destination.Length, offset);
                    if (read >= 0)
                    {
                        return (int)read;
                    }

                    var errno = System.Runtime.InteropServices.Marshal.GetLastPInvokeError();
                    if (errno != Interop.Libc.EINTR)
                    {
                        throw new IOException(System.Runtime.InteropServices.Marshal.GetPInvokeErrorMessage(errno), errno);
                    }
                }
            }
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
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
