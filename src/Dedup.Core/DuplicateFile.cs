using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core;

/// <summary>
/// One distinct file in a <see cref="DuplicateGroup"/>: a file identity and all its names found. A record: two
/// entries are equal when every property is, <see cref="OtherLinks"/> compared name by name, except <see cref="OwnerId"/>,
/// <see cref="GroupId"/> and <see cref="Mode"/>: reports do not carry them, and a group read back from one equals the scanned group.
/// </summary>
public sealed record DuplicateFile
{
    private readonly AbsolutePath _path = null!;
    private readonly IReadOnlyList<AbsolutePath> _otherLinks = [];

    /// <summary>
    /// Describes one file of a group. Scans make these; the constructor is public so that code consuming results can
    /// be tested with results of its own (a file described here and acted on later is re-checked on disk first).
    /// </summary>
    /// <param name="path">Its first name.</param>
    /// <param name="otherLinks">Its other names (hard links), in path order; may be empty.</param>
    /// <param name="identity">Device and inode (<see cref="FileIdentity.FromUnixStat"/>).</param>
    /// <param name="length">Size in bytes.</param>
    /// <param name="linkCount">Hard-link count.</param>
    /// <param name="lastWriteTimeUtc">Last modification time, UTC.</param>
    /// <exception cref="ArgumentNullException"><paramref name="path"/> or <paramref name="otherLinks"/> is <see langword="null"/>.</exception>
    public DuplicateFile(AbsolutePath path, IReadOnlyList<AbsolutePath> otherLinks, FileIdentity identity, long length, int linkCount, DateTime lastWriteTimeUtc)
    {
        Path = path;
        OtherLinks = otherLinks;
        Identity = identity;
        Length = length;
        LinkCount = linkCount;
        LastWriteTimeUtc = lastWriteTimeUtc;
    }

    /// <summary>The file's first name in path order.</summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public AbsolutePath Path
    {
        get => _path;
        init => _path = value ?? throw new ArgumentNullException(nameof(Path));
    }

    /// <summary>Other names (hard links) of the same file found by the scan, in path order.</summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public IReadOnlyList<AbsolutePath> OtherLinks
    {
        get => _otherLinks;
        init => _otherLinks = value ?? throw new ArgumentNullException(nameof(OtherLinks));
    }

    /// <summary>Device and inode.</summary>
    public FileIdentity Identity { get; init; }

    /// <summary>Size in bytes.</summary>
    public long Length { get; init; }

    /// <summary>Hard-link count reported by the file system (may exceed the names found).</summary>
    public int LinkCount { get; init; }

    /// <summary>Last modification time, UTC, when scanned.</summary>
    public DateTime LastWriteTimeUtc { get; init; }

    /// <summary>
    /// Status change time (Unix ctime: moves with every write, chmod, chown, link or rename and cannot be set) as the
    /// scan's last check before reporting the group saw it, UTC, to 100 ns; <see cref="DateTime.MinValue"/> where the
    /// platform records none (Windows, macOS). Reports carry it so a later action can tell the file it finds from the
    /// one that was compared.
    /// </summary>
    public DateTime LastChangeTimeUtc { get; init; }

    /// <summary>
    /// The machine the file is on, in a scan with a catalog (<see cref="DuplicateFinderBuilder.UseCatalog"/>): the
    /// scanning machine's name for its own files, another name for a file another machine's last scan stored;
    /// <see langword="null"/> in a scan without a catalog.
    /// </summary>
    public string? Machine { get; init; }

    /// <summary>
    /// Whether the file is in its group by size and SHA-256 alone, never compared byte for byte with the group's other
    /// files: in a scan with a catalog (<see cref="DuplicateFinderBuilder.UseCatalog"/>), every file of another machine,
    /// and a file of the scanning machine that no other of its files matched byte for byte. <see langword="false"/> for
    /// the files the scan compared (every file of a group without <see cref="DuplicateGroup.Sha256"/>). Local actions
    /// act only on the files where it is <see langword="false"/>.
    /// </summary>
    public bool MatchedBySha256 { get; init; }

    /// <summary>
    /// The owner's user id (Unix <c>st_uid</c>) as the scan's last check before reporting the group saw it (a group
    /// from <see cref="Linking.DuplicateReportExtensions.RecheckGroups"/>: as the file is now); <see langword="null"/> where it is
    /// not known: on Windows and macOS (their scans record none), and for a file described by hand or read from a report
    /// without being looked up again. Hard and symbolic links need it to match the kept file's (see <see cref="Mode"/>).
    /// </summary>
    public uint? OwnerId { get; init; }

    /// <summary>The owning group's id (Unix <c>st_gid</c>), known where <see cref="OwnerId"/> is; otherwise <see langword="null"/>.</summary>
    public uint? GroupId { get; init; }

    /// <summary>
    /// The permission bits (Unix <c>st_mode &amp; 07777</c>: read, write and execute for owner, group and others, set-user-id,
    /// set-group-id, sticky), known where <see cref="OwnerId"/> is; otherwise <see langword="null"/>. A plan that links
    /// (hard or symbolic) joins only files whose owner, group and permissions agree, keeping one file per such set.
    /// </summary>
    public int? Mode { get; init; }

    /// <summary>Whether both describe the same file the same way: every property equal (owner, group and mode aside), <see cref="OtherLinks"/> name by name.</summary>
    /// <param name="other">The other entry.</param>
    /// <returns><see langword="true"/> when equal.</returns>
    public bool Equals(DuplicateFile? other) =>
        ReferenceEquals(this, other)
        || (other is not null
            && Path.Equals(other.Path)
            && Identity == other.Identity
            && Length == other.Length
            && LinkCount == other.LinkCount
            && LastWriteTimeUtc == other.LastWriteTimeUtc
            && LastChangeTimeUtc == other.LastChangeTimeUtc
            && string.Equals(Machine, other.Machine, StringComparison.Ordinal)
            && MatchedBySha256 == other.MatchedBySha256
            && OtherLinks.SequenceEqual(other.OtherLinks));

    /// <inheritdoc />
    public override int GetHashCode() => HashCode.Combine(Path, Identity, Length, OtherLinks.Count);

    /// <summary>The file's first name as a text report shows it (<see cref="AbsolutePath.ToDisplayString"/>: control characters escaped), for printing and the debugger; use <see cref="Path"/> to open it.</summary>
    /// <returns>For example <c>/photos/a.jpg</c>.</returns>
    public override string ToString() => Path.ToDisplayString();
}
