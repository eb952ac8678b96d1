using Dedup.Core.Comparison.Hashing;
using Dedup.Core.Diagnostics;
using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Scanning;
using Dedup.Core.Scanning.Features;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.IO;

/// <summary>
/// The scan's comparison set: a group keeps only members still unchanged (at least two), a failed or dropped file
/// is never read again, files a read kept open are the set's until taken or released, and reads through content maps
/// or for a disk's physical order keep nothing open.
/// </summary>
public sealed class FileComparisonSetTests
{
    private const int Size = 1000;

    [LinuxFact]
    public async Task A_group_keeps_its_unchanged_members_and_drops_a_changed_one()
    {
        using var listed = await Listed.CreateAsync(4);
        var (tree, nodes) = (listed.Tree, listed.Nodes);
        File.AppendAllText(tree.PathOf("f2.bin"), "x"); // changed after the listing
        using var set = listed.Set();

        set.AddGroup([0, 1, 2], verifiedByBytes: true);
        set.AddGroup([2, 3], verifiedByBytes: false); // one left: no group
        set.AddGroup([0, 1, 3], verifiedByBytes: false);

        Assert.Equal(2, set.Groups.Count);
        Assert.Equal([0, 1], set.Groups[0].Members);
        Assert.True(set.Groups[0].Verified);
        Assert.Equal([0, 1, 3], set.Groups[1].Members);
        Assert.False(set.Groups[1].Verified);
        Assert.Equal([false, false, true, false], nodes.Select(listed.Context.Live.IsDropped));
    }

    [LinuxFact]
    public async Task A_group_of_two_is_kept_and_of_one_is_refused()
    {
        using var listed = await Listed.CreateAsync(2);
        using var set = listed.Set();

        var refused = Assert.Throws<ArgumentException>(() => set.AddGroup([0], verifiedByBytes: true));
        Assert.Equal("indices", refused.ParamName);
        Assert.StartsWith("A group needs at least two files.", refused.Message);
        set.AddGroup([0, 1], verifiedByBytes: true);

        Assert.Equal([0, 1], Assert.Single(set.Groups).Members);
    }

