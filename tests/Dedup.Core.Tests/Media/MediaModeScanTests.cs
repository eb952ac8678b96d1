using Dedup.Core.Media;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Media.Fixtures;

namespace Dedup.Core.Tests.Media;

/// <summary>Media mode end to end: real files in a folder, scanned by the finder with and without <c>UseMediaMode</c>.</summary>
public sealed class MediaModeScanTests
{
    [Fact]
    public async Task Bytes_read_to_locate_payloads_are_counted()
    {
        // Two PNGs of different payload lengths: nothing to compare, but locating walked every chunk of both.
        using var tree = new TempTree();
        var small = PngFixture.File(seed: 1, idatParts: 20, beforeData: [], afterData: []);
        var large = ByteWriter.Concat(PngFixture.Signature, PngFixture.Ihdr(), PngFixture.Chunk("IDAT", ByteWriter.Random(5000, 2)), PngFixture.Chunk("IEND", []));
        tree.Write("a.png", small);
        tree.Write("b.png", large);

        var (_, whole) = await Scan.RunAsync(b => b.AddRoot(tree.Root));
        var (groups, media) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode());

        Assert.Empty(groups);
        // Sizes differ: whole-file mode compares neither; each is read once while listed, being small enough to be keyed
        // (media mode keys nothing while listing: it compares payloads, not whole files).
        Assert.Equal(small.Length + large.Length, whole.BytesRead);
        // Per file: the 64-byte signature read, then the chunk walk from offset 8 to the end, each byte once.
        Assert.Equal((2L * MediaDetector.HeaderSize) + (small.Length - 8) + (large.Length - 8), media.BytesRead);
    }

    [Fact]
    public async Task Retagged_variants_of_every_format_form_one_media_group_each_and_near_misses_stay_out()
    {
        using var tree = new TempTree();
        var expected = new List<string>();
        foreach (var fixture in MediaTestSupport.AllFixtures)
        {
            var name = MediaTestSupport.Name(fixture);
            var paths = new List<string>();
            var distinct = new HashSet<string>();
            var index = 0;
            foreach (var (_, bytes) in fixture.Variants(seed: 11))
            {
                // Byte-identical variants are one file content; keep one of each so the group is of distinct files.
                if (distinct.Add(Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(bytes))))
                {
                    paths.Add(tree.Write($"{name}/variant{index++}.bin", bytes));
                }
            }

            // A different payload of the same format: never grouped with the variants.
            var other = fixture.Create(seed: 12);
            tree.Write($"{name}/other.bin", other);
            Assert.True(paths.Count >= 2, $"{name}: needs at least two distinct variants");
            expected.Add(string.Join(" | ", paths.Order(StringComparer.Ordinal)));
        }

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode());
        Assert.Empty(summary.Errors);
        Assert.All(groups, g => Assert.Equal(ContentMatch.MediaPayload, g.Match));
        Assert.Equal(expected.Order(StringComparer.Ordinal).ToList(), Scan.Canonical(groups));

        // Without media mode the retagged files differ byte for byte: no group spans two variants.
        var (wholeFileGroups, _) = await Scan.RunAsync(b => b.AddRoot(tree.Root));
        Assert.Empty(wholeFileGroups);
    }

    [Fact]
    public async Task Unknown_and_malformed_files_fall_back_to_whole_file_comparison()
    {
        using var tree = new TempTree();
        var text = TempTree.RandomBytes(20_000, 5);
        tree.Write("a/plain.txt", text);
        tree.Write("b/plain-copy.txt", text);
        var truncatedJpeg = new JpegFixture().Create(3)[..500]; // starts like a JPEG, ends nowhere
        tree.Write("a/broken.jpg", truncatedJpeg);
        tree.Write("b/broken-copy.jpg", truncatedJpeg);

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode());
        Assert.Empty(summary.Errors);
        Assert.Equal(2, groups.Count);
        Assert.All(groups, g => Assert.Equal(ContentMatch.WholeFile, g.Match));
    }

    [Fact]
    public async Task Media_groups_report_payload_size_and_wasted_bytes_of_the_smaller_files()
    {
        using var tree = new TempTree();
        var fixture = new Mp3Fixture();
        var variants = fixture.Variants(seed: 21).Select(v => v.Bytes).DistinctBy(Convert.ToHexString).Take(2).ToArray();
        var first = tree.Write("x/one.mp3", variants[0]);
        var second = tree.Write("y/two.mp3", variants[1]);

        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode());
        var group = Assert.Single(groups);
        Assert.True(group.Size <= Math.Min(variants[0].Length, variants[1].Length));
        Assert.Equal(Math.Min(variants[0].Length, variants[1].Length), group.WastedBytes);
        Assert.Equal(new[] { first, second }.Order(StringComparer.Ordinal), group.Files.Select(f => f.Path.ToString()).Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task Byte_identical_copies_are_one_whole_file_group_and_located_once()
    {
        // A PNG's chunk walk reads the whole file, so bytes read tell how many copies were located.
        using var tree = new TempTree();
        var png = PngFixture.File(seed: 3, idatParts: 40, beforeData: [], afterData: []);
        var first = tree.Write("a/image.png", png);
        var second = tree.Write("b/image.png", png);

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode());

        Assert.Empty(summary.Errors);
        var group = Assert.Single(groups);
        Assert.Equal(ContentMatch.WholeFile, group.Match);
        Assert.Equal(png.Length, group.Size);
        Assert.Equal(new[] { first, second }.Order(StringComparer.Ordinal), group.Files.Select(f => f.Path.ToString()));
        Assert.Equal(2L * png.Length, summary.BytesRead); // read whole once each to compare, no walk after
    }

    [Fact]
    public async Task A_large_png_read_whole_for_comparison_needs_no_second_pass_to_locate()
    {
        // 400 KB in 4 KiB IDAT chunks (as ffmpeg writes them): probes, one full read of each copy, nothing more.
        using var tree = new TempTree();
        var data = ByteWriter.Random(400_000, 4);
        var chunks = Enumerable.Range(0, 100).Select(i => PngFixture.Chunk("IDAT", data[(i * 4000)..((i + 1) * 4000)]));
        var png = ByteWriter.Concat([PngFixture.Signature, PngFixture.Ihdr(), .. chunks, PngFixture.Chunk("IEND", [])]);
        tree.Write("a/image.png", png);
        tree.Write("b/image.png", png);
        var retagged = ByteWriter.Concat([PngFixture.Signature, PngFixture.Ihdr(), PngFixture.Text("Title", "retagged"), .. chunks, PngFixture.Chunk("IEND", [])]);
        tree.Write("c/image.png", retagged);

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode());

        Assert.Empty(summary.Errors);
        Assert.Equal(2, groups.Count); // the copies, and one copy with the retagged file
        Assert.Equal(2, Assert.Single(groups, g => g.Match == ContentMatch.WholeFile).Files.Count);
        Assert.Equal(2, Assert.Single(groups, g => g.Match == ContentMatch.MediaPayload).Files.Count);

        // Stage 1 reads each copy once (plus 4 KiB probes); stage 2 locates the retagged file (one walk) and compares
        // its payload with the copies' (one more read of one copy). Walking a copy as well would add 400 KB.
        var expected = (3L * png.Length) + (2L * retagged.Length);
        Assert.InRange(summary.BytesRead, expected - 40_000, expected + 40_000);
    }

    [Theory]
    [MemberData(nameof(FixtureNames))]
    public async Task Copies_of_retagged_variants_merge_into_one_payload_group(string name)
    {
        // Two classes of byte-identical copies with one payload, a lone variant, and a copied near-miss. Each class
        // of copies is a whole-file group; the payload group relates one copy of each class (the first by path).
        using var tree = new TempTree();
        var fixture = MediaTestSupport.Fixture(name);
        var variants = fixture.Variants(seed: 31).Select(v => v.Bytes).DistinctBy(Convert.ToHexString).Take(3).ToArray();
        Assert.Equal(3, variants.Length);
        var one = new[] { tree.Write("one/a.bin", variants[0]), tree.Write("one/b.bin", variants[0]) };
        var two = new[] { tree.Write("two/a.bin", variants[1]), tree.Write("two/b.bin", variants[1]), tree.Write("two/c.bin", variants[1]) };
        var three = tree.Write("three/a.bin", variants[2]);
        var other = fixture.Create(seed: 32);
        var others = new[] { tree.Write("other/a.bin", other), tree.Write("other/b.bin", other) };

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode());

        Assert.Empty(summary.Errors);
        Assert.Equal(4, groups.Count);
        var merged = Assert.Single(groups, g => g.Match == ContentMatch.MediaPayload);
        Assert.Equal(new[] { one[0], two[0], three }.Order(StringComparer.Ordinal), merged.Files.Select(f => f.Path.ToString()));
        Assert.True(merged.Size < variants.Min(v => v.Length));
        Assert.True(merged.VerifiedByBytes);
        var copies = groups.Where(g => g.Match == ContentMatch.WholeFile).ToList();
        Assert.Equal(Expect.Groups(one, two, others), Scan.Canonical(copies));
        Assert.All(copies, g => Assert.Equal(new FileInfo(g.Files[0].Path.ToString()).Length, g.Size));

        // Every file beyond one per payload is a duplicate, counted once: five of the variants' six, one of the others.
        Assert.Equal(6, summary.DuplicateFiles);
        Assert.Equal(groups.Sum(g => g.WastedBytes), summary.WastedBytes);
    }

    [Fact]
    public async Task Files_that_are_no_media_cost_a_read_of_their_signature_only()
    {
        // Twenty text files of unique sizes: media mode must open each (its payload could match another file's),
        // but reads only the bytes that tell its format (a buffered refill read each file whole).
        using var tree = new TempTree();
        for (var i = 0; i < 20; i++)
        {
            tree.Write($"notes/{i}.txt", TempTree.RandomBytes(10_000 + i, i));
        }

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseMediaMode());

        Assert.Empty(groups);
        Assert.Empty(summary.Errors);
        Assert.Equal(20L * MediaDetector.HeaderSize, summary.BytesRead);
    }

    public static TheoryData<string> FixtureNames() => [.. MediaTestSupport.AllFixtures.Select(MediaTestSupport.Name)];
}
