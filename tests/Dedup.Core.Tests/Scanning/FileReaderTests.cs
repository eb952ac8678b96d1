using System.Collections.Concurrent;
using Dedup.Core.Diagnostics;
using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Media;
using Dedup.Core.Media.Pipeline;
using Dedup.Core.Pooling;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// The scan's one reader: its observer sees whole and comparison reads but not probes, and every byte read
/// (media locating included) is counted once, by the reader.
/// </summary>
public sealed class FileReaderTests
{
    [Fact]
    public async Task The_observer_sees_whole_and_comparison_reads_but_not_probes()
    {
        using var tree = new TempTree();
        var bytes = TempTree.RandomBytes(100_000, 7);
        tree.Write("a.bin", bytes);
        var node = new FileNode(await ScanOneAsync(tree));
        var observer = new Recorder();
        var errors = new ScanErrorSink();
        using var reader = new FileReader(BufferPool.Shared, errors, trustedIdentities: true, observer);

        var prefix = new byte[4096];
        var suffix = new byte[4096];
        var probed = reader.TryProbe(node, prefix, bytes.Length - 4096, suffix);
        Assert.True(probed.IsOpen);
        probed.Close();
        Assert.Empty(observer.Reads);

        var whole = new byte[bytes.Length];
        var read = reader.TryReadWhole(node, whole);
        Assert.True(read.IsOpen);
        read.Close();
        Assert.Equal(bytes, whole);
        using (var files = new OpenFileSet(reader, [node]))
        {
            Assert.True(files.TryRead(0, 1000, whole.AsSpan(0, 500), map: null));
        }

        Assert.Equal([(0L, bytes.Length), (1000L, 500)], observer.Reads);
        Assert.Equal(8192 + bytes.Length + 500, reader.BytesRead);
        Assert.Equal(0, errors.Count);
    }

    [LinuxFact]
    public async Task A_check_through_the_descriptor_stands_until_the_next_read_of_the_file()
    {
        using var tree = new TempTree();
        var bytes = TempTree.RandomBytes(5_000, 11);
        var path = tree.Write("a.bin", bytes);
        var node = new FileNode(await ScanOneAsync(tree));
        var errors = new ScanErrorSink();
        using var reader = new FileReader(BufferPool.Shared, errors, trustedIdentities: true);
        var file = reader.TryReadWhole(node, new byte[bytes.Length]);
        try
        {
            Assert.True(reader.IsUnchanged(file));

            // Rewritten in place (the same descriptor sees it): a second check with no read between gives the first's
            // answer (both are checks after the last read: the bytes read were the file's as listed) ...
            await File.WriteAllBytesAsync(path, TempTree.RandomBytes(5_000, 12));
            File.SetLastWriteTimeUtc(path, DateTime.UtcNow.AddMinutes(1));
            Assert.True(reader.IsUnchanged(file));
            Assert.Equal(0, errors.Count);

            // ... a read since makes the next check look again; and a check by path always looks.
            Assert.True(reader.TryRead(file, 0, new byte[100]));
            Assert.False(reader.IsUnchanged(file));
            Assert.False(reader.IsUnchanged(node));
        }
        finally
        {
            file.Close();
        }

        Assert.Equal(2, errors.Count);
    }

    [Fact]
    public async Task Reads_through_a_content_map_are_counted_but_not_shown_to_the_observer()
    {
        using var tree = new TempTree();
        var bytes = TempTree.RandomBytes(10_000, 9);
        tree.Write("a.bin", bytes);
        var node = new FileNode(await ScanOneAsync(tree));
        var observer = new Recorder();
        using var reader = new FileReader(BufferPool.Shared, new ScanErrorSink(), trustedIdentities: true, observer);

        // Content offsets, not file offsets: the observer (PNG chunk following) only wants file bytes in place.
        var map = new PayloadMap([new ByteRange(100, 50), new ByteRange(1000, 70)], MediaFormat.Png);
        var payload = new byte[map.Length];
        var read = reader.TryReadWhole(node, payload, map);
        Assert.True(read.IsOpen);
        read.Close();
        Assert.Equal(bytes.AsSpan(100, 50).ToArray().Concat(bytes.AsSpan(1000, 70).ToArray()), payload);
        Assert.Empty(observer.Reads);
        Assert.True(reader.BytesRead >= map.Length);
    }

    [Fact]
    public async Task Media_locating_is_counted_by_the_reader_it_reads_through()
    {
        using var tree = new TempTree();
        tree.Write("a.bin", TempTree.RandomBytes(50_000, 8));
        var file = await ScanOneAsync(tree);
        using var reader = new FileReader(BufferPool.Shared, new ScanErrorSink(), trustedIdentities: true);
        var opened = reader.TryOpen(new FileNode(file));
        Assert.True(opened.IsOpen);

        // Not media: only the signature is read, through the reader.
        Assert.False(MediaContent.TryLocate(reader, opened, file.Length, MediaOptions.Default, out _, []));
        opened.Close();
        Assert.Equal(MediaDetector.HeaderSize, reader.BytesRead);
    }

    private static async Task<ScannedFile> ScanOneAsync(TempTree tree)
    {
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).Build();
        ScannedFile? file = null;
        await foreach (var scanned in new ParallelFileEnumerator().EnumerateAsync(Dedup.Core.Scanning.EnumerationContexts.Create(finder.Options, new ScanErrorSink())))
        {
            file = scanned;
        }

        Assert.NotNull(file);
        return file;
    }

    private sealed class Recorder : IReadObserver
    {
        public List<(long Offset, int Length)> Reads { get; } = [];

        public bool TakesCopies => false;

        public void OnRead(FileNode node, long offset, ReadOnlySpan<byte> bytes, OpenedFile file, FileNode? sameAs) => Reads.Add((offset, bytes.Length));
    }
}
