using Dedup.Core.Catalog;
using Dedup.Core.Diagnostics;
using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Catalog;

/// <summary>
/// <see cref="CatalogHasher"/> checks a digest as the read that completes it ends, through the descriptor that read went
/// through (still open), and hands it on at once; a file changed before that check gets none.
/// </summary>
public sealed class CatalogHasherTests
{
    [Fact]
    public async Task Digests_are_checked_and_handed_on_as_they_complete()
    {
        using var tree = new TempTree();
        for (var i = 0; i < 5; i++)
        {
            tree.Write($"f{i}.bin", TempTree.RandomBytes(1000, 100 + i));
        }

        var (nodes, state, hasher, handed) = await StartedAsync(tree);

        foreach (var node in nodes)
        {
            using var handle = File.OpenHandle(node.Primary.Path.ToString());
            hasher.OnRead(node, 0, ReadAll(handle, node), OpenedFile.Of(node, handle), sameAs: null);
            Assert.Equal(node.Primary.Stamp, handed[^1].Stamp); // handed on by the read that completed it
        }

        Assert.Equal(nodes.Select(node => node.Primary.Stamp), handed.Select(digest => digest.Stamp));
        Assert.Equal(5, hasher.TakeReadWhole().Count);
        AssertDigestsAreTheFiles(nodes, handed);
        Assert.Equal(0, state.Errors.Count);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_file_rewritten_between_its_read_and_the_check_gets_no_digest(bool byDescriptor)
    {
        using var tree = new TempTree();
        tree.Write("a.bin", TempTree.RandomBytes(1000, 200));
        tree.Write("b.bin", TempTree.RandomBytes(1000, 201));
        var (nodes, state, hasher, handed) = await StartedAsync(tree);

        var first = nodes[0];
        var path = first.Primary.Path.ToString();
        using (var handle = File.OpenHandle(path))
        {
            var bytes = ReadAll(handle, first);
            // Rewritten in place (same inode) with its size and modification time put back: only the change time tells.
            var written = File.GetLastWriteTimeUtc(path);
            await Task.Delay(50); // past the kernel's coarse clock: the change time moves
            using (var rewrite = new FileStream(path, FileMode.Open, FileAccess.Write))
            {
                rewrite.Write(TempTree.RandomBytes(1000, 300));
            }

            File.SetLastWriteTimeUtc(path, written);
            hasher.OnRead(first, 0, bytes, byDescriptor ? OpenedFile.Of(first, (int)handle.DangerousGetHandle()) : OpenedFile.Of(first, handle), sameAs: null);
        }

        using (var handle = File.OpenHandle(nodes[1].Primary.Path.ToString()))
        {
            hasher.OnRead(nodes[1], 0, ReadAll(handle, nodes[1]), OpenedFile.Of(nodes[1], handle), sameAs: null);
        }

        Assert.Equal([nodes[1].Primary.Stamp], handed.Select(digest => digest.Stamp));
        Assert.Equal(2, hasher.TakeReadWhole().Count); // the rewritten one is not read again either
    }

    [Fact]
    public async Task The_check_goes_through_the_open_descriptor_not_the_path()
    {
        // Its folder renamed after its read (the file's own change time stays): the bytes read are still the listed
        // file's, so its digest stands; a check by path would have found nothing there and reported the file.
        using var tree = new TempTree();
        tree.Write("d/a.bin", TempTree.RandomBytes(3000, 400));
        var (nodes, state, hasher, handed) = await StartedAsync(tree);

        var node = nodes[0];
        using (var handle = File.OpenHandle(node.Primary.Path.ToString()))
        {
            var bytes = ReadAll(handle, node);
            Directory.Move(tree.PathOf("d"), tree.PathOf("e"));
            // Fed in two reads: the second completes the digest and is checked.
            hasher.OnRead(node, 0, bytes.AsSpan(0, 1000), OpenedFile.Of(node, (int)handle.DangerousGetHandle()), sameAs: null);
            Assert.Empty(handed);
            hasher.OnRead(node, 1000, bytes.AsSpan(1000), OpenedFile.Of(node, (int)handle.DangerousGetHandle()), sameAs: null);
            // Read again, whole or in pieces: hashed once.
            hasher.OnRead(node, 0, bytes, OpenedFile.Of(node, (int)handle.DangerousGetHandle()), sameAs: null);
            hasher.OnRead(node, 0, bytes.AsSpan(0, 1000), OpenedFile.Of(node, (int)handle.DangerousGetHandle()), sameAs: null);
        }

        Assert.Equal([node.Primary.Stamp], handed.Select(digest => digest.Stamp));
        Assert.Equal([node.Primary.Identity], hasher.TakeReadWhole());
        Assert.Equal(System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(tree.PathOf("e/a.bin"))), handed[0].Sha256.ToArray());
        Assert.Equal(0, state.Errors.Count);
    }

