using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// Small files read whole by the probe and settled from their bytes: a set read on one thread keeps its files open
/// until it is settled, so a group's last check is a stat of the descriptor that read the bytes; it still catches a
/// file changed after its read, and leaves nothing open.
/// </summary>
public sealed class WholeReadTests
{
    [LinuxFact]
    public async Task Files_read_whole_stay_open_until_their_set_is_settled_and_no_longer()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(100, 1);
        foreach (var name in new[] { "a.bin", "b.bin", "c.bin" })
        {
            tree.Write(name, content);
        }

        var openAtEachRead = new List<List<string>>();
        var observer = new Hook((_, _) => openAtEachRead.Add(OpenDescriptors.Under(tree.Root, includeRoot: false)));
        var (set, _) = await SetAsync(tree, observer);
        using (set)
        {
            var unsettled = new List<List<int>>();
            ProbeStage.Run(set, ReaderFanOut.Single, unsettled, CancellationToken.None);

            Assert.Empty(unsettled);
            var group = Assert.Single(set.Groups);
            Assert.Equal([0, 1, 2], group.Members);
            Assert.True(group.Verified);
        }

        // Each read saw the files read before it still open (the one being read, too: 1, 2, 3 descriptors).
        Assert.Equal([1, 2, 3], openAtEachRead.Select(open => open.Count));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
    }

    [LinuxFact]
    public async Task A_file_changed_after_its_whole_read_is_left_out_of_the_group()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(100, 2);
        foreach (var name in new[] { "a.bin", "b.bin", "c.bin" })
        {
            tree.Write(name, content);
        }

        // Once b's bytes are read (and before the group's last check), b is rewritten in place with other bytes of
        // the same size and a later time: the same inode, so only the stat of its descriptor can tell.
        var b = tree.PathOf("b.bin");
        var changed = false;
        var observer = new Hook((node, _) =>
        {
            if (!changed && node.Primary.Path.ToString() == b)
            {
                changed = true;
                using (var stream = new FileStream(b, FileMode.Open, FileAccess.Write))
                {
                    stream.Write(TempTree.RandomBytes(100, 3));
                }

                File.SetLastWriteTimeUtc(b, DateTime.UtcNow.AddMinutes(1));
            }
        });
        var (set, state) = await SetAsync(tree, observer);
        using (set)
        {
            ProbeStage.Run(set, ReaderFanOut.Single, [], CancellationToken.None);

            Assert.True(changed);
            var group = Assert.Single(set.Groups);
            Assert.Equal([0, 2], group.Members);
            Assert.True(state.Live.IsDropped(set[1]));
        }

        var error = Assert.Single(state.Errors.ToArray());
        Assert.Equal(b, error.Path);
        Assert.Equal(Dedup.Core.Reporting.ScanErrorKind.Changed, error.Kind);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
    }

    [LinuxFact]
    public async Task A_set_disposed_after_its_whole_reads_were_closed_closes_no_descriptor_of_another_file()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(100, 4);
        tree.Write("a.bin", content);
        tree.Write("b.bin", content);
        tree.Write("other/c.txt", TempTree.RandomBytes(10, 5));

        // The descriptor numbers the set reads through, seen while they are open.
        var numbers = new HashSet<int>();
        var observer = new Hook((_, _) => numbers.UnionWith(DescriptorsUnder(tree.Root)));
        var (set, _) = await SetAsync(tree, observer);
        var standard = StandardDescriptors(); // c.txt is in the set and fails its read: its empty slot must close nothing
        var held = new List<Microsoft.Win32.SafeHandles.SafeFileHandle>();
        try
        {
            ProbeStage.Run(set, ReaderFanOut.Single, [], CancellationToken.None);
            Assert.Single(set.Groups);
            Assert.NotEmpty(numbers);

            // Closed once settled: the numbers are free, and the next opens take them (the lowest free number first).
            for (var i = 0; i < 64 && !numbers.IsSubsetOf(held.Select(h => (int)h.DangerousGetHandle())); i++)
            {
                held.Add(File.OpenHandle(tree.PathOf("other/c.txt")));
            }

            set.Dispose(); // must not close those numbers again: they are other files' now
            var buffer = new byte[10];
            foreach (var handle in held)
            {
                Assert.Equal(10, RandomAccess.Read(handle, buffer, 0));
            }
        }
        finally
        {
            set.Dispose();
            held.ForEach(h => h.Dispose());
        }

        Assert.Equal(standard, StandardDescriptors());
    }

    [LinuxFact]
    public async Task A_file_gone_before_its_read_leaves_no_descriptor_to_check_or_close()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(100, 6);
        foreach (var name in new[] { "a.bin", "b.bin", "c.bin" })
        {
            tree.Write(name, content);
        }

        var (set, state) = await SetAsync(tree, new Hook((_, _) => { }));
        File.Delete(tree.PathOf("b.bin")); // listed, then gone: its slot never gets a descriptor
        var standard = StandardDescriptors();
        using (set)
        {
            ProbeStage.Run(set, ReaderFanOut.Single, [], CancellationToken.None);
            Assert.Equal([0, 2], Assert.Single(set.Groups).Members);
            Assert.True(state.Live.IsDropped(set[1]));
        }

        // An empty slot is not a descriptor: closing the set closed none of the process's own (0, 1, 2 are never a file read here).
        Assert.Equal(standard, StandardDescriptors());
        Assert.Single(state.Errors.ToArray());
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
    }

    /// <summary>What descriptors 0, 1 and 2 lead to (a closed one, or one reused by a later open, shows as changed).</summary>
    private static string[] StandardDescriptors() =>
        [.. new[] { 0, 1, 2 }.Select(fd => File.Exists($"/proc/self/fd/{fd}") ? new FileInfo($"/proc/self/fd/{fd}").LinkTarget ?? "?" : "closed")];

    private static IEnumerable<int> DescriptorsUnder(string root)
    {
        foreach (var fd in Directory.EnumerateFileSystemEntries("/proc/self/fd"))
        {
            string? target = null;
            try
            {
                target = new FileInfo(fd).LinkTarget;
            }
            catch (IOException)
            {
                // Closed while listing.
            }

            if (target is not null && target.StartsWith(root + "/", StringComparison.Ordinal) && !target.EndsWith(".txt", StringComparison.Ordinal))
            {
                yield return int.Parse(Path.GetFileName(fd), System.Globalization.CultureInfo.InvariantCulture);
            }
        }
    }

    /// <summary>The tree's files (all of one size) as one comparison set of a scan with <paramref name="observer"/>, in name order.</summary>
    internal static async Task<(FileComparisonSet Set, ScanContext State)> SetAsync(TempTree tree, IReadObserver observer, Func<DuplicateFinderBuilder, DuplicateFinderBuilder>? configure = null)
    {
        var finder = (configure ?? (builder => builder))(new DuplicateFinderBuilder().AddRoot(tree.Root)).Build();
        var files = new List<ScannedFile>();
        await foreach (var scanned in new ParallelFileEnumerator().EnumerateAsync(EnumerationContexts.Create(finder.Options, new Dedup.Core.Diagnostics.ScanErrorSink())))
        {
            files.Add(scanned);
        }

        var nodes = files.OrderBy(f => f.Path.ToString(), StringComparer.Ordinal).Select(f => new FileNode(f)).ToList();
        var state = new ScanContext(finder.Options, new Dedup.Core.Diagnostics.ScanErrorSink(), observer);
        return (new FileComparisonSet(nodes, nodes[0].Primary.Length, state), state);
    }

    private sealed class Hook(Action<FileNode, long> onRead) : IReadObserver
    {
        public bool TakesCopies => false;

        public void OnRead(FileNode node, long offset, ReadOnlySpan<byte> bytes, OpenedFile file, FileNode? sameAs) => onRead(node, offset);
    }
}
