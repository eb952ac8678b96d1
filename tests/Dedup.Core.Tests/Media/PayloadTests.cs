using Dedup.Core.Media;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Media.Fixtures;
using static Dedup.Core.Tests.Media.MediaTestSupport;

namespace Dedup.Core.Tests.Media;

/// <summary>Fixtures built byte by byte: every retagged variant has the base payload; a changed payload byte differs.</summary>
public sealed class PayloadTests
{
    public static TheoryData<string> FixtureNames => [.. AllFixtures.Select(Name)];

    [Theory]
    [MemberData(nameof(FixtureNames))]
    public void Retagged_variants_have_the_same_payload(string name)
    {
        var fixture = Fixture(name);
        var original = fixture.Create(1);
        var expected = Payload(original);
        Assert.NotNull(expected);
        Assert.NotEmpty(expected);
        Assert.True(expected.Length < original.Length, "the base file carries metadata or headers outside the payload");
        foreach (var (variant, bytes) in fixture.Variants(1))
        {
            Assert.NotNull(Locate(bytes, out var format));
            Assert.Equal(fixture.Format, format);
            var payload = Payload(bytes);
            Assert.True(payload is not null && payload.AsSpan().SequenceEqual(expected), $"{name} / {variant}: payload differs from the base file's");
        }
    }

    [Theory]
    [MemberData(nameof(FixtureNames))]
    public void Other_content_has_another_payload(string name)
    {
        var fixture = Fixture(name);
        var a = Payload(fixture.Create(1));
        var b = Payload(fixture.Create(2));
        Assert.NotNull(a);
        Assert.NotNull(b);
        Assert.False(a.AsSpan().SequenceEqual(b));
    }

    [Theory]
    [MemberData(nameof(FixtureNames))]
    public void One_changed_payload_byte_changes_the_payload(string name)
    {
        var fixture = Fixture(name);
        foreach (var (variant, bytes) in fixture.Variants(1))
        {
            var ranges = Locate(bytes, out _)!;
            var payload = Read(bytes, ranges);
            foreach (var range in ranges)
            {
                foreach (var at in new[] { range.Offset, range.Offset + (range.Length / 2), range.End - 1 })
                {
                    var mutated = (byte[])bytes.Clone();
                    mutated[at] ^= 0x01;
                    var other = Payload(mutated);
                    Assert.True(other is null || !other.AsSpan().SequenceEqual(payload), $"{name} / {variant}: byte {at} flipped, same payload");
                }
            }
        }
    }

    [Theory]
    [MemberData(nameof(FixtureNames))]
    public void File_handle_path_agrees_with_memory_path(string name)
    {
        using var tree = new TempTree();
        var fixture = Fixture(name);
        foreach (var (variant, bytes) in fixture.Variants(3))
        {
            var path = tree.Write("f.bin", bytes);
            var fromFile = PayloadOfFile(path, out var format);
            Assert.Equal(fixture.Format, format);
            Assert.Equal(Payload(bytes), fromFile);
        }
    }

    [Fact]
    public void Large_files_are_located_through_a_handle_within_budget()
    {
        using var tree = new TempTree();
        var jpeg = ByteWriter.Concat([0xFF, 0xD8], JpegFixture.Jfif(), JpegFixture.Image(1, 3_000_000), [0xFF, 0xD9]);
        var mp3 = ByteWriter.Concat(Mp3Fixture.Id3v2(3, "big", 100), Mp3Fixture.Audio(1, frames: 10_000));
        var png = PngFixture.File(1, 1, [], []);
        foreach (var (name, bytes, skipped) in new[] { ("a.jpg", jpeg, 2 + JpegFixture.Jfif().Length + 2), ("a.mp3", mp3, Mp3Fixture.Id3v2(3, "big", 100).Length + Mp3Fixture.FrameLength), ("a.png", png, 0) })
        {
            var payload = PayloadOfFile(tree.Write(name, bytes), out _);
            Assert.NotNull(payload);
            Assert.Equal(Payload(bytes), payload);
            if (skipped > 0)
            {
                Assert.Equal(bytes.Length - skipped, payload.Length);
            }
        }
    }

    [Fact]
    public void Format_is_found_by_content_not_by_name()
    {
        using var tree = new TempTree();
        var path = tree.Write("song.jpg", new Mp3Fixture().Create(1));
        Assert.NotNull(PayloadOfFile(path, out var format));
        Assert.Equal(MediaFormat.Mp3, format);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(100)]
    [InlineData(5000)]
    public void Unknown_content_is_not_located(int length)
    {
        var bytes = ByteWriter.Random(length, 42);
        Assert.Null(Locate(bytes, out var format));
        Assert.Equal(MediaFormat.None, format);
        using var tree = new TempTree();
        Assert.Null(PayloadOfFile(tree.Write("x.mp3", bytes), out _));
    }

