using Dedup.Core.Comparison;
using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.IO;

/// <summary>
/// The files a probe kept open have one owner at a time: the probe's set, then the bucket the strategy compares
/// (which reads on through them, opening nothing again), then nobody. Every one is closed once, also when the
/// strategy throws and later buckets are never compared.
/// </summary>
public sealed class OpenFileHandoffTests
{
    [LinuxFact]
    public async Task The_strategy_reads_on_through_the_files_the_probe_kept_and_they_close_after_it()
    {
        using var tree = TwoBuckets();
        var strategy = new Watching(tree.Root, fail: false);
        var found = await CompareAsync(tree, strategy);

        // Both buckets' files open as the first starts (none opened again), the second's alone once the first is done.
        Assert.Equal([4, 2], strategy.OpenWhenStarted);
        Assert.Equal(2, found.Count);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
    }

    [LinuxFact]
    public async Task A_strategy_that_throws_leaves_no_file_open_in_its_bucket_or_in_the_buckets_never_compared()
    {
        using var tree = TwoBuckets();
        var strategy = new Watching(tree.Root, fail: true);

        await Assert.ThrowsAsync<InvalidOperationException>(() => CompareAsync(tree, strategy));

        Assert.Equal([4], strategy.OpenWhenStarted); // the second bucket is never compared: its files were open then
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
    }

    [LinuxFact]
    public async Task A_set_keeps_at_most_its_cap_of_files_open_and_reopens_one_it_closed_to_make_room()
    {
        using var tree = new TempTree();
        var count = OpenFileSet.MaxOpen + 4;
        for (var i = 0; i < count; i++)
        {
            tree.Write($"f{i:D3}.bin", TempTree.RandomBytes(100, i));
        }

        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).Build();
        var nodes = await NodesAsync(finder);
        var errors = new Dedup.Core.Diagnostics.ScanErrorSink();
        using var reader = new FileReader(Dedup.Core.Pooling.BufferPool.Shared, errors, trustedIdentities: true);
        var buffer = new byte[10];
        using (var files = new OpenFileSet(reader, nodes))
        {
            for (var i = 0; i < count; i++)
            {
                Assert.True(files.TryRead(i, 0, buffer, map: null));
                Assert.Equal(Math.Min(i + 1, OpenFileSet.MaxOpen), OpenDescriptors.Under(tree.Root, includeRoot: false).Count);
            }

            // The first files were closed to make room: read again, each is opened anew, and one other closed.
            Assert.True(files.TryRead(0, 10, buffer, map: null));
            Assert.True(files.TryRead(1, 10, buffer, map: null));
            Assert.Equal(OpenFileSet.MaxOpen, OpenDescriptors.Under(tree.Root, includeRoot: false).Count);
            Assert.True(files.IsUnchanged(0));
        }

        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
        Assert.Equal(0, errors.Count);
    }

    /// <summary>Two pairs of 20 kB duplicates: each pair's files share a prefix the other pair's lack, so the probe makes two buckets.</summary>
    private static TempTree TwoBuckets()
    {
        var tree = new TempTree();
        foreach (var (name, seed) in new[] { ("a", 1), ("b", 2) })
        {
            var content = TempTree.RandomBytes(20_000, seed);
            tree.Write($"{name}1.bin", content);
            tree.Write($"{name}2.bin", content);
        }

        return tree;
    }

    private static async Task<List<FileNode>> NodesAsync(DuplicateFinder finder)
    {
        var files = new List<ScannedFile>();
        await foreach (var scanned in new ParallelFileEnumerator().EnumerateAsync(EnumerationContexts.Create(finder.Options, new Dedup.Core.Diagnostics.ScanErrorSink())))
        {
            files.Add(scanned);
        }

        return files.OrderBy(f => f.Path.ToString(), StringComparer.Ordinal).Select(f => new FileNode(f)).ToList();
    }

    private static async Task<List<SettledGroup>> CompareAsync(TempTree tree, IComparerStrategy strategy)
    {
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).UseComparer(strategy).Build();
        var nodes = await NodesAsync(finder);
        var context = new ScanContext(finder.Options, new Dedup.Core.Diagnostics.ScanErrorSink());
        using (context.Reader)
        {
            return new WholeFileStage(context).CompareFiles(nodes, 20_000, null, ReaderFanOut.Single, rotational: false, probeKeys: null, CancellationToken.None);
        }
    }

    /// <summary>Notes how many of the tree's files are open as each bucket starts, then compares it (or throws).</summary>
    private sealed class Watching(string root, bool fail) : IComparerStrategy
    {
        public List<int> OpenWhenStarted { get; } = [];

        public string Name => "watching";

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default)
        {
            OpenWhenStarted.Add(OpenDescriptors.Under(root, includeRoot: false).Count);
            if (fail)
            {
                throw new InvalidOperationException("strategy failed");
            }

            ComparerStrategies.Hybrid.Partition(set, cancellationToken);
        }
    }
}
