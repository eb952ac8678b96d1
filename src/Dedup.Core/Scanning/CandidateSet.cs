using Dedup.Core.Enumeration;
using Dedup.Core.IO;

namespace Dedup.Core.Scanning;

/// <summary>
/// Files that may hold equal content, as the size barrier hands them on: all of <see cref="Size"/> bytes, or (media's
/// payload stage) each read through its content map in <see cref="Maps"/>, all maps that long. A set from the size
/// barrier is a range of rows in the <see cref="FileTable"/>: its <see cref="FileNode"/>s (and their paths) are made
/// when a stage first asks for <see cref="Files"/> and let go by <see cref="Release"/>, so only the sets being compared
/// hold objects per file.
/// </summary>
internal sealed class CandidateSet
{
    private readonly FileTable? _table;
    private readonly int[]? _rows;
    private readonly int _start;
    private readonly int _rowCount;
    private List<FileNode>? _files;

    /// <summary>A set of files already made (media's payload stage).</summary>
    public CandidateSet(long size, List<FileNode> files, IReadOnlyDictionary<FileNode, IContentMap>? maps = null)
    {
        Size = size;
        _files = files;
        Maps = maps;
        Count = files.Count;
    }

    /// <summary>The rows <paramref name="rows"/>[<paramref name="start"/>..+<paramref name="rowCount"/>], sorted by identity so that hard links are adjacent.</summary>
    public CandidateSet(long size, FileTable table, int[] rows, int start, int rowCount, int distinct)
    {
        Size = size;
        _table = table;
        _rows = rows;
        _start = start;
        _rowCount = rowCount;
        Count = distinct;
    }

    public long Size { get; }

    /// <summary>Each file's content map (media's payload stage), or <see langword="null"/> for whole files.</summary>
    public IReadOnlyDictionary<FileNode, IContentMap>? Maps { get; }

    /// <summary>Number of distinct files (hard links counted once).</summary>
    public int Count { get; }

    /// <summary>One node per distinct file, with every name the scan found for it.</summary>
    public List<FileNode> Files => _files ??= CreateNodes();

    /// <summary>The table the set's rows are in, or <see langword="null"/> for a set of files already made.</summary>
    public FileTable? Table => _table;

    /// <summary>The set's row numbers in <see cref="Table"/>, sorted by identity (hard links adjacent); empty without a table.</summary>
    public ReadOnlySpan<int> Rows => _rows is null ? default : _rows.AsSpan(_start, _rowCount);

    /// <summary>Estimated work, to start the longest first.</summary>
    public long Cost => Count * Math.Min(Size, 1L << 40);

    /// <summary>Lets the nodes of a set made from table rows go once the set is settled (they are made again if asked).</summary>
    public void Release()
    {
        if (_table is not null)
        {
            _files = null;
        }
    }

    private List<FileNode> CreateNodes()
    {
        var table = _table!;
        var rows = _rows!;
        var nodes = new List<FileNode>(Count);
        FileNode? node = null;
        for (var k = _start; k < _start + _rowCount; k++)
        {
            var row = rows[k];
            if (node is not null && table[row].Identity == node.Primary.Identity)
            {
                node.AddName(table.GetPath(row));
            }
            else
            {
                node = new FileNode(table.ToScannedFile(row));
                nodes.Add(node);
            }
        }

        return nodes;
    }
}

/// <summary>Files a stage found to have equal content, and whether that rests on comparing bytes (not hashes).</summary>
internal sealed record SettledGroup(FileNode[] Members, bool Verified);
