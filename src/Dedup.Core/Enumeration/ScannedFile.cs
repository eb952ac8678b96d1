using Dedup.Core.Paths;

namespace Dedup.Core.Enumeration;

/// <summary>A regular file found by an <see cref="IFileEnumerator"/>, with the metadata the scan needs.</summary>
public sealed class ScannedFile
{
    /// <summary>Creates a scanned-file record.</summary>
    /// <param name="path">The file's absolute path.</param>
    /// <param name="length">Size in bytes.</param>
    /// <param name="identity">Device and inode (or the platform's equivalent).</param>
    /// <param name="linkCount">Number of hard links to the file.</param>
    /// <param name="lastWriteTimeUtc">Last modification time, UTC.</param>
    public ScannedFile(AbsolutePath path, long length, FileIdentity identity, int linkCount, DateTime lastWriteTimeUtc)
    {
        ArgumentNullException.ThrowIfNull(path);
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        Path = path;
        Length = length;
        Identity = identity;
        LinkCount = linkCount;
        LastWriteTimeUtc = lastWriteTimeUtc;
    }

    /// <summary>The file's absolute path.</summary>
    public AbsolutePath Path { get; }

    /// <summary>Size in bytes when scanned.</summary>
    public long Length { get; }

    /// <summary>Device and inode; equal identities are one file.</summary>
    public FileIdentity Identity { get; }

    /// <summary>Number of hard links to the file when scanned.</summary>
    public int LinkCount { get; }

    /// <summary>Last modification time when scanned, UTC.</summary>
    public DateTime LastWriteTimeUtc { get; }

    /// <summary>The owner's user id where the enumerator knows it (Linux), else <see cref="UnknownOwner"/>; it decides whether an open may ask not to update the access time. Held in the object's padding: no memory per file.</summary>
    internal uint OwnerId { get; init; } = UnknownOwner;

    internal const uint UnknownOwner = uint.MaxValue;

    /// <inheritdoc />
    public override string ToString() => Path.ToString();
}
