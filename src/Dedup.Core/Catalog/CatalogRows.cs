using System.Diagnostics.CodeAnalysis;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core.Catalog;

/// <summary>
/// The scan's rows as of its size barrier, kept for the catalog: the barrier then drops the rows of unique sizes from
/// the table, while the catalog still streams every row to the server (beside the compare stage) and later hashes
/// some of those files. The rows are plain structs (60 bytes each); names and folders stay in the table, which only
/// ever adds to them.
/// </summary>
internal sealed class CatalogRows
{
    private readonly FileTable _table;
    private readonly FileRow[] _rows;
    private HashSet<long>? _shared;
    private long _recorded;
    private Dictionary<FileIdentity, int>? _firstName;
    private int[]? _nextName;

    private CatalogRows(FileTable table, FileRow[] rows)
    {
        _table = table;
        _rows = rows;
    }

    /// <summary>Rows handed to the catalog so far by the latest reading of <see cref="Rows"/> (all of them once it was read to the end).</summary>
    public long Recorded => Volatile.Read(ref _recorded);

    /// <summary>Copies the sealed table's rows.</summary>
    public static CatalogRows Take(FileTable table)
    {
        table.Seal();
        var rows = new FileRow[table.Count];
        for (var i = 0; i < rows.Length; i++)
        {
            rows[i] = table[i];
        }

        return new CatalogRows(table, rows);
    }

    /// <summary>
    /// The rows as catalog files in identity order, made one at a time as the catalog reads them (nothing kept); a
    /// collection, so a catalog may read them twice (PostgreSQL fingerprints them before it sends any).
    /// </summary>
    /// <remarks>
    /// <para>Paths are the kernel's bytes (<see cref="AbsolutePath.WriteUtf8(Span{byte}, ReadOnlySpan{byte})"/>); a path past
    /// the buffer, or a name the table keeps as text, takes its exact bytes from the path's text. A name with no byte
    /// form at all (an unpaired surrogate on Windows) is not recorded: a lossy path would name another file.</para>
    /// <para>By (device, inode) as signed 64-bit numbers, the order of a catalog's identity index (PostgreSQL's
    /// <c>bigint</c>): a first scan's rows then go into that index at its end instead of at random places (measured on
    /// PostgreSQL 15 with 250,841 rows into a table with both of the catalog's file indexes: 1.56-1.81 s against
    /// 1.92-2.12 s in listing order).</para>
    /// </remarks>
    public IReadOnlyCollection<CatalogFile> Rows() => new RowList(this);

    private IEnumerable<CatalogFile> MakeRows()
    {
        var handed = 0L;
        var buffer = new byte[PathBufferSize];
        // Each folder's bytes (with the separator) once, not its every ancestor encoded again per row (#19 session 13).
        var prefixes = new byte[]?[_table.FolderCount];
        var order = IdentityOrder();
        // Paths are slices of shared chunks, never written again once handed out: an array per row was 250k more
        // objects for the collector while the compare stage runs (a chunk of 64 KiB holds ~600 paths).
        var chunk = Array.Empty<byte>();
        var used = 0;
        for (var k = 0; k < order.Length; k++)
        {
            var row = _rows[order[k]];
            var name = _table.Names.GetBytes(row.Name);
            var prefix = prefixes[row.Folder] ??= FolderPrefix(row.Folder, buffer);
            ReadOnlyMemory<byte> path;
            if (!name.IsEmpty && prefix.Length > 0 && prefix.Length + name.Length < PathBufferSize)
            {
                // What the folder's WriteUtf8(buffer, name) writes, made straight into the chunk.
                var length = prefix.Length + name.Length;
                if (chunk.Length - used < length)
                {
                    (chunk, used) = (new byte[PathChunkSize], 0);
                }

                prefix.CopyTo(chunk, used);
                name.CopyTo(chunk.AsSpan(used + prefix.Length));
                path = new ReadOnlyMemory<byte>(chunk, used, length);
                used += length;
            }
            else if (KernelNames.TryGetBytes(PathOf(in row).ToString(), out var exact))
            {
                path = exact;
            }
            else
            {
                continue;
            }

            // Rows handed out by this reading (a second one counts from 0 again).
            Volatile.Write(ref _recorded, ++handed);
            yield return new CatalogFile(path, StampOf(in row));
        }
    }

    /// <summary>The rows as a collection: each enumeration makes them again.</summary>
    private sealed class RowList(CatalogRows rows) : IReadOnlyCollection<CatalogFile>
    {
        private int _count = -1;