    [LinuxFact]
    public async Task A_file_that_fails_a_read_is_dropped_and_a_dropped_file_is_not_read_again()
    {
        using var listed = await Listed.CreateAsync(3);
        var (tree, nodes) = (listed.Tree, listed.Nodes);
        File.Delete(tree.PathOf("f1.bin"));
        using var set = listed.Set();
        var buffer = new byte[10];

        Assert.True(set.TryRead(0, 0, buffer));
        Assert.False(set.TryRead(1, 0, buffer));
        Assert.True(listed.Context.Live.IsDropped(nodes[1]));

        set.MarkFailed(0); // closes the file it kept open for the next read
        Assert.True(listed.Context.Live.IsDropped(nodes[0]));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
        Assert.False(set.TryRead(0, 0, buffer));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false)); // not opened again

        set.AddGroup([0, 2], verifiedByBytes: true);
        Assert.Empty(set.Groups);
        Assert.False(listed.Context.Live.IsDropped(nodes[2]));
    }

    [LinuxFact]
    public async Task A_probe_keeps_its_file_open_only_when_asked_until_it_is_taken()
    {
        using var listed = await Listed.CreateAsync(2);
        var (tree, nodes) = (listed.Tree, listed.Nodes);
        var prefix = new byte[100];
        var suffix = new byte[100];
        using var set = listed.Set();
        Assert.True(set.CanKeepOpen);

        Assert.True(set.TryProbe(0, prefix, suffix, keepOpen: false));
        Assert.False(set.KeptAny);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
        Assert.Equal(TempTree.RandomBytes(Size, 0).AsSpan(Size - 100).ToArray(), suffix);

        Assert.True(set.TryProbe(1, prefix, suffix, keepOpen: true));
        Assert.True(set.KeptAny);
        Assert.Equal([tree.PathOf("f1.bin")], OpenDescriptors.Under(tree.Root, includeRoot: false));
        Assert.False(set.TakeKept(0).IsOpen);
        Assert.True(set.KeptAny); // taking an empty slot takes nothing

        var kept = set.TakeKept(1);
        Assert.True(kept.IsOpen);
        Assert.Same(nodes[1], kept.Node);
        Assert.False(set.KeptAny);
        kept.Close();
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
    }

    [LinuxFact]
    public async Task Files_a_whole_read_kept_open_close_on_release_and_on_close_kept()
    {
        using var listed = await Listed.CreateAsync(3);
        var tree = listed.Tree;
        var whole = new byte[Size];
        var set = listed.Set();

        Assert.True(set.TryReadWhole(0, whole, keepOpen: false));
        Assert.Equal(TempTree.RandomBytes(Size, 0), whole);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
        Assert.True(set.TryReadWhole(1, whole, keepOpen: true));
        Assert.True(set.TryReadWhole(2, whole, keepOpen: true));
        Assert.Equal(2, OpenDescriptors.Under(tree.Root, includeRoot: false).Count);

        set.Release(1);
        Assert.Equal([tree.PathOf("f2.bin")], OpenDescriptors.Under(tree.Root, includeRoot: false));
        set.CloseKept();
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
        Assert.False(set.KeptAny);
        set.Dispose();
    }

    [LinuxFact]
    public async Task The_last_check_goes_through_the_file_a_read_kept_open_and_by_path_for_the_others()
    {
        using var listed = await Listed.CreateAsync(4);
        var (tree, nodes) = (listed.Tree, listed.Nodes);
        var whole = new byte[Size];
        using var set = listed.Set();
        Assert.True(set.TryReadWhole(0, whole, keepOpen: true));
        Assert.True(set.TryReadWhole(1, whole, keepOpen: true));
        Assert.True(set.TryReadWhole(2, whole, keepOpen: false));

        // f1 (read through the file kept open) and f2 (closed) are replaced by other files with their size and time.
        foreach (var name in new[] { "f1.bin", "f2.bin" })
        {
            var time = File.GetLastWriteTimeUtc(tree.PathOf(name));
            tree.Write(name + ".new", TempTree.RandomBytes(Size, 9));
            File.SetLastWriteTimeUtc(tree.PathOf(name + ".new"), time);
            File.Move(tree.PathOf(name + ".new"), tree.PathOf(name), overwrite: true);
        }

        set.AddGroup([0, 1, 2, 3], verifiedByBytes: true);

        // The bytes compared were f1's as read: its open file is unchanged. f2's name now names another file.
        Assert.Equal([0, 1, 3], Assert.Single(set.Groups).Members);
        Assert.Equal([false, false, true, false], nodes.Select(listed.Context.Live.IsDropped));
    }

    [LinuxFact]
    public async Task A_file_deleted_before_its_whole_read_or_probe_fails_without_being_dropped_here()
    {
        using var listed = await Listed.CreateAsync(1);
        var (tree, nodes) = (listed.Tree, listed.Nodes);
        File.Delete(tree.PathOf("f0.bin"));
        using var set = listed.Set();

        Assert.False(set.TryReadWhole(0, new byte[Size], keepOpen: true));
        Assert.False(set.TryProbe(0, new byte[10], new byte[10], keepOpen: true));
        Assert.False(set.KeptAny);
        Assert.False(listed.Context.Live.IsDropped(nodes[0]));
    }

    [LinuxFact]
    public async Task Reads_for_a_disks_physical_order_record_each_files_offset_and_keep_nothing_open()
    {
        using var listed = await Listed.CreateAsync(1);
        var nodes = listed.Nodes;
        using var set = new FileComparisonSet(nodes, Size, listed.Context) { RecordPhysicalOffsets = true };
        Assert.False(set.CanKeepOpen);
        Assert.Equal(-1, nodes[0].PhysicalOffset);

        Assert.True(set.TryProbe(0, new byte[10], new byte[10], keepOpen: false));

        Assert.NotEqual(-1, nodes[0].PhysicalOffset);
    }

    [LinuxFact]
    public async Task Reads_through_content_maps_read_each_files_mapped_bytes_and_keep_nothing_open()
    {
        using var listed = await Listed.CreateAsync(2);
        var nodes = listed.Nodes;
        var maps = new Dictionary<FileNode, IContentMap> { [nodes[0]] = new Skip(100), [nodes[1]] = new Skip(200) };
        using var set = listed.Set(Size - 200, maps);
        Assert.False(set.CanKeepOpen);
        Assert.Same(maps[nodes[1]], set.ContentMap(1));
        var buffer = new byte[50];

        Assert.True(set.TryRead(1, 10, buffer));
        Assert.Equal(TempTree.RandomBytes(Size, 1).AsSpan(210, 50).ToArray(), buffer);
        Assert.True(set.TryRead(0, 10, buffer));
        Assert.Equal(TempTree.RandomBytes(Size, 0).AsSpan(110, 50).ToArray(), buffer);
    }

    [LinuxFact]
    public async Task A_whole_file_digest_is_kept_for_the_cache_but_not_one_of_mapped_content()
    {
        using var listed = await Listed.CreateAsync(1);
        var nodes = listed.Nodes;
        var digests = new ContentDigests();
        digests.Open();
        var context = new ScanContext(new DuplicateFinderBuilder().AddRoot(listed.Tree.Root).Build().Options, new ScanErrorSink(), digests: digests);
        using var _ = context.Reader;

        using (var mapped = new FileComparisonSet(nodes, Size - 100, context, new Dictionary<FileNode, IContentMap> { [nodes[0]] = new Skip(100) }))
        {
            mapped.OnContentDigest(0, new ContentHash(1));
            Assert.False(digests.TryTake(nodes[0], out var _));
        }

        using var whole = new FileComparisonSet(nodes, Size, context);
        whole.OnContentDigest(0, new ContentHash(2));
        Assert.True(digests.TryTake(nodes[0], out var digest));
        Assert.Equal(new ContentHash(2), digest);
    }

    [LinuxFact]
    public async Task Probe_keys_are_kept_by_index_when_asked_for()
    {
        using var listed = await Listed.CreateAsync(2);
        var nodes = listed.Nodes;
        var keys = new ulong[2];
        using var keeping = new FileComparisonSet(nodes, Size, listed.Context) { ProbeKeys = keys };
        using var plain = listed.Set();

        keeping.NoteProbeKey(1, 42);
        plain.NoteProbeKey(0, 7);

        Assert.Equal([0UL, 42UL], keys);
        Assert.Null(plain.ProbeKeys);
        Assert.Same(nodes[1], keeping[1]);
        Assert.Equal(2, keeping.Count);
        Assert.Equal(Size, keeping.Length);
    }

    /// <summary>
    /// Files f0..f(n-1).bin of <see cref="Size"/> random bytes each, seeded by their number, listed as a scan lists them
    /// (nodes in path order), with a scan context whose reader the tests' sets read through.
    /// </summary>
    private sealed class Listed : IDisposable
    {
        private Listed(TempTree tree, ScanContext context, List<FileNode> nodes) => (Tree, Context, Nodes) = (tree, context, nodes);

        public TempTree Tree { get; }

        public ScanContext Context { get; }

        public List<FileNode> Nodes { get; }

        public static async Task<Listed> CreateAsync(int count)
        {
            var tree = new TempTree();
            for (var i = 0; i < count; i++)
            {
                tree.Write($"f{i}.bin", TempTree.RandomBytes(Size, i));
            }

            var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).Build();
            var files = new List<ScannedFile>();
            await foreach (var scanned in new ParallelFileEnumerator().EnumerateAsync(EnumerationContexts.Create(finder.Options, new ScanErrorSink())))
            {
                files.Add(scanned);
            }

            var nodes = files.OrderBy(f => f.Path.ToString(), StringComparer.Ordinal).Select(f => new FileNode(f)).ToList();
            return new Listed(tree, new ScanContext(finder.Options, new ScanErrorSink()), nodes);
        }

        /// <summary>A set of every node, of <paramref name="length"/> bytes (the files' size unless given).</summary>
        public FileComparisonSet Set(long length = Size, IReadOnlyDictionary<FileNode, IContentMap>? maps = null) => new(Nodes, length, Context, maps);

        public void Dispose()
        {
            Context.Reader.Dispose();
            Tree.Dispose();
        }
    }

    /// <summary>Content that skips the file's first bytes: content offset o is file offset o + skip.</summary>
    private sealed class Skip(long skip) : IContentMap
    {
        public long Length => Size - skip;

        public (long FileOffset, long Available) Map(long contentOffset) => (contentOffset + skip, Length - contentOffset);

        public long CoalescedSpan(long contentOffset, long wanted, long maxSpan, long maxGap) => Math.Min(wanted, maxSpan);
    }
}
