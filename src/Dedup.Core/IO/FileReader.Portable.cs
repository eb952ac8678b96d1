using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Reporting;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.IO;

// Non-Linux platforms: BCL only. Compiled everywhere, exercised only where Linux code is not used (untested here).
internal sealed partial class FileReader
{
    private OpenedFile TryOpenPortable(FileNode node)
    {
        var file = node.Primary;
        var path = file.Path.ToString();
        try
        {
            var handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            if (RandomAccess.GetLength(handle) != file.Length)
            {
                ReportChanged(file, "size");
                handle.Dispose();
                return OpenedFile.None;
            }

            if (OperatingSystem.IsWindows() && _identities.Trusted && !IsListedWindows(file, handle))
            {
                handle.Dispose();
                return OpenedFile.None;
            }

            return OpenedFile.Of(node, handle);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            ReportException(path, ex);
            return OpenedFile.None;
        }
    }

    /// <summary>
    /// Windows: whether the opened file has the identity the enumerator read (the same calls on this handle), so a
    /// name replaced since the listing, or a hard link folded with another file, is never read as the file listed.
    /// </summary>
    [System.Runtime.Versioning.SupportedOSPlatform("windows")]
    private bool IsListedWindows(ScannedFile file, SafeFileHandle handle)
    {
        if (!WindowsFileIds.TryRead(handle, out var found, out _, out var error))
        {
            ReportError(file.Path.ToString(), ScanErrorKind.IOError, "Cannot read the file's identity: " + System.Runtime.InteropServices.Marshal.GetPInvokeErrorMessage(error));
            return false;
        }

        if (found != file.Identity)
        {
            ReportChanged(file, $"replaced by another file: listed {file.Identity.Device:X8}/{file.Identity.FileId:X16}, found {found.Device:X8}/{found.FileId:X16}");
            return false;
        }

        _identities.NoteMatch();
        return true;
    }

    private bool IsUnchangedPortable(ScannedFile file)
    {
        var info = new FileInfo(file.Path.ToString());
        if (!info.Exists)
        {
            ReportError(info.FullName, ScanErrorKind.NotFound, "File vanished during the scan");
            return false;
        }

        var what = file.DescribeChange(info.Length, (info.LastWriteTimeUtc.Ticks - DateTime.UnixEpoch.Ticks) * 100, _sourceName);
        if (what.Length > 0)
        {
            ReportChanged(file, what);
            return false;
        }

        return true;
    }

    /// <summary>
    /// One read of the file span holding the payload ranges from <paramref name="contentOffset"/> into a window, then
    /// the pieces copied out. The window covers the next ranges while the gaps between them are small (chunk framing),
    /// so bytes of other tracks or metadata are not read for nothing. Returns the payload bytes placed;
    /// <paramref name="spanRead"/> is every byte read.
    /// </summary>
    private int GatherPortable(IContentMap map, long fileLength, SafeFileHandle handle, long contentOffset, Span<byte> destination, ref byte[]? window, out long spanRead)
    {
        window ??= _buffers.Rent(WindowSize);
        var (fileOffset, _) = map.Map(contentOffset);
        var span = Math.Min(map.CoalescedSpan(contentOffset, destination.Length, WindowSize, MaxGap), fileLength - fileOffset);
        var read = PositionalRead.Read(handle, window.AsSpan(0, (int)Math.Max(0, span)), fileOffset);
        spanRead = read;
        return Gather(map, contentOffset, destination, window.AsSpan(0, read), fileOffset);
    }

    /// <summary>Copies payload bytes from a window read at <paramref name="windowOffset"/>; returns how many.</summary>
    private static int Gather(IContentMap map, long contentOffset, Span<byte> destination, ReadOnlySpan<byte> window, long windowOffset)
    {
        var copied = 0;
        while (copied < destination.Length)
        {
            var (fileOffset, available) = map.Map(contentOffset + copied);
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
