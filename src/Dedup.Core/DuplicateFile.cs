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

    /// <summary>
    /// Status change time (Unix ctime: moves with every write, chmod, chown, link or rename and cannot be set) when
    /// scanned, UTC, to 100 ns; <see cref="DateTime.MinValue"/> where the platform's enumerator does not record it.
    /// Reports carry it so a later action can tell the file it finds from the one that was compared.
    /// </summary>
    public DateTime LastChangeTimeUtc { get; internal init; }

    /// <inheritdoc />
    public override string ToString() => Path.ToString();
}
