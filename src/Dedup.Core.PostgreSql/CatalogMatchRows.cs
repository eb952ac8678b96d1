using System.Buffers.Binary;
using System.Collections;
using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;

namespace Dedup.Core.PostgreSql;

/// <summary>
/// A group read's rows as plain structs, grouped by content and sorted in place, each group's files a view of its slice
/// (<see cref="Slice"/>) that makes a <see cref="CatalogMatch"/> only when one is asked for. A fleet's read holds a row
/// for nearly every file of several machines: an object each, with a list and a digest array per group, was most of what
/// the scan kept after its compare stage, and the garbage collector marked and copied it again at every collection
/// (measured at 250k files matched on another machine: 136 MB allocated by the read, ~1 s of collections after it).
/// </summary>
internal sealed class CatalogMatchRows
{
    private const int ChunkRows = 4096;

    private readonly Dictionary<(long Size, UInt128 High, UInt128 Low), int> _groupOf = [];
    private readonly List<(long Size, UInt128 High, UInt128 Low)> _keys = [];
    private readonly List<Row[]> _chunks = [];
    private readonly List<int[]> _groupChunks = [];
    private int _count;

    /// <summary>One file of some machine: its name shared with every row of that machine.</summary>
    private readonly record struct Row(string Machine, ReadOnlyMemory<byte> Path, FileStamp Stamp);

    /// <summary>A content as a key: the size and the digest's two big-endian halves (they compare as the bytes do).</summary>
    public static (long Size, UInt128 High, UInt128 Low) Key(long size, ReadOnlySpan<byte> sha256) =>
        (size, BinaryPrimitives.ReadUInt128BigEndian(sha256), BinaryPrimitives.ReadUInt128BigEndian(sha256.Slice(16)));

    /// <summary>The content's group number, made on first sight.</summary>
    public int GroupOf(long size, ReadOnlySpan<byte> sha256)
    {
        var key = Key(size, sha256);
        if (!_groupOf.TryGetValue(key, out var group))
        {
            group = _keys.Count;
            _groupOf.Add(key, group);
            _keys.Add(key);
        }

        return group;
    }

    public void Add(int group, string machine, ReadOnlyMemory<byte> path, FileStamp stamp)
    {
        if (_count % ChunkRows == 0)
        {
            _chunks.Add(new Row[ChunkRows]);
            _groupChunks.Add(new int[ChunkRows]);
        }

        _chunks[_count / ChunkRows][_count % ChunkRows] = new Row(machine, path, stamp);
        _groupChunks[_count / ChunkRows][_count % ChunkRows] = group;
        _count++;
    }

    /// <summary>
    /// The groups, largest size first, then by digest; each group's files by machine name, path bytes, then identity
    /// (<see cref="CatalogMatchOrder"/>). A group <paramref name="keep"/> refuses (given its number, from
    /// <see cref="GroupOf"/>, and its files) is left out.
    /// </summary>
    public List<CatalogGroup> ToGroups(Func<int, IReadOnlyList<CatalogMatch>, bool>? keep)
    {
        // Counting sort by group: each group's rows in one slice of one array.
        var starts = new int[_keys.Count + 1];
        for (var i = 0; i < _count; i++)
        {
            starts[_groupChunks[i / ChunkRows][i % ChunkRows] + 1]++;
        }

        for (var g = 0; g < _keys.Count; g++)
        {
            starts[g + 1] += starts[g];
        }

        var rows = new Row[_count];
        var next = (int[])starts.Clone();
        for (var i = 0; i < _count; i++)
        {
            rows[next[_groupChunks[i / ChunkRows][i % ChunkRows]]++] = _chunks[i / ChunkRows][i % ChunkRows];
        }

        _chunks.Clear();
        _groupChunks.Clear();
        var order = new int[_keys.Count];
        for (var g = 0; g < order.Length; g++)
        {
            order[g] = g;
        }

        var keys = _keys;
        Array.Sort(order, (a, b) =>
        {
            var (x, y) = (keys[a], keys[b]);
            return x.Size != y.Size ? y.Size.CompareTo(x.Size) : x.High != y.High ? x.High.CompareTo(y.High) : x.Low.CompareTo(y.Low);
        });

        // The digests of all groups in one array, each group's a slice of it.
        var shas = new byte[keys.Count * CatalogDigest.Sha256Length];
        var groups = new List<CatalogGroup>(order.Length);
        foreach (var g in order)
        {
            var (size, high, low) = keys[g];
            var sha = shas.AsMemory(g * CatalogDigest.Sha256Length, CatalogDigest.Sha256Length);
            BinaryPrimitives.WriteUInt128BigEndian(sha.Span, high);
            BinaryPrimitives.WriteUInt128BigEndian(sha.Span.Slice(16), low);
            rows.AsSpan(starts[g], starts[g + 1] - starts[g]).Sort(static (a, b) => Compare(in a, in b));
            var files = new Slice(rows, starts[g], starts[g + 1] - starts[g]);
            if (keep is null || keep(g, files))
            {
                groups.Add(new CatalogGroup(size, sha, files));
            }
        }

        return groups;
    }

    private static int Compare(in Row x, in Row y) =>
        CatalogMatchOrder.Compare(x.Machine, x.Path.Span, x.Stamp.Identity, y.Machine, y.Path.Span, y.Stamp.Identity);

    /// <summary>A group's files: a view of its rows, each made into a <see cref="CatalogMatch"/> when it is read.</summary>
    private sealed class Slice(Row[] rows, int start, int count) : IReadOnlyList<CatalogMatch>
    {
        public int Count => count;

        public CatalogMatch this[int index]
        {
            get
            {
                if ((uint)index >= (uint)count)
                {
                    throw new ArgumentOutOfRangeException(nameof(index));
                }

                ref readonly var row = ref rows[start + index];
                return new CatalogMatch(row.Machine, row.Path, row.Stamp);
            }
        }

        public IEnumerator<CatalogMatch> GetEnumerator()
        {
            for (var i = 0; i < count; i++)
            {
                yield return this[i];
            }
        }

        IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
    }
}
