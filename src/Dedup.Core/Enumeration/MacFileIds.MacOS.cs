// Compiled on every platform; untested (no macOS machine).
using System.Runtime.Versioning;
using Dedup.Core.Interop;

namespace Dedup.Core.Enumeration;

/// <summary>macOS file identities from lstat(2)/stat(2): <c>new FileIdentity((uint)st_dev, st_ino)</c>, as the macOS re-checks before Delete and Trash read them (fstat).</summary>
[SupportedOSPlatform("macos")]
internal static class MacFileIds
{
    /// <summary>The identity and link count of <paramref name="path"/> (what a final symbolic link leads to when <paramref name="followLink"/>); false with the errno.</summary>
    public static bool TryGet(string path, bool followLink, out FileIdentity identity, out int linkCount, out int errno)
    {
        errno = LibSystem.Stat(path, followLink, out var status);
        identity = errno == 0 ? new FileIdentity((uint)status.Device, status.Inode) : default;
        linkCount = errno == 0 ? status.LinkCount : 0;
        return errno == 0;
    }
}
