using System.Diagnostics;

namespace Dedup.Cli.Output;

/// <summary>
/// Writes a report to standard output, or to a file through a temporary file beside it that replaces the file only
/// once complete: an interrupted or failed run leaves an existing report as it was.
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

        var folder = output.DirectoryName ?? ".";
        var temporary = Path.Combine(folder, $".{output.Name}.dedup-{Environment.ProcessId}.tmp");
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
            File.Move(temporary, output.FullName, overwrite: true);
        }
        catch
        {
            TryDelete(temporary);
            throw;
        }
    }

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
