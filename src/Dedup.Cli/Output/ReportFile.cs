using System.Diagnostics;
using System.Runtime.InteropServices;

namespace Dedup.Cli.Output;

/// <summary>
/// Writes a report to standard output, or to a file through a temporary file beside it that replaces the file only
/// once complete: an interrupted or failed run leaves an existing report as it was. A path that leads to something other
/// than a regular file (<c>/dev/null</c>, a FIFO, a terminal) is written to directly: renaming over it would replace a
/// device node with a plain file. A symbolic link is followed: its target is replaced, the link kept.
/// </summary>
internal static class ReportFile
{
    public static async Task WriteAsync(FileInfo? output, Action<Stream> write, CancellationToken cancellationToken)
    {
        if (output is null)
        {
            await using var stdout = Console.OpenStandardOutput();
            await using var buffered = new BufferedStream(stdout, 256 * 1024);
            write(buffered);
            await buffered.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            return;
        }

        var target = output.Exists && output.LinkTarget is not null
            ? output.ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? output.FullName
            : output.FullName;
        if (IsSpecialFile(target))
        {
            await using var stream = new FileStream(target, FileMode.Open, FileAccess.Write, FileShare.ReadWrite, 1, FileOptions.None);
            await using var buffered = new BufferedStream(stream, 256 * 1024);
            write(buffered);
            await buffered.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            return;
        }

        var folder = Path.GetDirectoryName(target) ?? ".";
        var temporary = Path.Combine(folder, $".{Path.GetFileName(target)}.dedup-{Environment.ProcessId}.tmp");
        try
        {
            await using (var stream = new FileStream(temporary, FileMode.CreateNew, FileAccess.Write, FileShare.None, 1, FileOptions.None))
            {
                await using var buffered = new BufferedStream(stream, 256 * 1024);
                write(buffered);
                await buffered.FlushAsync(CancellationToken.None).ConfigureAwait(false);
                stream.Flush(flushToDisk: true); // the rename must not publish a file whose bytes are not on disk yet
            }

            cancellationToken.ThrowIfCancellationRequested();
            File.Move(temporary, target, overwrite: true);
        }
        catch
        {
            TryDelete(temporary);
            throw;
        }
    }

    /// <summary>Whether <paramref name="path"/> exists and is not a regular file or a folder (Linux: <c>statx</c>; elsewhere no such check).</summary>
    private static unsafe bool IsSpecialFile(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }

        const int AtFdCwd = -100, StatxType = 0x1, TypeMask = 0xF000, Regular = 0x8000, Folder = 0x4000;
        var buffer = stackalloc byte[256]; // struct statx; stx_mode is the u16 at offset 0x1C
        var bytes = System.Text.Encoding.UTF8.GetBytes(path + "\0");
        fixed (byte* p = bytes)
        {
            if (Statx(AtFdCwd, p, 0, StatxType, buffer) != 0)
            {
                return false; // gone or unreachable: the ordinary path reports what is wrong
            }
        }

        var type = *(ushort*)(buffer + 0x1C) & TypeMask;
        return type is not Regular and not Folder;
    }

    [DllImport("libc", EntryPoint = "statx", SetLastError = true)]
    private static extern unsafe int Statx(int dirfd, byte* path, int flags, uint mask, byte* buffer);

    private static void TryDelete(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (IOException ex)
        {
            Debug.WriteLine(ex.Message); // nothing more to do: the report was not published
        }
        catch (UnauthorizedAccessException ex)
        {
            Debug.WriteLine(ex.Message);
        }
    }
}
