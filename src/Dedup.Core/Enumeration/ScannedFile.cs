using Dedup.Core.Paths;

namespace Dedup.Core.Enumeration;

/// <summary>A regular file found by an <see cref="IFileEnumerator"/>, with the metadata the scan needs.</summary>
/// <remarks>
/// A custom enumerator that knows only paths makes each file with <see cref="FromPath"/>, which reads the metadata from
/// the file system as the library's own enumerator does; the scan's cache and catalog then trust the files as they
/// trust its own. The constructor is for sources that have the metadata already: its values must be the file system's
/// (the identity in <see cref="FileIdentity"/>'s encoding; the modification time to 100 ns, or in whole microseconds,
/// milliseconds or seconds, then compared at that precision), as the scan compares them with the file it opens and
/// leaves out a file that differs. Give <see cref="LastChangeTimeUtc"/> too, or the cache cannot trust the file
/// (<see cref="Enumeration.FileStamp.IsComplete"/>).
/// </remarks>
public sealed partial class ScannedFile
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
        _path = path;
        Length = length;
        Identity = identity;
        LinkCount = linkCount;
        LastWriteTimeUtc = lastWriteTimeUtc;
    }

    /// <summary>A file of the scan's table: its path is made only if asked for (errors, reports); opening uses <see cref="Folder"/> and the name's bytes.</summary>
    internal ScannedFile(FileTable table, int row)
        : this(in table[row], path: null)
    {
        _table = table;
        _row = row;
    }

    /// <summary>A file with the metadata of <paramref name="row"/> (its folder and name fields are not read).</summary>
    internal ScannedFile(in FileRow row, AbsolutePath? path)
    {
        _path = path;
        Length = row.Length;
        Identity = row.Identity;
        LinkCount = row.LinkCount;
        LastWriteTimeUtc = FileTable.ToDateTime(row.LastWriteTimeNs);
        OwnerId = row.OwnerId;
        _lastWriteTimeNs = row.LastWriteTimeNs;
        ChangeTimeNs = row.ChangeTimeNs;
    }

    /// <summary>The metadata as a row (folder and name left for the table to fill).</summary>
    internal FileRow ToRow() => new()
    {
        Identity = Identity,
        Length = Length,
        LastWriteTimeNs = LastWriteTimeNs,
        ChangeTimeNs = ChangeTimeNs,
        LinkCount = LinkCount,
        OwnerId = OwnerId,
    };

    private readonly FileTable? _table;
    private readonly int _row;
    private AbsolutePath? _path;

    /// <summary>The file's absolute path.</summary>
    public AbsolutePath Path => _path ??= _table!.GetPath(_row);

    /// <summary>The folder holding the file, without making the file's own path.</summary>
    internal AbsolutePath? Folder => _table is null ? Path.Parent : _table.GetFolder(_table[_row].Folder);

    /// <summary>The name as the kernel's bytes when the file is a table row named by them; else empty (use <see cref="Path"/>).</summary>
    internal ReadOnlySpan<byte> NameBytes => _table is null ? default : _table.Names.GetBytes(_table[_row].Name);

    /// <summary>Size in bytes when scanned.</summary>
    public long Length { get; }

    /// <summary>Device and inode; equal identities are one file.</summary>
    public FileIdentity Identity { get; }

    /// <summary>Number of hard links to the file when scanned.</summary>
    public int LinkCount { get; }

    /// <summary>Last modification time when scanned, UTC.</summary>
    public DateTime LastWriteTimeUtc { get; }

    /// <summary>
    /// The owner's user id where the source knows it (Unix: <c>st_uid</c>), else <see cref="uint.MaxValue"/> (the
    /// <c>(uid_t)-1</c> no user has); it decides whether an open may ask not to update the access time.
    /// </summary>
    public uint OwnerId { get; init; } = UnknownOwner;

    internal const uint UnknownOwner = uint.MaxValue;

    /// <summary>Modification time in nanoseconds since the Unix epoch where the enumerator has it (Linux), else from <see cref="LastWriteTimeUtc"/>.</summary>
    internal long LastWriteTimeNs
    {
        get => _lastWriteTimeNs != 0 ? _lastWriteTimeNs : (LastWriteTimeUtc.Ticks - UnixEpochTicks) * 100;
        init => _lastWriteTimeNs = value;
    }

    /// <summary>Status change time (ctime) in nanoseconds since the Unix epoch where the enumerator has it (Linux), else 0.</summary>
    internal long ChangeTimeNs { get; init; }

    /// <summary>
    /// Last status change time (Unix <c>ctime</c>) when scanned, UTC; <see cref="DateTime.MinValue"/> when the source
    /// does not know it. A cache trusts a file's digest only while its change time is known and unchanged, and then
    /// does not read the file: give the file system's value as of the listing, never one recorded earlier.
    /// </summary>
    public DateTime LastChangeTimeUtc
    {
        get => ChangeTimeNs == 0 ? DateTime.MinValue : FileTable.ToDateTime(ChangeTimeNs);
        init => ChangeTimeNs = value == DateTime.MinValue ? 0 : (value.Ticks - UnixEpochTicks) * 100;
    }

    /// <summary>The file's stamp as scanned, for caches.</summary>
    internal Enumeration.FileStamp Stamp => new(Identity, Length, LastWriteTimeNs, ChangeTimeNs);

    private const long UnixEpochTicks = 621355968000000000;
    private readonly long _lastWriteTimeNs;

    /// <inheritdoc />
    public override string ToString() => Path.ToString();
}
