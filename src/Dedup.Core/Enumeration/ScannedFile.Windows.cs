// Compiled on every platform; untested on Windows proper (the library's Windows enumerator reads the same values).
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Paths;

namespace Dedup.Core.Enumeration;

public sealed partial class ScannedFile
{
    /// <summary>Size and time as the Windows enumerator gives them (<see cref="FileInfo"/>), the ID from the name's own handle.</summary>
    [SupportedOSPlatform("windows")]
    private static ScannedFile FromPathWindows(AbsolutePath path)
    {
        var text = path.ToString();
        var info = new FileInfo(text);
        if ((info.Attributes & FileAttributes.ReparsePoint) != 0 && info.Exists)
        {
            throw NotRegular(path, "a reparse point (a symbolic link or junction)");
        }

        if (!info.Exists)
        {
            throw Directory.Exists(text) ? NotRegular(path, "a folder") : new FileNotFoundException($"'{PathText.Escape(text)}' does not exist.", text);
        }

        if (!WindowsFileIds.TryGet(text, followLink: false, out var identity, out var links, out var error))
        {
            var message = $"'{PathText.Escape(text)}': {Marshal.GetPInvokeErrorMessage(error)}";
            throw error switch
            {
                Kernel32.ERROR_FILE_NOT_FOUND or Kernel32.ERROR_PATH_NOT_FOUND => new FileNotFoundException(message, text),
                Kernel32.ERROR_ACCESS_DENIED => new UnauthorizedAccessException(message),
                _ => new IOException(message),
            };
        }

        return new ScannedFile(path, info.Length, identity, links, info.LastWriteTimeUtc);
    }
}
