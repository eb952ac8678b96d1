using System.Runtime.InteropServices;
using System.Runtime.Versioning;

namespace Dedup.Core.Scanning;

/// <summary>Which folders get the cache's descriptors: those the most candidates lie at or below, opened before the compare.</summary>
internal sealed unsafe partial class FolderHandles
{
    /// <summary>
    /// Opens descriptors first for the folders with the most candidates at or below them, until the cache is full;
    /// called once the size barrier has left only the candidates in the table, before the compare. A file is opened below its nearest
    /// cached ancestor, walking the components between, and a folder above many files saves a walk for each: on the 1 M
    /// file tree (244,614 folders, 9,488 descriptors under an open-file limit of 20,000) the components walked, counted,
    /// were 4.59 M from the roots, 2.14 M with the folders busiest by their own files, 1.52 M with this. The cache used to
    /// be filled first come, first served, with whichever folders the first sets touched.
    /// </summary>
    /// <param name="table">The candidates, with their folders' parents (a table filled by a custom enumerator has none:
    /// each folder then weighs its own files).</param>
    public void OpenBusiest(Enumeration.FileTable table)
    {
        var folders = table.FolderCount;
        if (!OperatingSystem.IsLinux() || _capacity == 0 || folders == 0)
        {
            return;
        }

        // Outside the GC heap, and given back at the end: a scan's peak memory is near its end, when this is long gone.
        var memory = Marshal.AllocHGlobal((IntPtr)((long)folders * sizeof(int)));
        try
        {
            var weights = new Span<int>((void*)memory, folders);
            weights.Clear();
            OpenHeaviest(table, weights);
        }
        finally
        {
            Marshal.FreeHGlobal(memory);
        }
    }

    [SupportedOSPlatform("linux")]
    private void OpenHeaviest(Enumeration.FileTable table, Span<int> weights)
    {
        // Rows in table order, not set by set (a cache miss a row).
        var folders = weights.Length;
        for (var row = 0; row < table.Count; row++)
        {
            weights[table[row].Folder]++;
        }

        // A parent is numbered before its children, so one pass from the last folder adds each to its parent.
        for (var folder = folders - 1; folder > 0; folder--)
        {
            var parent = table.GetParent(folder);
            if (parent >= 0 && parent < folder)
            {
                weights[parent] += weights[folder];
            }
        }

        // The least weight taken: every folder weighing at least that fits (a parent weighs at least as much as its
        // child, so it is taken too, and first: each is opened by one name from its parent's descriptor).
        var least = LeastWeightTaken(weights, _capacity);
        for (var folder = 0; folder < folders; folder++)
        {
            if (weights[folder] >= least)
            {
                if (_full || _disposed || Volatile.Read(ref _count) >= _capacity)
                {
                    return;
                }

                _ = GetOrOpen(table.GetFolder(folder), MaxClimb, out _);
            }
        }
    }

    /// <summary>The least weight (at least 1) such that no more than <paramref name="room"/> folders weigh that much or more: a binary search, no sort.</summary>
    internal static int LeastWeightTaken(ReadOnlySpan<int> weights, int room)
    {
        int low = 1, high = int.MaxValue; // answer in [low, high]
        while (low < high)
        {
            var middle = low + ((high - low) / 2);
            var count = 0;
            foreach (var weight in weights)
            {
                if (weight >= middle && ++count > room)
                {
                    break;
                }
            }

            if (count <= room)
            {
                high = middle;
            }
            else
            {
                low = middle + 1;
            }
        }

        return low;
    }
}