    [Fact]
    public async Task Files_hashed_in_pieces_one_after_another_each_get_their_own_digest()
    {
        // The hash objects of files read in pieces are reused: one given up midway (a gap in its reads) or finished must
        // carry nothing into the next file's digest, two files in progress at once included.
        using var tree = new TempTree();
        for (var i = 0; i < 6; i++)
        {
            tree.Write($"f{i}.bin", TempTree.RandomBytes(5000 + i, 500 + i));
        }

        var (nodes, state, hasher, handed) = await StartedAsync(tree);
        WithOpen(hasher, nodes, feed =>
        {
            feed(0, 0, 1000, null);
            feed(0, 2000, 3000, null); // a gap: given up, hashed later by a read of its own
            feed(0, 3000, (int)nodes[0].Primary.Length, null); // the rest after the gap completes nothing
            feed(1, 0, 1000, null);
            feed(1, 0, 500, null); // read again: hashed once
            feed(2, 0, 2500, null); // 1 and 2 in progress at once
            feed(1, 1000, (int)nodes[1].Primary.Length, null);
            feed(2, 2500, (int)nodes[2].Primary.Length, null);
            for (var i = 3; i < nodes.Count; i++)
            {
                feed(i, 0, 100, null);
                feed(i, 100, (int)nodes[i].Primary.Length, null);
            }
        });

        Assert.Equal(nodes.Skip(1).Select(node => node.Primary.Stamp), handed.Select(digest => digest.Stamp));
        AssertDigestsAreTheFiles(nodes, handed);
    }

    [Fact]
    public async Task Copies_take_their_class_first_files_digest_and_hash_nothing_themselves()
    {
        // As the comparison shows them: per chunk the class's first file, then its copies (sameAs), in step; and small
        // files read whole, each copy right after the file it equals.
        using var tree = new TempTree();
        var large = TempTree.RandomBytes(10_000, 600);
        var small = TempTree.RandomBytes(300, 601);
        foreach (var name in new[] { "a.bin", "b.bin", "c.bin" })
        {
            tree.Write(name, large);
        }

        tree.Write("w.bin", TempTree.RandomBytes(300, 602));
        tree.Write("x.bin", small);
        tree.Write("y.bin", small);
        tree.Write("z.bin", small);
        var (nodes, state, hasher, handed) = await StartedAsync(tree); // a, b, c, w, x, y, z
        Assert.True(hasher.TakesCopies);
        WithOpen(hasher, nodes, feed =>
        {
            foreach (var (from, to) in new[] { (0, 4000), (4000, 8000), (8000, 10_000) })
            {
                feed(0, from, to, null);
                feed(1, from, to, 0);
                feed(2, from, to, 0);
            }

            feed(4, 0, 300, null);
            feed(5, 0, 300, 4);
            feed(3, 0, 300, null);
            feed(6, 0, 300, 4); // a copy of x shown after w was hashed: it hashes its own bytes
        });

        Assert.Equal(large.Length + (3 * small.Length), hasher.BytesHashed);
        Assert.True(nodes.Select(node => node.Primary.Stamp).ToHashSet().SetEquals(handed.Select(digest => digest.Stamp)));
        Assert.Equal(nodes.Count, handed.Count);
        AssertDigestsAreTheFiles(nodes, handed);
        Assert.Equal(7, hasher.TakeReadWhole().Count);
    }

    [Fact]
    public async Task A_copy_that_leaves_its_class_or_follows_bytes_not_just_hashed_gets_no_digest_from_the_compare()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(9_000, 610);
        var other = (byte[])content.Clone();
        other[5_000] ^= 0xFF;
        tree.Write("a.bin", content);
        tree.Write("b.bin", other); // equal to a's first 4,000 bytes only
        tree.Write("c.bin", content);
        tree.Write("d.bin", content);
        tree.Write("e.bin", content);
        var last = (byte[])content.Clone();
        last[8_500] ^= 0xFF;
        tree.Write("f.bin", last); // equal to a but in its last 1,000 bytes
        var (nodes, state, hasher, handed) = await StartedAsync(tree); // a, b, c, d, e, f
        WithOpen(hasher, nodes, feed =>
        {
            feed(0, 0, 4000, null);
            feed(1, 0, 4000, 0);
            feed(2, 0, 4000, 0);
            feed(3, 0, 4000, 0);
            feed(5, 0, 4000, 0);
            feed(0, 4000, 8000, null);
            feed(5, 4000, 8000, 0);
            feed(1, 4000, 8000, null); // b differs from a here: a class of its own
            feed(2, 4000, 8000, 1); // told it equals b, which a's class did not hash: c gives up
            feed(0, 0, 4000, null); // a read again: its hash skips bytes it already took
            feed(3, 4000, 8000, 0); // d says it equals a's bytes, but a's last call hashed none: d gives up
            feed(4, 0, 4000, 1); // e's first bytes equal to b's, which follows a and hashes nothing: e hashes its own
            feed(0, 8000, 9000, null);
            feed(5, 8000, 9000, null); // f leaves a's class at its last bytes: no digest, not a's
            feed(1, 8000, 9000, null); // b, c and d to their end: none takes a digest any more
            feed(2, 8000, 9000, 0);
            feed(3, 8000, 9000, 0);
            feed(4, 4000, 9000, null);
        });

