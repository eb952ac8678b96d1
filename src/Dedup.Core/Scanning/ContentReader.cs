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
    public static bool TryRead(FileNode node, ScanState state, long offset1, Span<byte> destination1, long offset2, Span<byte> destination2)
    {
        using var handle = FileOpener.TryOpen(node.Primary, state);
        if (handle is null)
        {
            return false;
        }

        return TryRead(node, handle, state, offset1, destination1) && (destination2.IsEmpty || TryRead(node, handle, state, offset2, destination2));
    }

    /// <summary>Reads exactly <paramref name="destination"/> at a content offset through an open handle.</summary>
    public static bool TryRead(FileNode node, SafeFileHandle handle, ScanState state, long offset, Span<byte> destination)
    {
        var file = node.Primary;
        try
        {
            var total = 0;
            while (total < destination.Length)
            {
                var (fileOffset, available) = node.MapOffset(offset + total);
                var want = destination[total..];
                if (available < want.Length)
                {
                    want = want[..(int)Math.Max(0, available)];
                }

                var read = want.IsEmpty ? 0 : RandomAccess.Read(handle, want, fileOffset);
                if (read == 0)
                {
                    state.ReportError(file.Path.ToString(), ScanErrorKind.Changed, "File shrank during the scan; left out");
                    return false;
                }

                total += read;
            }

            state.AddBytesRead(total);
            return true;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            FileOpener.ReportException(file.Path.ToString(), ex, state);
            return false;
        }
    }
}
