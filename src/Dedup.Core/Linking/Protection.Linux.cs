using System.Runtime.Versioning;
using Dedup.Core.Interop;

namespace Dedup.Core.Linking;

// Linux: a folder's identity, links followed, for "under" by identity.
internal sealed partial class ProtectionCheck
{
    [SupportedOSPlatform("linux")]
    private static partial (ulong Device, ulong Inode)? IdentityOf(string path)
        => Libc.Statx(Libc.AT_FDCWD, path, 0, Libc.STATX_BASIC_STATS, out var status) == 0 && status.IsDirectory ? (status.Device, status.Ino) : null;
}
