using Dedup.Core.Diagnostics;
using Dedup.Core.Enumeration;
using Dedup.Core.Scanning;
using Dedup.Core.IO;
using Dedup.Core.Pooling;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.IO;

/// <summary>
/// A set's open files: those adopted from another set's probe count as open and are read on through (not opened
/// again), taking one leaves the set without it, and disposing closes every file still held.
/// </summary>
public sealed class OpenFileSetTests
{
    [LinuxFact]
    public async Task Adopted_files_count_as_open_are_read_through_and_leave_with_take()
    {
        using var tree = new TempTree();
        for (var i = 0; i < 3; i++)
        {
            tree.Write($"f{i}.bin", TempTree.RandomBytes(100, i));
        }

        var nodes = await NodesAsync(tree);
        var errors = new ScanErrorSink();
        using var reader = new FileReader(BufferPool.Shared, errors, trustedIdentities: true);
        var adopted = new OpenedFile[3];
        adopted[1] = reader.TryOpen(nodes[1]);
        adopted[2] = OpenedFile.None;
        var buffer = new byte[10];

        using (var files = new OpenFileSet(reader, nodes, adopted))
        {
            Assert.True(files.Any);
            Assert.True(files.TryRead(1, 20, buffer, map: null));
            Assert.Equal(TempTree.RandomBytes(100, 1).AsSpan(20, 10).ToArray(), buffer);
            Assert.Equal([tree.PathOf("f1.bin")], OpenDescriptors.Under(tree.Root, includeRoot: false)); // not opened again

            Assert.False(files.Take(0).IsOpen);
            Assert.True(files.Any);
            var taken = files.Take(1);
            Assert.True(taken.IsOpen);
            Assert.False(files.Any);
            Assert.False(adopted[1].IsOpen); // its slot is cleared: the set will not close it again
            taken.Close();

            Assert.True(files.TryRead(2, 0, buffer, map: null));
            Assert.True(files.TryRead(0, 0, buffer, map: null));
            Assert.True(files.Any);
            Assert.Equal(2, OpenDescriptors.Under(tree.Root, includeRoot: false).Count);
        }

        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
        Assert.Equal(0, errors.Count);
    }

    [LinuxFact]
    public async Task A_set_with_nothing_open_has_none()
    {
        using var tree = new TempTree();
        tree.Write("f0.bin", TempTree.RandomBytes(100, 0));
        var nodes = await NodesAsync(tree);
        using var reader = new FileReader(BufferPool.Shared, new ScanErrorSink(), trustedIdentities: true);

        using var files = new OpenFileSet(reader, nodes, new OpenedFile[1]);

        Assert.False(files.Any);
        files.Release(0); // nothing to close
        Assert.False(files.Any);
    }

    [LinuxFact]
    public async Task Over_its_cap_a_set_closes_an_open_file_passing_over_empty_slots()
    {
        using var tree = new TempTree();
        var count = OpenFileSet.MaxOpen + 2;
        for (var i = 0; i < count; i++)
        {
            tree.Write($"f{i:D3}.bin", TempTree.RandomBytes(10, i));
        }

        var nodes = await NodesAsync(tree);
        using var reader = new FileReader(BufferPool.Shared, new ScanErrorSink(), trustedIdentities: true);
        var buffer = new byte[10];
        using var files = new OpenFileSet(reader, nodes);
        for (var i = 0; i <= OpenFileSet.MaxOpen; i++)
        {
            Assert.True(files.TryRead(i, 0, buffer, map: null)); // the last closes file 1 to make room
        }

        files.Release(2); // the slot after the one last closed is empty now
        Assert.True(files.TryRead(1, 0, buffer, map: null)); // under the cap: nothing closed
        Assert.Equal(OpenFileSet.MaxOpen, OpenDescriptors.Under(tree.Root, includeRoot: false).Count);

        Assert.True(files.TryRead(count - 1, 0, buffer, map: null));

        // Another file was closed for it (file 3: the empty slot 2 was passed over), so the set stays at its cap.
        var open = OpenDescriptors.Under(tree.Root, includeRoot: false);
        Assert.Equal(OpenFileSet.MaxOpen, open.Count);
        Assert.DoesNotContain(tree.PathOf("f003.bin"), open);
        Assert.Equal(TempTree.RandomBytes(10, count - 1), buffer);
    }

    private static async Task<List<FileNode>> NodesAsync(TempTree tree)
    {
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).Build();
        var files = new List<ScannedFile>();
        await foreach (var scanned in new ParallelFileEnumerator().EnumerateAsync(EnumerationContexts.Create(finder.Options, new ScanErrorSink())))
        {
            files.Add(scanned);
        }

        return files.OrderBy(f => f.Path.ToString(), StringComparer.Ordinal).Select(f => new FileNode(f)).ToList();
    }
}
