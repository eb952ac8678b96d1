using Dedup.Core.Enumeration;

namespace Dedup.Core.Scanning;

/// <summary>
/// The barrier between enumeration and comparison: the table's rows sorted by size, then by identity within a size
/// (hard links become runs of one identity), each size with two distinct files becoming a <see cref="CandidateSet"/>
/// (a range of the sorted row numbers). Rows that can have no duplicate (a unique size, or only links to one file) are
/// dropped from the table.
/// </summary>
internal static class SizeBarrier
{
    /// <param name="table">The enumerated files; sealed here.</param>
    /// <param name="keepSingles">Keep files of a unique size too (see <see cref="ICompareStage.KeepsSingles"/>).</param>
    public static List<CandidateSet> Split(FileTable table, bool keepSingles)
    {
        table.Seal();
        var count = table.Count;
        var order = new int[count];
        var sets = new List<(long Size, int Start, int Rows, int Distinct)>();
        var kept = 0;
        var keep = new bool[count];

        // Sorting primitive keys with the row numbers as items is several times faster than comparing rows.
        var sizes = new long[count];
        {
            for (var i = 0; i < count; i++)
            {
                sizes[i] = table[i].Length;
                order[i] = i;
            }

            Array.Sort(sizes, order);
            var byIdentity = new IdentityOrder(table);
            for (var start = 0; start < count;)
            {
                var end = start + 1;
                while (end < count && sizes[end] == sizes[start])
                {
                    end++;
                }

                var rows = end - start;
                if (rows >= 2)
                {
                    Array.Sort(order, start, rows, byIdentity);
                }

                var distinct = CountDistinct(table, order, start, end);
                if (distinct >= 2 || keepSingles)
                {
                    // Compacted in place: kept <= start.
                    Array.Copy(order, start, order, kept, rows);
                    for (var k = kept; k < kept + rows; k++)
                    {
                        keep[order[k]] = true;
                    }

                    sets.Add((sizes[start], kept, rows, distinct));
                    kept += rows;
                }

                start = end;
            }
        }

        if (kept < count)
        {
            // The sizes are no longer needed: their memory holds the new row numbers (no second large array).
            var renumber = System.Runtime.InteropServices.MemoryMarshal.Cast<long, int>(sizes.AsSpan())[..count];
            table.Retain(keep, renumber);
            for (var k = 0; k < kept; k++)
            {
                order[k] = renumber[order[k]];
            }
        }

        var result = new List<CandidateSet>(sets.Count);
        foreach (var (size, start, rows, distinct) in sets)
        {
            result.Add(new CandidateSet(size, table, order, start, rows, distinct));
        }

        return result;
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
