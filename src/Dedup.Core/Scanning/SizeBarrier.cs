using System.Numerics;
#if NET
using System.Runtime.InteropServices;
#endif
using Dedup.Core.Enumeration;

namespace Dedup.Core.Scanning;

/// <summary>
/// The barrier between enumeration and comparison: the table's rows grouped by size, then sorted by identity within a
/// size (hard links become runs of one identity), each size with two distinct files becoming a <see cref="CandidateSet"/>
/// (a range of the grouped row numbers). Rows that can have no duplicate (a unique size, or only links to one file) are
/// dropped from the table. Where every row of a size was keyed while listed (<see cref="FileTable.KeyedLength"/>), the
/// size is split by key first: each key with two distinct files is a set, and a file whose key no other has is dropped.
/// </summary>
/// <remarks>
/// The barrier is the scan's memory peak: every row is alive and the grouping arrays are made beside them. Trees hold
/// far fewer sizes than files (47,171 sizes for a million files of a source tree), so rows are placed by counting, with
/// an array only as long as the rows that share a size and one bit per row for what stays; a tree of mostly distinct
/// sizes is sorted instead.
/// </remarks>
internal static class SizeBarrier
{
    /// <param name="table">The enumerated files; sealed here.</param>
    /// <param name="keepSingles">Keep files of a unique size too (see <see cref="ICompareStage.KeepsSingles"/>).</param>
    /// <param name="maxSizesCounted">
    /// The most distinct sizes counted before the rows are sorted instead (tests choose either way); by default an eighth
    /// of the rows, at least 4,096: about 28 bytes a size, at most ~3.5 bytes a row against a sort's 12.
    /// </param>
    /// <param name="keyMissing">
    /// Given, before any size is split, the rows of the sizes that could be split by key (at most
    /// <see cref="FileTable.KeyedLength"/>, shared) that have no key (row <c>r</c> is bit <c>r % 64</c> of word
    /// <c>r / 64</c>), to key what it can (<see cref="KeyPass"/>); not called when there are none.
    /// </param>
    public static List<CandidateSet> Split(FileTable table, bool keepSingles, int? maxSizesCounted = null, Action<ulong[]>? keyMissing = null)
    {
        table.Seal();
        var count = table.Count;
        var runs = new List<(long Size, int Start, int Rows)>();
        var order = PlaceBySize(table, keepSingles, maxSizesCounted ?? Math.Max(4096, count / 8), runs) ?? SortBySize(table, runs);
        if (keyMissing is not null && !keepSingles && table.KeyedLength > 0 && Unkeyed(table, order, runs) is { } missing)
        {
            keyMissing(missing);
        }

        var sets = new List<(long Size, int Start, int Rows, int Distinct)>(runs.Count);
        var keep = new ulong[(count + 63) >> 6];
        var byIdentity = new IdentityOrder(table);
        var kept = 0;
        KeyOrder? byKey = null;
        foreach (var (size, start, rows) in runs)
        {
            if (!keepSingles && rows >= 2 && size <= table.KeyedLength && AllKeyed(table, order, start, rows))
            {
                Array.Sort(order, start, rows, byKey ??= new KeyOrder(table));
                for (var from = start; from < start + rows;)
                {
                    var to = from + 1;
                    while (to < start + rows && table[order[to]].ContentKey == table[order[from]].ContentKey)
                    {
                        to++;
                    }

                    Keep(size, from, to - from);
                    from = to;
                }

                continue;
            }

            if (rows >= 2)
            {
                Array.Sort(order, start, rows, byIdentity);
            }

            Keep(size, start, rows);
        }

        // A run of rows (by identity within it) becomes a set when it holds two distinct files (or always, keepSingles).
        void Keep(long size, int start, int rows)
        {
            var distinct = CountDistinct(table, order, start, start + rows);
            if (distinct >= 2 || keepSingles)
            {
                // Compacted in place: kept <= start.
                Array.Copy(order, start, order, kept, rows);
                for (var k = kept; k < kept + rows; k++)
                {
                    keep[order[k] >> 6] |= 1UL << order[k];
                }

                sets.Add((size, kept, rows, distinct));
                kept += rows;
            }
        }

        if (kept < count)
        {
            table.Retain(keep);
            Renumber(keep, order.AsSpan(0, kept));
        }

        var result = new List<CandidateSet>(sets.Count);
        foreach (var (size, start, rows, distinct) in sets)
        {
            result.Add(new CandidateSet(size, table, order, start, rows, distinct));
        }

        return result;
    }

