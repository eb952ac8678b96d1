using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Paths;

namespace Dedup.Core.Enumeration;

public sealed partial class ScannedFile
{
    /// <summary>One <c>statx</c> without following a final link: the fields the library's walk reads (ParallelFileEnumerator.Linux).</summary>
    [SupportedOSPlatform("linux")]
    private static ScannedFile FromPathLinux(AbsolutePath path)
    {
        var errno = Libc.LStat(path.ToString(), out var stx);
        if (errno != 0)
        {
            throw StatFailed(path, errno);
        }

        if (!stx.IsRegularFile)
        {
            throw NotRegular(path, stx.IsDirectory ? "a folder" : stx.IsSymbolicLink ? "a symbolic link" : "a special file");
        }

        return new ScannedFile(path, (long)stx.Size, FileIdentity.FromStatx(stx.DevMajor, stx.DevMinor, stx.Ino), (int)Math.Min(stx.NLink, int.MaxValue), stx.LastWriteTimeUtc)
        {
            LastWriteTimeNs = stx.LastWriteTimeNs,
            ChangeTimeNs = stx.ChangeTimeNs,
            OwnerId = stx.Uid,
        };
    }
}
