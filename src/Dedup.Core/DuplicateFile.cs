using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core;

/// <summary>One distinct file in a <see cref="DuplicateGroup"/>: a file identity and all its names found.</summary>
public sealed class DuplicateFile
{
    internal DuplicateFile(AbsolutePath path, IReadOnlyList<AbsolutePath> otherLinks, FileIdentity identity, long length, int linkCount, DateTime lastWriteTimeUtc)
    {
        Path = path;
        OtherLinks = otherLinks;
        Identity = identity;
        Length = length;
        LinkCount = linkCount;
        LastWriteTimeUtc = lastWriteTimeUtc;
    }

    /// <summary>The file's first name in path order.</summary>
    public AbsolutePath Path { get; }

    /// <summary>Other names (hard links) of the same file found by the scan, in path order.</summary>
    public IReadOnlyList<AbsolutePath> OtherLinks { get; }

    /// <summary>Device and inode.</summary>
    public FileIdentity Identity { get; }

    /// <summary>Size in bytes.</summary>
    public long Length { get; }

    /// <summary>Hard-link count reported by the file system (may exceed the names found).</summary>
    public int LinkCount { get; }

    /// <summary>Last modification time, UTC, when scanned.</summary>
    public DateTime LastWriteTimeUtc { get; }

    /// <inheritdoc />
    public override string ToString() => Path.ToString();
}