        /// <summary>The rows a reading hands out (a name with no byte form is left out): counted by one reading.</summary>
        public int Count
        {
            get
            {
                if (_count < 0)
                {
                    var count = 0;
                    using (var files = rows.MakeRows().GetEnumerator())
                    {
                        while (files.MoveNext())
                        {
                            count++;
                        }
                    }

                    _count = count;
                }

                return _count;
            }
        }

        public IEnumerator<CatalogFile> GetEnumerator() => rows.MakeRows().GetEnumerator();

        System.Collections.IEnumerator System.Collections.IEnumerable.GetEnumerator() => GetEnumerator();
    }

    private const int PathBufferSize = 4096;

    // Larger than any path made into it (PathBufferSize).
    private const int PathChunkSize = 64 * 1024;

    /// <summary>The folder's path bytes ending in a separator, as a child's path starts; empty when they do not fit or cannot be made.</summary>
    private byte[] FolderPrefix(int folder, byte[] buffer)
    {
        var length = _table.GetFolder(folder).WriteUtf8(buffer, []);
        return length > 0 ? buffer.AsSpan(0, length).ToArray() : [];
    }

    /// <summary>The rows' indexes sorted by (device, inode), each compared as a signed 64-bit number.</summary>
    private int[] IdentityOrder()
    {
        var keys = new (long Device, long Inode)[_rows.Length];
        var order = new int[_rows.Length];
        for (var i = 0; i < keys.Length; i++)
        {
            var identity = _rows[i].Identity;
            keys[i] = (unchecked((long)identity.Device), unchecked((long)identity.FileId));
            order[i] = i;
        }

        Array.Sort(keys, order, SignedIdentityOrder.Instance);
        return order;
    }

    private sealed class SignedIdentityOrder : IComparer<(long Device, long Inode)>
    {
        public static readonly SignedIdentityOrder Instance = new();

        public int Compare((long Device, long Inode) x, (long Device, long Inode) y) =>
            x.Device != y.Device ? x.Device.CompareTo(y.Device) : x.Inode.CompareTo(y.Inode);
    }

    /// <summary>Sizes only one file (identity) of this scan has: the compare stage never reads those files.</summary>
    public List<long> UniqueSizes()
    {
        var shared = LocallySharedSizes();
        var unique = new HashSet<long>();
        foreach (ref readonly var row in _rows.AsSpan())
        {
            if (!shared.Contains(row.Length))
            {
                unique.Add(row.Length);
            }
        }

        return [.. unique];
    }

    /// <summary>The distinct sizes of the scan's files.</summary>
    public List<long> DistinctSizes()
    {
        var sizes = new HashSet<long>();
        foreach (ref readonly var row in _rows.AsSpan())
        {
            sizes.Add(row.Length);
        }

        return [.. sizes];
    }

    /// <summary>
    /// The sizes of the files this scan leaves without a digest: of a size no other file of the scan has, which no other
    /// machine held (<paramref name="otherSizes"/>), and without a digest stored under their stamp (<paramref name="known"/>).
    /// </summary>
    public List<long> UndigestedSizes(IReadOnlyCollection<FileStamp> known, HashSet<long> otherSizes)
    {
        var shared = LocallySharedSizes();
        var sizes = new HashSet<long>();
        foreach (ref readonly var row in _rows.AsSpan())
        {
            if (!shared.Contains(row.Length) && !otherSizes.Contains(row.Length) && !Contains(known, StampOf(in row)))
            {
                sizes.Add(row.Length);
            }
        }

        return [.. sizes];
    }

    /// <summary>How many distinct files (identities) of the scan have one of <paramref name="sizes"/>.</summary>
    public long CountFiles(IEnumerable<long> sizes)
    {
        var wanted = new HashSet<long>(sizes);
        var files = new HashSet<FileIdentity>();
        foreach (ref readonly var row in _rows.AsSpan())
        {
            if (wanted.Contains(row.Length))
            {
                files.Add(row.Identity);
            }
        }

        return files.Count;
    }

    /// <summary>
    /// The files that need a SHA-256 (one per identity, without a digest stored under their stamp, the
    /// <paramref name="known"/>) among those of a size no other file of this scan has (<paramref name="uniqueShared"/>
    /// = those sizes another machine has), or, with <paramref name="uniqueShared"/> <see langword="null"/>, among those
    /// of a size another file of this scan has, but the <paramref name="readWhole"/> ones (the compare stage's reads
    /// hashed them).
    /// </summary>
    public List<ScannedFile> ToHash(IReadOnlyCollection<FileStamp> known, IReadOnlyCollection<long>? uniqueShared, HashSet<FileIdentity>? readWhole)
    {
        var files = new List<ScannedFile>();
        var shared = LocallySharedSizes();
        var remote = uniqueShared is null ? null : new HashSet<long>(uniqueShared);
        if (remote is { Count: 0 })
        {
            return files;
        }

        var seen = new HashSet<FileIdentity>();
        for (var i = 0; i < _rows.Length; i++)
        {
            ref var row = ref _rows[i];
            var wanted = remote is null
                ? shared.Contains(row.Length) && !(readWhole?.Contains(row.Identity) ?? false)
                : remote.Contains(row.Length) && !shared.Contains(row.Length);
            if (wanted && !Contains(known, StampOf(in row)) && seen.Add(row.Identity))
            {
                files.Add(new ScannedFile(in row, PathOf(in row)));
            }
        }

        return files;
    }