    [Fact]
    public void Mp3_info_frame_is_compared_when_asked()
    {
        var keep = MediaOptions.Default with { SkipMp3InfoFrame = false };
        var a = ByteWriter.Concat(Mp3Fixture.Id3v2(3, "a", 0), Mp3Fixture.Audio(1, infoFill: 0x11));
        var b = ByteWriter.Concat(Mp3Fixture.Id3v2(3, "b", 9), Mp3Fixture.Audio(1, infoFill: 0x22));
        Assert.Equal(Payload(a), Payload(b));
        Assert.NotEqual(Payload(a, keep), Payload(b, keep));
        Assert.Equal(Payload(a)!.Length + Mp3Fixture.FrameLength, Payload(a, keep)!.Length);
    }

    [Fact]
    public void Mp3_without_enough_frames_is_not_located()
    {
        var audio = Mp3Fixture.Audio(1, frames: 2, info: false);
        var broken = ByteWriter.Concat(audio, ByteWriter.Random(2000, 5));
        Assert.Null(Locate(broken, out _));
    }

    [Fact]
    public void Truncated_jpeg_png_wav_flac_mp4_are_not_located()
    {
        foreach (var fixture in new IMediaFixture[] { new JpegFixture(), new PngFixture(), new Mp4Fixture() })
        {
            var bytes = fixture.Create(1);
            Assert.Null(Locate(bytes[..(bytes.Length - 3)], out _));
        }

        var wav = new WavFixture().Create(1);
        Assert.Null(Locate(wav[..(wav.Length - 50)], out _));
        var flac = FlacFixture.File(1, (1, new byte[100]));
        Assert.Null(Locate(flac[..60], out _));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Flac_behind_stray_id3_tags_is_located_as_flac(int tags)
    {
        var flac = FlacFixture.File(1, (1, new byte[100]));
        var tagged = ByteWriter.Concat([.. Enumerable.Range(0, tags).Select(n => Mp3Fixture.Id3v2(3, $"tag {n}", padding: 20)), flac]);

        Assert.NotNull(Locate(tagged, out var format));
        Assert.Equal(MediaFormat.Flac, format);
        Assert.Equal(Payload(flac), Payload(tagged));
    }

    [Fact]
    public void Mp4_with_sample_to_chunk_runs_out_of_order_is_not_located()
    {
        var file = Mp4Fixture.File(Mp4Fixture.Tracks(1), new Mp4Fixture.Layout());
        Assert.NotNull(Locate(file, out _));

        // Give the second run of a table with several runs the first run's chunk number (1).
        var broken = false;
        for (var at = file.AsSpan().IndexOf("stsc"u8); at >= 0 && !broken; at = NextIndexOf(file, "stsc"u8, at + 4))
        {
            if (System.Buffers.Binary.BinaryPrimitives.ReadUInt32BigEndian(file.AsSpan(at + 8)) >= 2)
            {
                System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(file.AsSpan(at + 12 + 12), 1);
                broken = true;
            }
        }

        Assert.True(broken, "the fixture has no sample-to-chunk table with two runs");
        Assert.Null(Locate(file, out _));
    }

    private static int NextIndexOf(byte[] data, ReadOnlySpan<byte> value, int from)
    {
        var found = data.AsSpan(from).IndexOf(value);
        return found < 0 ? -1 : from + found;
    }

    [Fact]
    public void Mp4_track_payload_order_is_by_track_then_sample()
    {
        var tracks = Mp4Fixture.Tracks(1);
        var file = Mp4Fixture.File(tracks, new Mp4Fixture.Layout());
        var payload = Payload(file)!;
        var expected = new List<byte>();
        foreach (var track in tracks)
        {
            expected.AddRange(Mp4Fixture.Box("stsd", new ByteWriter().U32BE(0).U32BE(1).ToArray(), Mp4Fixture.Box(track.Codec, track.Config)));
            expected.AddRange(track.Samples.SelectMany(s => s));
        }

        Assert.Equal(expected.ToArray(), payload);
    }

    [Fact]
    public void Jpeg_payload_is_the_coding_segments_and_scan()
    {
        var payload = Payload(new JpegFixture().Create(1))!;
        Assert.Equal(JpegFixture.Image(1), payload);
    }
}
