using System.Runtime.Versioning;
using Dedup.Core.Paths;

namespace Dedup.Core.FileSystem;

/// <summary>Which folders get the cache's descriptors: those the most candidates lie at or below, opened before the compare.</summary>
internal sealed partial class FolderHandles
{
    /// <summary>
    /// Opens descriptors first for the folders with the most candidates at or below them, until the cache is full;
    /// called once the size barrier has left only the candidates in the scan's table, before the compare (the reader
    /// weighs the table's folders: <c>IO.BusiestFolders</c>). A file is opened below its nearest cached ancestor,
    /// walking the components between, and a folder above many files saves a walk for each: on the 1 M file tree
    /// (244,614 folders, 9,488 descriptors under an open-file limit of 20,000) the components walked, counted, were
    /// 4.59 M from the roots, 2.14 M with the folders busiest by their own files, 1.52 M with this. The cache used to be
    /// filled first come, first served, with whichever folders the first sets touched.
    /// </summary>
    /// <param name="weights">Each folder's weight, by its number: the candidates at or below it. A parent is numbered
    /// before its children and weighs at least as much as each.</param>
    /// <param name="folderAt">The folder of a number.</param>
    [SupportedOSPlatform("linux")]
    public void OpenHeaviest(ReadOnlySpan<int> weights, Func<int, AbsolutePath> folderAt)
    {
        // The least weight taken: every folder weighing at least that fits (a parent weighs at least as much as its
        // child, so it is taken too, and first: each is opened by one name from its parent's descriptor).
        var least = LeastWeightTaken(weights, _capacity);
        for (var folder = 0; folder < weights.Length; folder++)
        {
            if (weights[folder] >= least)
            {
                if (_full || _disposed || Volatile.Read(ref _count) >= _capacity)
                {
                    return;
                }

                _ = GetOrOpen(folderAt(folder), MaxClimb, out _);
            }
        }
    }

    /// <summary>Whether the cache may take descriptors (Linux, and room for some under the open-file limit).</summary>
    public bool Caches => OperatingSystem.IsLinux() && _capacity > 0;

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
