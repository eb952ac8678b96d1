using Dedup.Core.Caching;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;

namespace Dedup.Core.Catalog;

/// <summary>
/// The scan's rows as of its size barrier, kept for the catalog: the barrier then drops the rows of unique sizes from
/// the table, while the catalog still streams every row to the server (beside the compare stage) and later hashes
/// some of those files. The rows are plain structs (56 bytes each); names and folders stay in the table, which only
/// ever adds to them.
/// </summary>
internal sealed class CatalogRows
{
    private readonly FileTable _table;
    private readonly FileRow[] _rows;
    private long _recorded;

    private CatalogRows(FileTable table, FileRow[] rows)
    {
        _table = table;
        _rows = rows;
    }

    /// <summary>Rows handed to the catalog so far (all of them once <see cref="Rows"/> was read to the end).</summary>
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

    /// <summary>The rows as catalog files, made one at a time as the catalog reads them (nothing kept).</summary>
    /// <remarks>
    /// Paths are the kernel's bytes (<see cref="AbsolutePath.WriteUtf8(Span{byte}, ReadOnlySpan{byte})"/>); a path past
    /// the buffer, or a name the table keeps as text, takes its exact bytes from the path's text. A name with no byte
    /// form at all (an unpaired surrogate on Windows) is not recorded: a lossy path would name another file.
    /// </remarks>
    public IEnumerable<CatalogFile> Rows()
    {
        var buffer = new byte[4096];
        for (var i = 0; i < _rows.Length; i++)
        {
            var row = _rows[i];
            var name = _table.Names.GetBytes(row.Name);
            var length = name.IsEmpty ? -1 : _table.GetFolder(row.Folder).WriteUtf8(buffer, name);
            byte[]? path = length >= 0 ? buffer.AsSpan(0, length).ToArray()
                : KernelNames.TryGetBytes(PathOf(in row).ToString(), out var exact) ? exact
                : null;
            if (path is not null)
            {
                Interlocked.Increment(ref _recorded);
                yield return new CatalogFile(path, StampOf(in row));
            }
        }
    }

    /// <summary>
    /// The files with the stamps the catalog asked a digest for, one per identity, split into those of a size no other
    /// file of this scan has (the compare stage never reads them: they can be hashed at once) and the others.
    /// </summary>
    public (List<ScannedFile> Unique, List<ScannedFile> Shared) Match(IReadOnlyList<FileStamp> asked)
    {
        var unique = new List<ScannedFile>();
        var shared = new List<ScannedFile>();
        if (asked.Count == 0)
        {
            return (unique, shared);
        }

        var stamps = new Dictionary<FileIdentity, FileStamp>(asked.Count);
        foreach (var stamp in asked)
        {
            stamps[stamp.Identity] = stamp;
        }

        var sizes = LocallySharedSizes();
        for (var i = 0; i < _rows.Length && stamps.Count > 0; i++)
        {
            ref var row = ref _rows[i];
            if (stamps.TryGetValue(row.Identity, out var stamp) && stamp == StampOf(in row))
            {
                stamps.Remove(row.Identity);
                (sizes.Contains(row.Length) ? shared : unique).Add(new ScannedFile(in row, PathOf(in row)));
            }
        }

        return (unique, shared);
    }

    private static FileStamp StampOf(in FileRow row) => new(row.Identity, row.Length, row.LastWriteTimeNs, row.ChangeTimeNs);

    private AbsolutePath PathOf(in FileRow row) => _table.GetFolder(row.Folder).Child(_table.Names.GetString(row.Name));

    /// <summary>Sizes with two or more distinct files (identities) in this scan: the sizes the compare stage reads.</summary>
    private HashSet<long> LocallySharedSizes()
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