    /// <summary>
    /// The paths of this scan's names of the file with <paramref name="stamp"/> (every name of a hard-linked file): the
    /// first in listing order, and a list of the others only when there are any; <see langword="false"/> when the scan
    /// listed no file with that whole stamp. The first call indexes the rows by identity.
    /// </summary>
    public bool TryGetNames(FileStamp stamp, [NotNullWhen(true)] out AbsolutePath? first, out List<AbsolutePath>? others)
    {
        var (firstName, nextName) = NameIndex();
        (first, others) = (null, null);
        for (var i = firstName.TryGetValue(stamp.Identity, out var found) ? found : -1; i >= 0; i = nextName[i])
        {
            if (StampOf(in _rows[i]) != stamp)
            {
                continue;
            }

            if (first is null)
            {
                first = PathOf(in _rows[i]);
            }
            else
            {
                (others ??= []).Add(PathOf(in _rows[i]));
            }
        }

        return first is not null;
    }

    /// <summary>Whether the scan listed a file with this whole stamp.</summary>
    public bool Contains(FileStamp stamp)
    {
        var (firstName, nextName) = NameIndex();
        for (var i = firstName.TryGetValue(stamp.Identity, out var found) ? found : -1; i >= 0; i = nextName[i])
        {
            if (StampOf(in _rows[i]) == stamp)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>
    /// The scan's folders, each mapped to itself: another machine's folder at the same path is then this scan's node
    /// (<see cref="CatalogGroupJoin"/>), whose paths compare by reference where they meet this scan's.
    /// </summary>
    public Dictionary<AbsolutePath, AbsolutePath> Folders()
    {
        var folders = new Dictionary<AbsolutePath, AbsolutePath>(_table.FolderCount);
        for (var i = 0; i < _table.FolderCount; i++)
        {
            var folder = _table.GetFolder(i);
            folders[folder] = folder;
        }

        return folders;
    }

    /// <summary>Makes the index <see cref="TryGetNames"/> and <see cref="Contains(FileStamp)"/> read: once it is made, they may be called on several threads.</summary>
    public void IndexNames() => NameIndex();

    /// <summary>The rows by identity: the first row of each, and a chain through the rows of its other names. Made once; one thread at a time.</summary>
    private (Dictionary<FileIdentity, int> First, int[] Next) NameIndex()
    {
        if (_firstName is null || _nextName is null)
        {
            // One entry per identity and a chain through the rows of its other names: no list per file.
            var firstOf = new Dictionary<FileIdentity, int>(_rows.Length);
            var next = new int[_rows.Length];
            for (var i = _rows.Length - 1; i >= 0; i--)
            {
                next[i] = firstOf.TryGetValue(_rows[i].Identity, out var after) ? after : -1;
                firstOf[_rows[i].Identity] = i;
            }

            (_firstName, _nextName) = (firstOf, next);
        }

        return (_firstName, _nextName);
    }

    private static bool Contains(IReadOnlyCollection<FileStamp> known, FileStamp stamp) =>
        known is HashSet<FileStamp> set ? set.Contains(stamp) : known.Count > 0 && known.Contains(stamp);

    private static FileStamp StampOf(in FileRow row) => new(row.Identity, row.Length, row.LastWriteTimeNs, row.ChangeTimeNs);

    private AbsolutePath PathOf(in FileRow row) => _table.GetFolder(row.Folder).Child(_table.Names.GetString(row.Name));

    /// <summary>Sizes with two or more distinct files (identities) in this scan: the sizes the compare stage reads.</summary>
    private HashSet<long> LocallySharedSizes() => _shared ??= FindSharedSizes();

    private HashSet<long> FindSharedSizes()
    {
        var first = new Dictionary<long, FileIdentity>();
        var shared = new HashSet<long>();
        foreach (ref readonly var row in _rows.AsSpan())
        {
            if (!first.TryGetValue(row.Length, out var identity))
            {
                first.Add(row.Length, row.Identity);
            }
            else if (identity != row.Identity)
            {
                shared.Add(row.Length);
            }
        }

        return shared;
    }
}
