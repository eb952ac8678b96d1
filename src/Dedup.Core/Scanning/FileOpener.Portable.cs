using Dedup.Core.Enumeration;
using Dedup.Core.Reporting;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Scanning;

// Non-Linux platforms: BCL only. Compiled everywhere, exercised only where Linux code is not used (untested here).
internal static partial class FileOpener
{
    private static SafeFileHandle? TryOpenPortable(ScannedFile file, ScanState state)
    {
        var path = file.Path.ToString();
        try
        {
            var handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            if (RandomAccess.GetLength(handle) != file.Length)
            {
                ReportChanged(file, state, "size");
                handle.Dispose();
                return null;
            }

            return handle;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            ReportException(path, ex, state);
            return null;
        }
    }

    private static bool IsUnchangedPortable(ScannedFile file, ScanState state)
    {
        var info = new FileInfo(file.Path.ToString());
        if (!info.Exists)
        {
            state.ReportError(info.FullName, ScanErrorKind.NotFound, "File vanished during the scan");
            return false;
        }

        if (info.Length != file.Length || info.LastWriteTimeUtc != file.LastWriteTimeUtc)
        {
            ReportChanged(file, state, "size or time");
            return false;
        }

        return true;
    }

    internal static void ReportException(string path, Exception ex, ScanState state)
    {
        var kind = ex switch
        {
            FileNotFoundException or DirectoryNotFoundException => ScanErrorKind.NotFound,
            UnauthorizedAccessException => ScanErrorKind.AccessDenied,
            _ => ScanErrorKind.IOError,
        };
        state.ReportError(path, kind, ex.Message);
    }
}
