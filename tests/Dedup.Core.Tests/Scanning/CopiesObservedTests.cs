using Dedup.Core.Comparison;
using Dedup.Core.Comparison.Strategies;
using Dedup.Core.IO;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// A read observer that takes copies (a catalog scan's hasher) is shown each file's bytes once the comparer compared
/// them, a copy with the file whose bytes it equals byte for byte, shown just before: by the probe's whole reads (each
/// class's first file, then its copies, every file still open) and by the lockstep comparison (per chunk); never when a
/// trusted hash stood for the bytes.
/// </summary>
public sealed class CopiesObservedTests
{
    [LinuxFact]
    public async Task Small_files_are_shown_once_settled_each_copy_right_after_the_file_it_equals_all_still_open()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(100, 20);
        var other = TempTree.RandomBytes(100, 21);
        tree.Write("a.bin", content);
        tree.Write("b.bin", other);
        tree.Write("c.bin", content);
        tree.Write("d.bin", other);
        tree.Write("e.bin", TempTree.RandomBytes(100, 22));
        var seen = new List<(string Name, string? SameAs, int Open)>();
        var observer = new Recorder((node, _, bytes, sameAs) =>
        {
            Assert.Equal(File.ReadAllBytes(node.Primary.Path.ToString()), bytes); // the file's own bytes
            seen.Add((NameOf(node), sameAs is null ? null : NameOf(sameAs), OpenDescriptors.Under(tree.Root, includeRoot: false).Count));
        });
        var (set, _) = await WholeReadTests.SetAsync(tree, observer);
        using (set)
        {
            ProbeStage.Run(set, ReaderFanOut.Single, [], CancellationToken.None);
            Assert.Equal(2, set.Groups.Count);
        }

        Assert.Equal(["a", "b", "c", "d", "e"], seen.Select(entry => entry.Name).Order());
        Assert.All(seen, entry => Assert.Equal(5, entry.Open)); // shown after every read, before any file is closed
        var copies = seen.Where(entry => entry.SameAs is not null).Select(entry => string.Concat(new[] { entry.Name, entry.SameAs! }.Order())).Order();
        Assert.Equal(["ac", "bd"], copies);
        for (var i = 0; i < seen.Count; i++)
        {
            if (seen[i].SameAs is { } first)
            {
                Assert.Equal(first, seen.Take(i).Last(entry => entry.SameAs is null).Name); // right after the file it equals
            }
        }

        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Chunks_compared_in_step_are_shown_with_their_class_first_file_unless_a_trusted_hash_stood_for_the_bytes(bool trusted)
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(300_000, 23);
        var apart = (byte[])content.Clone();
        apart[200_000] ^= 0xFF; // in the second 128 KiB chunk
        tree.Write("a.bin", content);
        tree.Write("b.bin", content);
        tree.Write("c.bin", apart);
        tree.Write("d.bin", content);
        var seen = new List<(string Name, long Offset, string? SameAs)>();
        var observer = new Recorder((node, offset, bytes, sameAs) =>
        {
            Assert.Equal(File.ReadAllBytes(node.Primary.Path.ToString()).AsSpan((int)offset, bytes.Length).ToArray(), bytes);
            seen.Add((NameOf(node), offset, sameAs is null ? null : NameOf(sameAs)));
        });
        var (set, _) = await WholeReadTests.SetAsync(tree, observer, builder => trusted ? builder.UseHashAlgorithm(DuplicateHashAlgorithm.Sha256).TrustHashes() : builder);
        using (set)
        {
            LockstepPartitioner.Partition(set, [0, 1, 2, 3], trusted ? ChunkMatchMode.HashIndexed : ChunkMatchMode.Vectorized, CancellationToken.None);
            Assert.Equal([0, 1, 3], Assert.Single(set.Groups).Members);
        }

        string? A(string copy) => trusted ? null : copy;
        (string, long, string?)[] expected =
        [
            ("a", 0, null), ("b", 0, A("a")), ("c", 0, A("a")), ("d", 0, A("a")),
            ("a", 131_072, null), ("b", 131_072, A("a")), ("c", 131_072, null), ("d", 131_072, A("a")), // c leaves the class
            ("a", 262_144, null), ("b", 262_144, A("a")), ("d", 262_144, A("a")),
        ];
        Assert.Equal(expected, seen);
    }

    private static string NameOf(FileNode node) => Path.GetFileNameWithoutExtension(node.Primary.Path.ToString());

    private sealed class Recorder(Action<FileNode, long, byte[], FileNode?> onRead) : IReadObserver
    {
        public bool TakesCopies => true;

        public void OnRead(FileNode node, long offset, ReadOnlySpan<byte> bytes, OpenedFile file, FileNode? sameAs) => onRead(node, offset, bytes.ToArray(), sameAs);
    }
}
