using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking;

// Linux: a folder's identity, links followed, for "under" by identity.
internal sealed partial class ProtectionCheck
{
    /// <summary>
    /// The identities of the protected and reference folders, and of every folder above each, as named and as it really
    /// is (realpath): a folder acted on whole must not hold the real folder either.
    /// </summary>
    [SupportedOSPlatform("linux")]
    private partial void ReadIdentities()
    {
        var folders = _protection.Protected.Select(f => (Folder: f, Flags: UnderProtected)).Concat(_protection.Reference.Select(f => (Folder: f, Flags: UnderProtected | UnderReference)));
        foreach (var (folder, flags) in folders)
        {
            var path = folder.ToString();
            if (IdentityOf(path) is { } identity)
            {
                Add(_identities, identity, flags);
            }

            foreach (var start in new[] { folder, Libc.RealPathOf(path, out _) is { } real ? AbsolutePath.Parse(real) : null })
            {
                for (var node = start; node is not null; node = node.Parent)
                {
                    if (IdentityOf(node.ToString()) is { } above)
                    {
                        Add(_aboveIdentities, above, flags);
                    }
                }
            }
        }
    }

    [SupportedOSPlatform("linux")]
    private static partial (ulong Device, ulong Inode)? IdentityOf(string path)
        => Libc.Statx(Libc.AT_FDCWD, path, 0, Libc.STATX_BASIC_STATS, out var status) == 0 && status.IsDirectory ? (status.Device, status.Ino) : null;
}
