using System.Runtime.Versioning;
using Dedup.Core.Interop;

namespace Dedup.Core.Paths;

internal static partial class KernelPaths
{
    /// <summary>
    /// <c>realpath</c> of <paramref name="climbing"/>, or its lexical form when that names the very same folder (device
    /// and inode), so a root shows as typed unless its spelling is ambiguous; <see langword="null"/> when it cannot be resolved.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private static string? ResolveLinux(string climbing, out string? problem)
    {
        var real = Libc.RealPathOf(climbing, out var errno);
        if (real is null)
        {
            problem = Libc.Message(errno);
            return null;
        }

        problem = null;
        var lexical = Path.GetFullPath(climbing);
        return Identity(lexical) is { } spelled && Identity(real) is { } meant && spelled == meant ? lexical : real;
    }

    [SupportedOSPlatform("linux")]
    private static (ulong Device, ulong Inode)? Identity(string path) =>
        Libc.Statx(Libc.AT_FDCWD, path, 0, Libc.STATX_BASIC_STATS, out var status) == 0 ? (status.Device, status.Ino) : null;
}
