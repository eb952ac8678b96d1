using System.Collections.Concurrent;
using Dedup.Core.Diagnostics;
using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Media;
using Dedup.Core.Media.Pipeline;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// Payload reads over many ranges (the scatter/gather path for ranges under 64 KiB, direct reads for larger
/// ones) must yield exactly the concatenated range bytes, whatever the chunking of the destination.
/// </summary>
public sealed class ContentReaderTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public async Task Payload_of_many_ranges_reads_back_exactly(int seed)
    {
        using var tree = new TempTree();
        var bytes = TempTree.RandomBytes(3 * 1024 * 1024, 70 + seed);
        tree.Write("media.bin", bytes);

        // Ranges like PNG chunks (8 KiB, 12-byte gaps), MP4 samples (tiny, far apart; 33 KB with small gaps)
        // and a few large ones, in file order.
        var random = new Random(seed);
        var ranges = new List<ByteRange>();
        long position = 17;
        while (true)
        {
            var length = random.Next(4) switch { 0 => 8192, 1 => random.Next(1, 400), 2 => random.Next(20_000, 40_000), _ => random.Next(70_000, 200_000) };
            var gap = random.Next(3) switch { 0 => 12, 1 => random.Next(1, 4096), _ => random.Next(5000, 40_000) };
            if (position + length > bytes.Length)
            {
                break;
            }

            ranges.Add(new ByteRange(position, length));
            position += length + gap;
        }

        var expected = ranges.SelectMany(r => bytes.Skip((int)r.Offset).Take((int)r.Length)).ToArray();
        var (node, state) = await NodeAsync(tree);
        var map = new PayloadMap([.. ranges], MediaFormat.Png);
        Assert.Equal(expected.Length, map.Length);

        // Whole payload at once, then in odd-sized chunks through one handle (as the comparers read).
        var whole = new byte[expected.Length];
        var read = state.Reader.TryReadWhole(node, whole, map);
        Assert.True(read.IsOpen);
        read.Close();
        Assert.Equal(expected, whole);

        using var handle = File.OpenHandle(Path.Combine(tree.Root, "media.bin"));
        var opened = OpenedFile.Of(node, handle);
        var chunked = new byte[expected.Length];
        var chunk = 65_537 + (seed * 1000);
        for (var offset = 0; offset < chunked.Length; offset += chunk)
        {
            var length = Math.Min(chunk, chunked.Length - offset);
            Assert.True(state.Reader.TryRead(opened, offset, chunked.AsSpan(offset, length), map));
        }

        Assert.Equal(expected, chunked);
        Assert.Equal(0, state.Errors.Count);
    }

    private static async Task<(FileNode Node, ScanContext State)> NodeAsync(TempTree tree)
    {
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).Build();
        var errors = new ScanErrorSink();
        ScannedFile? file = null;
        await foreach (var scanned in new ParallelFileEnumerator().EnumerateAsync(Dedup.Core.Scanning.EnumerationContexts.Create(finder.Options, errors)))
        {
            file = scanned;
        }

        Assert.NotNull(file);
        return (new FileNode(file), new ScanContext(finder.Options, new Dedup.Core.Diagnostics.ScanErrorSink()));
    }
}
