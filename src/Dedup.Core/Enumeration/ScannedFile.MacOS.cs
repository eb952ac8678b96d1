// Compiled on every platform; untested (no macOS machine).
using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Paths;

namespace Dedup.Core.Enumeration;

public sealed partial class ScannedFile
{
    /// <summary><c>lstat</c> for the type and identity (as <see cref="MacFileIds"/>), size and time as the portable enumerator gives them.</summary>
    [SupportedOSPlatform("macos")]
    private static ScannedFile FromPathMacOS(AbsolutePath path)
    {
        var text = path.ToString();
        var errno = LibSystem.Stat(text, followLink: false, out var status);
        if (errno != 0)
        {
            throw StatFailed(path, errno);
        }

        if ((status.Mode & Libc.S_IFMT) != Libc.S_IFREG)
        {
            throw NotRegular(path, "a folder, a symbolic link or a special file");
        }

        var info = new FileInfo(text);
        return new ScannedFile(path, info.Length, new FileIdentity((uint)status.Device, status.Inode), status.LinkCount, info.LastWriteTimeUtc);
    }
}
