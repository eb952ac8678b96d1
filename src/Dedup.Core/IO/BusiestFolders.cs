using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.FileSystem;

namespace Dedup.Core.IO;

/// <summary>
/// Weighs a scan's folders by the candidates at or below each, for the folder cache to open the heaviest first
/// (<see cref="FolderHandles.OpenHeaviest"/>): the table is the scan's, the cache the walk's, so the weighing sits here.
/// </summary>
internal static unsafe class BusiestFolders
{
    /// <summary>Opens <paramref name="handles"/>' descriptors for the busiest folders of <paramref name="table"/>.</summary>
    /// <param name="handles">The scan's folder cache.</param>
    /// <param name="table">The candidates, with their folders' parents (a table filled by a custom enumerator has none:
    /// each folder then weighs its own files).</param>
    public static void Open(FolderHandles handles, FileTable table)
    {
        var folders = table.FolderCount;
        if (!OperatingSystem.IsLinux() || !handles.Caches || folders == 0)
        {
            return;
        }

        // Outside the GC heap, and given back at the end: a scan's peak memory is near its end, when this is long gone.
        var memory = Marshal.AllocHGlobal((IntPtr)((long)folders * sizeof(int)));
        try
        {
            var weights = new Span<int>((void*)memory, folders);
            weights.Clear();
            Weigh(table, weights);
            handles.OpenHeaviest(weights, table.GetFolder);
        }
        finally
        {
            Marshal.FreeHGlobal(memory);
        }
    }

    /// <summary>Each folder's candidates at or below it.</summary>
    [SupportedOSPlatform("linux")]
    private static void Weigh(FileTable table, Span<int> weights)
    {
        // Rows in table order, not set by set (a cache miss a row).
        for (var row = 0; row < table.Count; row++)
        {
            weights[table[row].Folder]++;
        }

        // A parent is numbered before its children, so one pass from the last folder adds each to its parent.
        for (var folder = weights.Length - 1; folder > 0; folder--)
        {
            var parent = table.GetParent(folder);
            if (parent >= 0 && parent < folder)
            {
                weights[parent] += weights[folder];
            }
        }
    }
}
