using System.Runtime.InteropServices;
using Dedup.Core.Interop;
using Dedup.Core.Paths;

namespace Dedup.Core.Enumeration;

public sealed partial class ScannedFile
{
    /// <summary>
    /// Reads a regular file's metadata from the file system, as the library's own enumerator does on this platform:
    /// the kernel's identity and link count, size and modification time, and where the platform has them (Linux) the
    /// change time and owner, so that a cache and a catalog trust the file. A final symbolic link is not followed.
    /// </summary>
    /// <remarks>
    /// For an <see cref="IFileEnumerator"/> that knows only paths (a manifest, a database, a backup's file list): the
    /// values are the ones the scan compares when it opens the file, to the nanosecond. Linux: <c>statx</c>; Windows:
    /// the file's ID from its handle (see <see cref="FileIdentity"/>); macOS: <c>lstat</c>.
    /// </remarks>
    /// <param name="path">The file's absolute path.</param>
    /// <returns>The file as it is now.</returns>
    /// <exception cref="FileNotFoundException">Nothing is at <paramref name="path"/> (or a folder on the way is not one).</exception>
    /// <exception cref="UnauthorizedAccessException">This user may not look at the path.</exception>
    /// <exception cref="IOException">The path names something other than a regular file (a folder, a symbolic link, a
    /// device), or the file system refused for another reason.</exception>
    /// <exception cref="PlatformNotSupportedException">Not Linux, Windows or macOS.</exception>
    public static ScannedFile FromPath(AbsolutePath path)
    {
        ArgumentNullException.ThrowIfNull(path);
        if (OperatingSystem.IsLinux())
        {
            return FromPathLinux(path);
        }

        if (OperatingSystem.IsWindows())
        {
            return FromPathWindows(path);
        }

        if (OperatingSystem.IsMacOS())
        {
            return FromPathMacOS(path);
        }

        throw new PlatformNotSupportedException("ScannedFile.FromPath reads file identities on Linux, Windows and macOS only.");
    }

    /// <summary>The exception .NET's own file APIs throw for this errno (Unix).</summary>
    private static Exception StatFailed(AbsolutePath path, int errno)
    {
        var message = $"'{PathText.Escape(path.ToString())}': {Marshal.GetPInvokeErrorMessage(errno)}";
        return errno switch
        {
            Libc.ENOENT or Libc.ENOTDIR => new FileNotFoundException(message, path.ToString()),
            Libc.EACCES or Libc.EPERM => new UnauthorizedAccessException(message),
            _ => new IOException(message, errno),
        };
    }

    private static IOException NotRegular(AbsolutePath path, string what) =>
        new($"'{PathText.Escape(path.ToString())}' is {what}, not a regular file.");
}
