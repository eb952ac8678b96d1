using System.Diagnostics;
using Dedup.Core.Media;
using Dedup.Core.Tests.Media.Fixtures;
using static Dedup.Core.Tests.Media.MediaTestSupport;

namespace Dedup.Core.Tests.Media;

/// <summary>
/// Seeded random mutations and truncations of every fixture: the locators (without MediaContent's exception
/// guard) never throw, finish quickly, return ranges inside the file, and a changed payload byte never
/// leaves the payload equal.
/// </summary>
public sealed class MediaRobustnessTests
{
    private const int MutationsPerFixture = 2000;

    public static TheoryData<string> FixtureNames => [.. AllFixtures.Select(Name)];

    [Theory]
    [MemberData(nameof(FixtureNames))]
    public async Task Mutated_files_never_throw_hang_or_alias(string name)
    {
        var seed = name.Sum(c => c) * 7919;
        var work = Task.Run(() => Mutate(Fixture(name), seed));
        var (located, slowest) = await work.WaitAsync(TimeSpan.FromSeconds(120));
        Assert.True(slowest < TimeSpan.FromSeconds(5), $"{name}: slowest call took {slowest}");
        Assert.True(located > 0, $"{name}: no mutated file was located at all");
    }

    [Fact]
    public void Pathological_inputs_end_quickly()
    {
        var cases = new List<byte[]>
        {
            ByteWriter.Concat([0xFF, 0xD8], Enumerable.Repeat((byte)0xFF, 1 << 20).ToArray()),
            ByteWriter.Concat([0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x02, 0xFF, 0xC0, 0x00, 0x02, 0xFF, 0xDA, 0x00, 0x02], Enumerable.Repeat((byte)0xFF, 1 << 20).ToArray()),
            Enumerable.Repeat(new byte[] { 0xFF, 0xFB, 0x90, 0x00 }, 1 << 18).SelectMany(b => b).ToArray(),
            ByteWriter.Concat("ID3\x04\0\0\x7F\x7F\x7F\x7F"u8.ToArray(), new byte[1000]),
            ByteWriter.Concat("fLaC"u8.ToArray(), Enumerable.Repeat(new byte[] { 0x01, 0, 0, 0 }, 1 << 16).SelectMany(b => b).ToArray()),
            new ByteWriter().U32BE(0).Ascii("ftyp").ToArray(),
            new ByteWriter().U32BE(1).Ascii("moov").U64BE(long.MaxValue).ToArray(),
            Mp4Fixture.Box("moov", Mp4Fixture.Box("trak", Mp4Fixture.Box("mdia", Mp4Fixture.Box("hdlr", new byte[8], "vide"u8.ToArray(), new byte[12]),
                Mp4Fixture.Box("minf", Mp4Fixture.Box("stbl", Mp4Fixture.Box("stsd", new byte[8]),
                    Mp4Fixture.Box("stsz", new ByteWriter().U32BE(0).U32BE(1).U32BE(uint.MaxValue).ToArray()),
                    Mp4Fixture.Box("stsc", new ByteWriter().U32BE(0).U32BE(1).U32BE(1).U32BE(uint.MaxValue).U32BE(1).ToArray()),
                    Mp4Fixture.Box("stco", new ByteWriter().U32BE(0).U32BE(1).U32BE(0).ToArray()))))))
        };
        cases.Add(WavFixture.Riff("WAVE", [.. Enumerable.Repeat(WavFixture.Chunk("JUNK", []), 100_000)]));
        cases.Add(ByteWriter.Concat(PngFixture.Signature, PngFixture.Ihdr(), ByteWriter.Concat([.. Enumerable.Repeat(PngFixture.Chunk("tEXt", []), 100_000)])));
        for (var i = 0; i < cases.Count; i++)
        {
            var watch = Stopwatch.StartNew();
            var located = MediaContent.RunUnguarded(new MediaReader(cases[i], MediaOptions.Default), out _, []);
            Assert.True(watch.Elapsed < TimeSpan.FromSeconds(10), $"case {i} took {watch.Elapsed}");

            // None of them is a well-formed file: each must end as "not located", not as a payload made of garbage.
            Assert.False(located, $"case {i} was located");
        }
    }

    [Fact]
    public void A_spent_budget_means_not_located()
    {
        var tight = MediaOptions.Default with { MaxSteps = 1 };
        foreach (var fixture in AllFixtures)
        {
            Assert.Null(Locate(fixture.Create(1), out _, tight));
            Assert.Null(Locate(fixture.Create(1), out _, MediaOptions.Default with { ExtraParseBytes = -fixture.Create(1).Length * 2 }));
        }
    }

