using Dedup.Core.Caching;
using Dedup.Core.Caching.Sqlite;
using Dedup.Core.Catalog;
using Dedup.Core.Diagnostics;
using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Media.Pipeline;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.IO;

/// <summary>
/// A file's liveness is its scan's record (<see cref="LiveFiles"/>, created with the <see cref="ScanContext"/>), not a
/// flag on the node: a drop is seen by that scan alone, by node, and every reader of the scan (the cache, the catalog,
/// media) leaves a dropped file out.
/// </summary>
public sealed class LiveFilesTests
{
    [Fact]
    public void A_dropped_node_stays_dropped_once_and_other_nodes_stay_live()
    {
        var live = new LiveFiles();
        var (a, b) = (Node("a"), Node("b"));
        Assert.True(live.IsLive(a));
        Assert.False(live.IsDropped(a));
        Assert.Equal(0, live.DroppedCount);

        live.Drop(a);
        live.Drop(a);

        Assert.True(live.IsDropped(a));
        Assert.False(live.IsLive(a));
        Assert.True(live.IsLive(b));
        Assert.False(live.IsDropped(b));
        Assert.Equal(1, live.DroppedCount);

        // By node, not by file: media's payload node of a file drops out before, and apart from, its member node.
        Assert.True(live.IsLive(new FileNode(a.Primary)));
    }

    [Fact]
    public async Task A_drop_in_one_scan_is_not_seen_by_another_scan_of_the_same_nodes()
    {
        using var tree = new TempTree();
        tree.Write("a.bin", TempTree.RandomBytes(100, 1));
        var (nodes, first) = await NodesAsync(tree);
        var second = Context(tree);
        using var _ = first.Reader;
        using var __ = second.Reader;

        first.Live.Drop(nodes[0]);

        Assert.True(first.Live.IsDropped(nodes[0]));
        Assert.True(second.Live.IsLive(nodes[0]));
        Assert.NotSame(first.Live, second.Live);
    }

    [Fact]
    public async Task The_catalog_hands_on_no_digest_for_a_file_its_scan_dropped()
    {
        using var tree = new TempTree();
        tree.Write("a.bin", TempTree.RandomBytes(1000, 2));
        tree.Write("b.bin", TempTree.RandomBytes(1000, 3));
        var (nodes, context) = await NodesAsync(tree);
        using var _ = context.Reader;
        var handed = new List<CatalogDigest>();
        var hasher = new CatalogHasher();
        hasher.Start([], context, handed.Add);

        context.Live.Drop(nodes[0]); // by the stage, before the read that completes its digest
        foreach (var node in nodes)
        {
            using var handle = File.OpenHandle(node.Primary.Path.ToString());
            var bytes = new byte[node.Primary.Length];
            Assert.Equal(bytes.Length, RandomAccess.Read(handle, bytes, 0));
            hasher.OnRead(node, 0, bytes, OpenedFile.Of(node, handle), sameAs: null);
        }

        Assert.Equal([nodes[1].Primary.Stamp], handed.Select(digest => digest.Stamp));
    }

    [LinuxFact]
    public async Task The_cache_writes_no_entry_for_a_file_its_scan_dropped()
    {
        using var tree = new TempTree();
        using var store = new TempTree();
        tree.Write("a.bin", TempTree.RandomBytes(1000, 4));
        tree.Write("b.bin", TempTree.RandomBytes(1000, 5));
        await Caching.CacheFixture.LetSettleAsync(); // older than the racy window: both would be written
        var (nodes, context) = await NodesAsync(tree);
        using var _ = context.Reader;
        using var session = new CacheSession(new SqliteHashCache(store.PathOf("cache.db")), context.Options.Roots, context.Options.HashAlgorithm, log: null);
        session.Start(context.Live, CancellationToken.None);
        Assert.True(session.IsUsable);

        context.Live.Drop(nodes[0]);
        session.Write(nodes[0], probe: 1, partition: session.NewId(), @class: session.NewId());
        session.Write(nodes[1], probe: 2, partition: session.NewId(), @class: session.NewId());
        session.Finish(CancellationToken.None);

        Assert.Equal(1, session.Statistics.Written);
    }

    [Fact]
    public async Task Media_reports_the_live_copies_of_a_class_only()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(100, 6);
        foreach (var name in new[] { "a.bin", "b.bin", "c.bin" })
        {
            tree.Write(name, content);
        }

        var (nodes, context) = await NodesAsync(tree);
        using var _ = context.Reader;
        var found = new ContentClass([.. nodes], verified: true);

        context.Live.Drop(nodes[1]);
        var files = new List<DuplicateFile>();
        found.AddLiveFiles(context.Live, files);

        Assert.Equal([nodes[0].Primary.Path, nodes[2].Primary.Path], files.Select(f => f.Path));
    }

    private static FileNode Node(string name) =>
        new(new ScannedFile(Core.Paths.AbsolutePath.Parse(Path.Combine(Path.GetTempPath(), name)), 1, new FileIdentity(1, (ulong)name[0]), 1, DateTime.UnixEpoch));

    private static ScanContext Context(TempTree tree) =>
        new(new DuplicateFinderBuilder().AddRoot(tree.Root).Build().Options, new ScanErrorSink());

    /// <summary>The tree's files as compare-stage nodes, in name order, and a scan context for them.</summary>
    private static async Task<(List<FileNode> Nodes, ScanContext Context)> NodesAsync(TempTree tree)
    {
        var context = Context(tree);
        var files = new List<ScannedFile>();
        await foreach (var scanned in new ParallelFileEnumerator().EnumerateAsync(EnumerationContexts.Create(context.Options, new ScanErrorSink())))
        {
            files.Add(scanned);
        }

        return (files.OrderBy(file => file.Path.ToString(), StringComparer.Ordinal).Select(file => new FileNode(file)).ToList(), context);
    }
}
