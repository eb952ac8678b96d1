using Dedup.Core.Catalog;
using Dedup.Core.Enumeration;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// <see cref="CatalogHasher"/> hands checked digests on while the compare stage still reads, a round after they
/// completed, so the catalog can store them meanwhile; a file changed after its read gets none.
/// </summary>
public sealed class CatalogHasherTests
{
    [Fact]
    public async Task Digests_are_handed_on_a_round_after_they_complete_and_the_rest_when_taken()
    {
        using var tree = new TempTree();
        for (var i = 0; i < 5; i++)
        {
            tree.Write($"f{i}.bin", TempTree.RandomBytes(1000, 100 + i));
        }

        var (nodes, state) = await NodesAsync(tree);
        var handed = new List<CatalogDigest>();
        var hasher = new CatalogHasher { HandOnEvery = 2 };
        hasher.Start([], state, handed.Add);

        foreach (var node in nodes)
        {
            hasher.OnRead(node, 0, File.ReadAllBytes(node.Primary.Path.ToString()));
        }

        // Five completed: the second completion ages the first two, the fourth hands them on; the other three wait.
        Assert.Equal(nodes.Take(2).Select(node => node.Stamp), handed.Select(digest => digest.Stamp));
        await using var threads = new ScanThreads(2);
        var (rest, readWhole) = hasher.TakeDigests(state, threads, CancellationToken.None);
        Assert.Equal(nodes.Skip(2).Select(node => node.Stamp).Order(ByInode.Instance), rest.Select(digest => digest.Stamp).Order(ByInode.Instance));
        Assert.Equal(5, readWhole.Count);
        Assert.All(handed.Concat(rest), digest => Assert.Equal(
            System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(nodes.Single(node => node.Stamp == digest.Stamp).Primary.Path.ToString())),
            digest.Sha256.ToArray()));
        Assert.Equal(0, state.Errors.Count);
    }

    [Fact]
    public async Task A_file_rewritten_after_its_digest_completed_is_not_handed_on()
    {
        using var tree = new TempTree();
        for (var i = 0; i < 4; i++)
        {
            tree.Write($"f{i}.bin", TempTree.RandomBytes(1000, 200 + i));
        }

        var (nodes, state) = await NodesAsync(tree);
        var handed = new List<CatalogDigest>();
        var hasher = new CatalogHasher { HandOnEvery = 2 };
        hasher.Start([], state, handed.Add);

        var first = nodes[0];
        hasher.OnRead(first, 0, File.ReadAllBytes(first.Primary.Path.ToString()));
        // Rewritten with its size and modification time put back: only the change time tells.
        var written = File.GetLastWriteTimeUtc(first.Primary.Path.ToString());
        await Task.Delay(50); // past the kernel's coarse clock: the change time moves
        await File.WriteAllBytesAsync(first.Primary.Path.ToString(), TempTree.RandomBytes(1000, 300));
        File.SetLastWriteTimeUtc(first.Primary.Path.ToString(), written);
        foreach (var node in nodes.Skip(1))
        {
            hasher.OnRead(node, 0, File.ReadAllBytes(node.Primary.Path.ToString()));
        }

        Assert.Equal([nodes[1].Stamp], handed.Select(digest => digest.Stamp));
        await using var threads = new ScanThreads(1);
        var (rest, _) = hasher.TakeDigests(state, threads, CancellationToken.None);
        Assert.Equal(nodes.Skip(2).Select(node => node.Stamp).Order(ByInode.Instance), rest.Select(digest => digest.Stamp).Order(ByInode.Instance));
    }

    /// <summary>The tree's files as compare-stage nodes, in name order, and a scan state to check them with.</summary>
    private static async Task<(List<FileNode> Nodes, ScanState State)> NodesAsync(TempTree tree)
    {
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).Build();
        var files = new List<ScannedFile>();
        await foreach (var scanned in new ParallelFileEnumerator().EnumerateAsync(EnumerationContexts.Create(finder.Options, new ScanErrorSink())))
        {
            files.Add(scanned);
        }

        return (files.OrderBy(file => file.Path.ToString(), StringComparer.Ordinal).Select(file => new FileNode(file)).ToList(), new ScanState(finder.Options));
    }

    private sealed class ByInode : IComparer<Core.Caching.FileStamp>
    {
        public static readonly ByInode Instance = new();

        public int Compare(Core.Caching.FileStamp x, Core.Caching.FileStamp y) => x.Identity.FileId.CompareTo(y.Identity.FileId);
    }
}