    [Fact]
    public void The_range_limit_holds_while_ranges_are_added()
    {
        // 100,000 kept chunks against a limit of 1,000: the locate fails, and the list never grew past the limit
        // (checked after the whole list was built, it reached 131,072 entries first).
        var limit = MediaOptions.Default with { MaxRanges = 1000 };
        var cases = new Dictionary<string, byte[]>
        {
            ["png"] = Png(idats: 100_000),
            ["wav"] = WavFixture.Riff("WAVE", [WavFixture.Fmt(), .. Enumerable.Repeat(WavFixture.Chunk("fact", [1, 2]), 100_000), WavFixture.Data(1)]),
            ["webp"] = WavFixture.Riff("WEBP", [.. Enumerable.Repeat(WavFixture.Chunk("ALPH", [1, 2]), 100_000), WavFixture.Chunk("VP8L", [1, 2])]),
        };
        foreach (var (name, bytes) in cases)
        {
            var ranges = new List<ByteRange>();
            Assert.False(MediaContent.RunUnguarded(new MediaReader(bytes, limit), out _, ranges), name);
            Assert.InRange(ranges.Capacity, 0, 1024);
        }

        // At the limit a file is still located: IHDR plus 999 IDAT chunks are 1,000 ranges.
        Assert.NotNull(Locate(Png(idats: 999), out _, limit));
        Assert.Null(Locate(Png(idats: 1000), out _, limit));

        static byte[] Png(int idats)
            => ByteWriter.Concat(PngFixture.Signature, PngFixture.Ihdr(), ByteWriter.Concat([.. Enumerable.Repeat(PngFixture.Chunk("IDAT", [1]), idats)]), PngFixture.Chunk("IEND", []));
    }

    private static (int Located, TimeSpan Slowest) Mutate(IMediaFixture fixture, int seed)
    {
        var random = new Random(seed);
        var originals = new[] { fixture.Create(1) }.Concat(fixture.Variants(1).Select(v => v.Bytes)).ToArray();
        var located = 0;
        var slowest = TimeSpan.Zero;
        for (var n = 0; n < MutationsPerFixture; n++)
        {
            var original = originals[n % originals.Length];
            var originalRanges = Locate(original, out _)!;
            var mutated = (byte[])original.Clone();
            var inPlace = true;
            var kind = random.Next(100);
            if (kind < 45)
            {
                mutated[random.Next(mutated.Length)] ^= (byte)(1 << random.Next(8));
            }
            else if (kind < 60)
            {
                var at = random.Next(mutated.Length);
                mutated[at] = random.Next(2) == 0 ? (byte)0xFF : (byte)0x00;
            }
            else if (kind < 75)
            {
                var at = random.Next(Math.Max(1, mutated.Length - 8));
                random.NextBytes(mutated.AsSpan(at, Math.Min(8, mutated.Length - at)));
            }
            else if (kind < 90)
            {
                mutated = mutated[..random.Next(mutated.Length)];
                inPlace = false;
            }
            else
            {
                var at = random.Next(mutated.Length);
                mutated = kind < 95 ? [.. mutated[..at], (byte)random.Next(256), .. mutated[at..]] : [.. mutated[..at], .. mutated[(at + 1)..]];
                inPlace = false;
            }

            var ranges = new List<ByteRange>();
            var watch = Stopwatch.StartNew();
            var ok = MediaContent.RunUnguarded(new MediaReader(mutated, MediaOptions.Default), out _, ranges);
            slowest = watch.Elapsed > slowest ? watch.Elapsed : slowest;
            if (!ok)
            {
                continue;
            }

            located++;
            Assert.All(ranges, r => Assert.True(r.Offset >= 0 && r.Length > 0 && r.End <= mutated.Length));
            if (inPlace && ChangedInside(original, mutated, originalRanges))
            {
                Assert.False(Read(mutated, ranges).AsSpan().SequenceEqual(Read(original, originalRanges)), $"{Name(fixture)} mutation {n}: payload byte changed, payload equal");
            }
        }

        return (located, slowest);
    }

    private static bool ChangedInside(byte[] original, byte[] mutated, List<ByteRange> ranges)
        => ranges.Any(r => !original.AsSpan((int)r.Offset, (int)r.Length).SequenceEqual(mutated.AsSpan((int)r.Offset, (int)r.Length)));
}
