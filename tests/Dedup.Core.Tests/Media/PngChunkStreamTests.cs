using Dedup.Core.Media;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Media.Fixtures;

namespace Dedup.Core.Tests.Media;

/// <summary>
/// <see cref="PngChunkStream"/> follows a PNG's chunks through the bytes a comparison reads anyway; whatever order
/// and sizes the reads come in, its result must be exactly the locator's.
/// </summary>
public sealed class PngChunkStreamTests
{
    public static TheoryData<int> Seeds => [1, 2, 3, 4, 5, 6, 7, 8];

    [Theory]
    [MemberData(nameof(Seeds))]
    public void Reads_in_any_pieces_give_the_locators_ranges(int seed)
    {
        var random = new Random(seed);
        var files = new PngFixture().Variants(seed).Select(v => v.Bytes).Append(Large(seed)).ToList();
        files.AddRange(files.Select(f => Mutate(f, random)).ToList()); // malformed ones must agree too
        var compared = 0;
        foreach (var file in files)
        {
            var expected = MediaTestSupport.Locate(file, out _);
            var stream = Feed(file, random, out var complete);
            var located = stream.TryGetPayload(out var ranges);
            if (complete)
            {
                // Read to the end: located exactly when the locator locates, with its ranges.
                Assert.Equal(expected is not null, located);
                if (located)
                {
                    Assert.Equal(expected, ranges);
                    compared++;
                }
            }
            else
            {
                Assert.False(located && expected is null, "located from part of a file the locator rejects");
            }
        }

        Assert.True(compared >= 5, $"only {compared} files were compared range by range");
    }

    [Fact]
    public void Reads_that_skip_ahead_are_ignored_and_a_gap_leaves_the_payload_unknown()
    {
        var file = Large(9);
        var stream = new PngChunkStream(file.Length, MediaOptions.Default, new RangeBudget(1 << 20));
        stream.Feed(0, file.AsSpan(0, 4096));
        stream.Feed(file.Length - 4096, file.AsSpan(file.Length - 4096)); // a suffix probe
        Assert.False(stream.TryGetPayload(out _));
        stream.Feed(8192, file.AsSpan(8192)); // leaves [4096, 8192) unseen
        Assert.False(stream.TryGetPayload(out _));
        stream.Feed(0, file); // from the start again: consumed from where the walk stands
        Assert.True(stream.TryGetPayload(out var ranges));
        Assert.Equal(MediaTestSupport.Locate(file, out _), ranges);
    }

    [Fact]
    public void A_stream_over_the_scans_range_budget_gives_up_and_returns_what_it_took()
    {
        // About 200 ranges each; a stream takes 16, 32, 64, 128 … as it needs them (240 here). With 300 the first
        // fits and the second, after 16 + 32, does not get 64 more.
        var file = Large(10);
        var budget = new RangeBudget(300);
        var first = new PngChunkStream(file.Length, MediaOptions.Default, budget);
        first.Feed(0, file);
        Assert.True(first.TryGetPayload(out _));
        Assert.Equal(60, budget.Left);

        var second = new PngChunkStream(file.Length, MediaOptions.Default, budget);
        second.Feed(0, file);
        Assert.False(second.TryGetPayload(out _));
        Assert.Equal(60, budget.Left); // what it took was given back when it gave up

        first.Release();
        first.Release(); // twice is harmless
        Assert.Equal(300, budget.Left);
        var third = new PngChunkStream(file.Length, MediaOptions.Default, budget);
        third.Feed(0, file);
        Assert.True(third.TryGetPayload(out var ranges));
        Assert.Equal(MediaTestSupport.Locate(file, out _), ranges);
    }

    [Fact]
    public void Non_png_content_never_starts_a_stream()
    {
        Assert.False(PngChunkStream.Starts(0, new JpegFixture().Create(1)));
        Assert.False(PngChunkStream.Starts(8, Large(1).AsSpan(0, 64)));
        Assert.True(PngChunkStream.Starts(0, Large(1).AsSpan(0, 64)));
    }

    /// <summary>A PNG of ~200 KB in 1,000-byte IDAT chunks, so headers straddle read boundaries.</summary>
    private static byte[] Large(int seed)
    {
        var data = ByteWriter.Random(200_000, seed);
        var chunks = Enumerable.Range(0, 200).Select(i => PngFixture.Chunk("IDAT", data[(i * 1000)..((i + 1) * 1000)]));
        return ByteWriter.Concat([PngFixture.Signature, PngFixture.Ihdr(), PngFixture.Text("Title", "big"), .. chunks, PngFixture.Chunk("IEND", [])]);
    }

    private static byte[] Mutate(byte[] file, Random random)
    {
        var copy = (byte[])file.Clone();
        if (random.Next(3) == 0)
        {
            return copy[..random.Next(copy.Length)];
        }

        copy[random.Next(copy.Length)] ^= (byte)(1 << random.Next(8));
        return copy;
    }

    /// <summary>Feeds the file as a scan would: a prefix probe, maybe a suffix probe, then sequential pieces from 0 (overlapping the prefix).</summary>
    private static PngChunkStream Feed(byte[] file, Random random, out bool complete)
    {
        var stream = new PngChunkStream(file.Length, MediaOptions.Default, new RangeBudget(1 << 20));
        var prefix = Math.Min(file.Length, 4096);
        stream.Feed(0, file.AsSpan(0, prefix));
        if (file.Length > 8192)
        {
            stream.Feed(file.Length - 4096, file.AsSpan(file.Length - 4096));
        }

        var stop = random.Next(5) == 0 ? random.Next(file.Length) : file.Length; // sometimes a comparison ends early
        for (var offset = random.Next(2) == 0 ? 0 : prefix; offset < stop;)
        {
            var length = Math.Min(stop - offset, 1 + random.Next(random.Next(2) == 0 ? 16 : 70_000));
            stream.Feed(offset, file.AsSpan(offset, length));
            offset += length;
        }

        complete = stop == file.Length;
        return stream;
    }
}
