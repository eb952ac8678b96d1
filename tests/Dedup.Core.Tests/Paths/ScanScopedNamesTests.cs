using Dedup.Core.Tests.Infrastructure;
using Xunit;
using Xunit.Abstractions;

namespace Dedup.Core.Tests.Paths;

/// <summary>
/// Names are interned per scan, not for the life of the process: a service that scans many different trees
/// keeps no memory for the names of trees it has finished with.
/// </summary>
[Collection(ScanScopedNamesCollection.Name)]
public sealed class ScanScopedNamesTests(ITestOutputHelper output)
{
    private const int Scans = 20;
    private const int Folders = 25;
    private const int FilesPerFolder = 40;

    // 20 scans × 1,025 short names: a table that kept them would hold about 2 MB (some 90 bytes a name).
    private const long Margin = 512 * 1024;

    [Fact]
    public async Task Twenty_scans_of_different_trees_leave_the_retained_heap_at_its_baseline()
    {
        await ScanFreshTreeAsync(-1); // warm-up: JIT, static pools and caches
        var baseline = RetainedHeap();

        for (var scan = 0; scan < Scans; scan++)
        {
            await ScanFreshTreeAsync(scan);
        }

        var after = RetainedHeap();
        output.WriteLine($"baseline {baseline:N0} B, after {Scans} scans {after:N0} B, growth {after - baseline:N0} B");
        Assert.True(after - baseline < Margin, $"The retained heap grew by {after - baseline:N0} bytes over {Scans} scans of different trees (baseline {baseline:N0}).");
    }

    private static async Task ScanFreshTreeAsync(int scan)
    {
        using var tree = new TempTree();
        var prefix = scan < 0 ? "w" : "s" + scan.ToString("D2", System.Globalization.CultureInfo.InvariantCulture);
        for (var folder = 0; folder < Folders; folder++)
        {
            // Distinct short names in every tree (at most 12 characters: file names that short are interned).
            var folderName = $"{prefix}d{folder:D2}";
            var folderPath = Directory.CreateDirectory(tree.PathOf(folderName)).FullName;
            for (var file = 0; file < FilesPerFolder; file++)
            {
                File.OpenHandle(Path.Combine(folderPath, $"{folderName}f{file:D2}"), FileMode.CreateNew, FileAccess.Write).Dispose();
            }
        }

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.Root));
        Assert.Empty(groups); // empty files are left out after enumeration
        Assert.Equal(Folders * FilesPerFolder, summary.FilesScanned);
    }

    private static long RetainedHeap()
    {
        for (var i = 0; i < 3; i++)
        {
            GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
            GC.WaitForPendingFinalizers();
        }

        return GC.GetTotalMemory(forceFullCollection: true);
    }
}

/// <summary>Heap measurements run alone: a test allocating in parallel would move the numbers.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ScanScopedNamesCollection
{
    public const string Name = "Scan-scoped names (heap measured alone)";
}