        // a and e hashed their bytes; b, c and d only their first 4,000 (none: they followed), so the catalog reads them again.
        Assert.Equal(2 * content.Length, hasher.BytesHashed);
        Assert.Equal([nodes[0].Primary.Stamp, nodes[4].Primary.Stamp], handed.Select(digest => digest.Stamp));
        AssertDigestsAreTheFiles(nodes, handed);
        Assert.Equal(2, hasher.TakeReadWhole().Count);
    }

    [Fact]
    public async Task A_copy_rewritten_before_its_last_bytes_are_checked_gets_no_digest_though_its_class_first_file_does()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(6_000, 620);
        tree.Write("a.bin", content);
        var b = tree.Write("b.bin", content);
        var (nodes, state, hasher, handed) = await StartedAsync(tree);
        await WithOpenAsync(hasher, nodes, async feed =>
        {
            feed(0, 0, 3000, null);
            feed(1, 0, 3000, 0);
            feed(0, 3000, 6000, null);
            var written = File.GetLastWriteTimeUtc(b);
            await Task.Delay(50); // past the kernel's coarse clock: the change time moves
            await File.WriteAllBytesAsync(b, TempTree.RandomBytes(6_000, 621));
            File.SetLastWriteTimeUtc(b, written);
            feed(1, 3000, 6000, 0); // its own check, through its own descriptor, sees the change time move
        });

        Assert.Equal([nodes[0].Primary.Stamp], handed.Select(digest => digest.Stamp));
        AssertDigestsAreTheFiles(nodes, handed);
    }

    /// <summary>Runs <paramref name="body"/> with each node's file open and a feed (file, from, to, the file it equals or null) that shows the hasher its bytes.</summary>
    private static async Task WithOpenAsync(CatalogHasher hasher, List<FileNode> nodes, Func<Action<int, int, int, int?>, Task> body)
    {
        var files = nodes.Select(node => (Node: node, Handle: File.OpenHandle(node.Primary.Path.ToString()))).ToList();
        try
        {
            var bytes = files.Select(file => ReadAll(file.Handle, file.Node)).ToList();
            await body((i, from, to, sameAs) => hasher.OnRead(files[i].Node, from, bytes[i].AsSpan(from, to - from), OpenedFile.Of(files[i].Node, files[i].Handle), sameAs is { } k ? nodes[k] : null));
        }
        finally
        {
            files.ForEach(file => file.Handle.Dispose());
        }
    }

    private static void WithOpen(CatalogHasher hasher, List<FileNode> nodes, Action<Action<int, int, int, int?>> body) =>
        WithOpenAsync(hasher, nodes, feed =>
        {
            body(feed);
            return Task.CompletedTask;
        }).GetAwaiter().GetResult();

    private static void AssertDigestsAreTheFiles(List<FileNode> nodes, List<CatalogDigest> handed) =>
        Assert.All(handed, digest => Assert.Equal(
            System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(nodes.Single(node => node.Primary.Stamp == digest.Stamp).Primary.Path.ToString())),
            digest.Sha256.ToArray()));

    private static byte[] ReadAll(Microsoft.Win32.SafeHandles.SafeFileHandle handle, FileNode node)
    {
        var bytes = new byte[node.Primary.Length];
        Assert.Equal(bytes.Length, RandomAccess.Read(handle, bytes, 0));
        return bytes;
    }

    /// <summary>The tree's files as nodes (<see cref="NodesAsync"/>) and a hasher started on them, handing its digests to a list.</summary>
    private static async Task<(List<FileNode> Nodes, ScanContext State, CatalogHasher Hasher, List<CatalogDigest> Handed)> StartedAsync(TempTree tree)
    {
        var (nodes, state) = await NodesAsync(tree);
        var handed = new List<CatalogDigest>();
        var hasher = new CatalogHasher();
        hasher.Start([], state, handed.Add);
        return (nodes, state, hasher, handed);
    }

    /// <summary>The tree's files as compare-stage nodes, in name order, and a scan state to check them with.</summary>
    private static async Task<(List<FileNode> Nodes, ScanContext State)> NodesAsync(TempTree tree)
    {
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).Build();
        var files = new List<ScannedFile>();
        await foreach (var scanned in new ParallelFileEnumerator().EnumerateAsync(EnumerationContexts.Create(finder.Options, new ScanErrorSink())))
        {
            files.Add(scanned);
        }

        return (files.OrderBy(file => file.Path.ToString(), StringComparer.Ordinal).Select(file => new FileNode(file)).ToList(), new ScanContext(finder.Options, new Dedup.Core.Diagnostics.ScanErrorSink()));
    }
}
