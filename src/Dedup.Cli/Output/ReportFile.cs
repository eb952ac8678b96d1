using System.Diagnostics;
using Dedup.Cli.Interop;

namespace Dedup.Cli.Output;

/// <summary>
/// Writes a report to where <see cref="ReportTarget"/> leads: through an open descriptor (standard output, or the file
/// a shell already opened as one: never renamed over), in place to a device or FIFO, or to a regular file through a
/// temporary file beside it that replaces the file only once complete, with the replaced file's owner, group and mode:
/// an interrupted or failed run leaves an existing report as it was.
/// </summary>
internal static class ReportFile
{
    private const int BufferSize = 256 * 1024;

    public static async Task WriteAsync(ReportTarget target, Action<Stream> write, CancellationToken cancellationToken)
    {
        if (target.Path is null)
        {
            await using var descriptor = OpenDescriptor(target.Descriptor);
            await using var buffered = new BufferedStream(descriptor, BufferSize);
            write(buffered);
            await buffered.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            return;
        }

        if (target.InPlace)
        {
            await using var stream = new FileStream(target.Path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite, 1, FileOptions.None);
            await using var buffered = new BufferedStream(stream, BufferSize);
            write(buffered);
            await buffered.FlushAsync(CancellationToken.None).ConfigureAwait(false);
            return;
        }

        var path = target.Path;
        var folder = Path.GetDirectoryName(path) ?? ".";
        var temporary = Path.Combine(folder, $".{Path.GetFileName(path)}.dedup-{Environment.ProcessId}.tmp");
        var replaced = OperatingSystem.IsLinux() ? RegularFileAt(path) : null;
        try
        {
            // Replacing a report: the new one is private until it has the old one's owner and mode (0600 stays 0600).
            var options = new FileStreamOptions { Mode = FileMode.CreateNew, Access = FileAccess.Write, Share = FileShare.None, BufferSize = 1 };
            if (replaced is not null && !OperatingSystem.IsWindows())
            {
                options.UnixCreateMode = UnixFileMode.UserRead | UnixFileMode.UserWrite;
            }

            await using (var stream = new FileStream(temporary, options))
            {
                if (replaced is { } old && OperatingSystem.IsLinux())
                {
                    KeepOwnerAndMode(stream, old);
                }

                await using var buffered = new BufferedStream(stream, BufferSize);
                write(buffered);
                await buffered.FlushAsync(CancellationToken.None).ConfigureAwait(false);
                stream.Flush(flushToDisk: true); // the rename must not publish a file whose bytes are not on disk yet
            }

            cancellationToken.ThrowIfCancellationRequested();
            File.Move(temporary, path, overwrite: true);
        }
        catch
        {
            TryDelete(temporary);
            throw;
        }
    }

    /// <summary>The regular file a report replaces (not a link: the rename replaces the name itself), or <see langword="null"/>.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static Libc.FileStatus? RegularFileAt(string path) =>
        Libc.StatusOf(path, follow: false) is { Type: Libc.Regular } facts ? facts : null;

    /// <summary>The owner and group first: changing them clears set-user-ID and set-group-ID bits, which the mode then restores.</summary>
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    private static void KeepOwnerAndMode(FileStream stream, Libc.FileStatus old)
    {
        if (Libc.StatusOf((int)stream.SafeFileHandle.DangerousGetHandle()) is not { } created || created.Owner != old.Owner || created.Group != old.Group)
        {
            OutputFacts.SetOwner(stream.SafeFileHandle, old.Owner, old.Group);
        }

        File.SetUnixFileMode(stream.SafeFileHandle, (UnixFileMode)(old.Mode & 0xFFF));
    }

    private static Stream OpenDescriptor(int descriptor) => descriptor switch
    {
        1 => Console.OpenStandardOutput(),
        2 => Console.OpenStandardError(),
        _ when OperatingSystem.IsLinux() => new DescriptorStream(descriptor),
        _ => throw new InvalidOperationException($"descriptor {descriptor}"),
    };

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