    /// <summary>
    /// Counts the files of each size, then places the row numbers of every size shared by two rows (or every size, with
    /// <paramref name="keepSingles"/>) into one array, sizes ascending, rows in table order within a size. Returns
    /// <see langword="null"/> when the tree has too many distinct sizes for the count to be smaller than a sort's arrays.
    /// </summary>
    private static int[]? PlaceBySize(FileTable table, bool keepSingles, int limit, List<(long Size, int Start, int Rows)> runs)
    {
        var count = table.Count;
        var cursors = new Dictionary<long, int>();
        for (var i = 0; i < count; i++)
        {
            var size = table[i].Length;
#if NET
            CollectionsMarshal.GetValueRefOrAddDefault(cursors, size, out _)++;
#else
            cursors[size] = cursors.TryGetValue(size, out var seen) ? seen + 1 : 1;
#endif
            if (cursors.Count > limit)
            {
                return null;
            }
        }

        var shared = new List<long>();
        foreach (var pair in cursors)
        {
            if (pair.Value >= 2 || keepSingles)
            {
                shared.Add(pair.Key);
            }
        }

        shared.Sort();
        var placed = 0;
        foreach (var size in shared)
        {
            var rows = cursors[size];
            runs.Add((size, placed, rows));

            // A placed size's entry becomes its next slot, complemented: negative, unlike a lone size's count of 1.
            cursors[size] = ~placed;
            placed += rows;
        }

        var order = new int[placed];
        for (var i = 0; i < count; i++)
        {
#if NET
            ref var cursor = ref CollectionsMarshal.GetValueRefOrNullRef(cursors, table[i].Length);
            if (cursor < 0)
            {
                order[~cursor] = i;
                cursor--;
            }
#else
            var size = table[i].Length;
            var cursor = cursors[size];
            if (cursor < 0)
            {
                order[~cursor] = i;
                cursors[size] = cursor - 1;
            }
#endif
        }

        return order;
    }

    /// <summary>Sorts every row number by size: primitive keys with the row numbers as items, several times faster than comparing rows.</summary>
    private static int[] SortBySize(FileTable table, List<(long Size, int Start, int Rows)> runs)
    {
        var count = table.Count;
        var order = new int[count];
        var sizes = new long[count];
        for (var i = 0; i < count; i++)
        {
            sizes[i] = table[i].Length;
            order[i] = i;
        }

        Array.Sort(sizes, order);
        for (var start = 0; start < count;)
        {
            var end = start + 1;
            while (end < count && sizes[end] == sizes[start])
            {
                end++;
            }

            runs.Add((sizes[start], start, end - start));
            start = end;
        }

        return order;
    }

    /// <summary>Row numbers after <see cref="FileTable.Retain"/>: a kept row's new number is the count of kept rows before it.</summary>
    private static void Renumber(ulong[] keep, Span<int> rows)
    {
        var before = new int[keep.Length];
        for (int w = 0, sum = 0; w < keep.Length; w++)
        {
            before[w] = sum;
            sum += BitOperations.PopCount(keep[w]);
        }

        for (var k = 0; k < rows.Length; k++)
        {
            var row = rows[k];
            rows[k] = before[row >> 6] + BitOperations.PopCount(keep[row >> 6] & ((1UL << row) - 1));
        }
    }

    private static int CountDistinct(FileTable table, int[] order, int start, int end)
    {
        var distinct = 1;
        for (var k = start + 1; k < end; k++)
        {
            if (table[order[k]].Identity != table[order[k - 1]].Identity)
            {
                distinct++;
            }
        }

        return distinct;
    }

    /// <summary>The rows without a key of the sizes that could be split by key, or <see langword="null"/> when there are none.</summary>
    private static ulong[]? Unkeyed(FileTable table, int[] order, List<(long Size, int Start, int Rows)> runs)
    {
        ulong[]? missing = null;
        foreach (var (size, start, rows) in runs)
        {
            if (size > table.KeyedLength)
            {
                break; // runs come by size, ascending
            }

            if (size == 0 || rows < 2)
            {
                continue;
            }

            for (var k = start; k < start + rows; k++)
            {
                var row = order[k];
                if (table[row].ContentKey == 0)
                {
                    missing ??= new ulong[(table.Count + 63) >> 6];
                    missing[row >> 6] |= 1UL << row;
                }
            }
        }

        return missing;
    }

    /// <summary>Whether every row of the run has a key: one without could equal any of them, so the size is not split.</summary>
    private static bool AllKeyed(FileTable table, int[] order, int start, int rows)
    {
        for (var k = start; k < start + rows; k++)
        {
            if (table[order[k]].ContentKey == 0)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Orders row numbers by key, then as <see cref="IdentityOrder"/> within a key.</summary>
    private sealed class KeyOrder(FileTable table) : IComparer<int>
    {
        private readonly IdentityOrder _byIdentity = new(table);

        public int Compare(int x, int y)
        {
            var c = table[x].ContentKey.CompareTo(table[y].ContentKey);
            return c != 0 ? c : _byIdentity.Compare(x, y);
        }
    }

    /// <summary>Orders row numbers by device and inode, then by row number (enumeration order) for a stable primary name.</summary>
    private sealed class IdentityOrder(FileTable table) : IComparer<int>
    {
        public int Compare(int x, int y)
        {
            ref var a = ref table[x];
            ref var b = ref table[y];
            var c = a.Identity.Device.CompareTo(b.Identity.Device);
            if (c == 0)
            {
                c = a.Identity.FileId.CompareTo(b.Identity.FileId);
            }

            return c != 0 ? c : x.CompareTo(y);
        }
    }
}
