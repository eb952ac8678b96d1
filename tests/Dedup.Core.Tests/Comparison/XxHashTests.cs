using System.Runtime.InteropServices;
using System.Text.RegularExpressions;
using Dedup.Core.Comparison.Hashing;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Comparison;

/// <summary>
/// Checks the hand-written XXH3-64 / XXH3-128 against the reference implementation (xxHash 0.8.1).
/// </summary>
public sealed partial class XxHashTests
{
    /// <summary>The deterministic test input: byte i = (byte)(i * 31 + 7).</summary>
    private static byte[] Pattern(int length)
    {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++)
        {
            data[i] = (byte)((i * 31) + 7);
        }

        return data;
    }

    // Expected values were produced with `xxhsum -H3` and `xxhsum -H128` (xxhsum 0.8.1, Debian package
    // xxhash) on files holding Pattern(length). xxhsum prints XXH128 big-endian: high 64 bits first.
    [Theory]
    [InlineData(0, 0x2d06800538d394c2UL, 0x99aa06d3014798d8UL, 0x6001c324468d497fUL)]
    [InlineData(1, 0x4c5cca45d0f4811fUL, 0x495b62073ef70ca4UL, 0x4c5cca45d0f4811fUL)]
    [InlineData(2, 0xa7e250c97710ff27UL, 0x12b2847aa0de5aaaUL, 0xa7e250c97710ff27UL)]
    [InlineData(3, 0x15f7093b173d005cUL, 0x46f66cb935381565UL, 0x15f7093b173d005cUL)]
    [InlineData(4, 0xdca012f95811b6b9UL, 0x7fefeeffb4d0eab3UL, 0xb987ca5d9241572aUL)]
    [InlineData(8, 0xdec6a9a43575982eUL, 0x803c675a846cc6c2UL, 0x56bb836ceb6d4baaUL)]
    [InlineData(9, 0xcbe393399f17ffbdUL, 0xd46556872d230f22UL, 0x4376673580310154UL)]
    [InlineData(16, 0x7e484c18d74895d0UL, 0x650fe308c566747dUL, 0xf853dd94614dfa07UL)]
    [InlineData(17, 0x208bde5ee2bed407UL, 0x18217300b5132d5aUL, 0x78c349fe81b2f26cUL)]
    [InlineData(128, 0xf92b70eaa21a6288UL, 0xb4f87b99d2db8a51UL, 0x1e04fad9f0cacb4dUL)]
    [InlineData(129, 0xf8f76713f2bb60faUL, 0x6881633650cd8924UL, 0xc51bc887976aef63UL)]
    [InlineData(240, 0xccc7375172c41f03UL, 0xde57aab31e77a2ffUL, 0x93e173833f75ab66UL)]
    [InlineData(241, 0x0b3b630948ce4a00UL, 0x92b991a7192f3f08UL, 0x0b3b630948ce4a00UL)]
    [InlineData(1023, 0xf0d330ce2b3300fbUL, 0x8e8ed756aa1f01faUL, 0xf0d330ce2b3300fbUL)]
    [InlineData(1024, 0x23bc880ebf0d29c6UL, 0x4c17271c906df792UL, 0x23bc880ebf0d29c6UL)]
    [InlineData(1025, 0xc09fdfbc398c7d82UL, 0x70a4eb1b9691d77fUL, 0xc09fdfbc398c7d82UL)]
    [InlineData(4096, 0xa3c19f8174cde0bbUL, 0x49d3842b33d51e8aUL, 0xa3c19f8174cde0bbUL)]
    [InlineData(65537, 0xd6b549a3fd1d4112UL, 0xa7262c585d065f55UL, 0xd6b549a3fd1d4112UL)]
    [InlineData(1048576 + 3, 0xbd1d0e8fc15f8450UL, 0xf88290dcb1ef0b5eUL, 0xbd1d0e8fc15f8450UL)]
    public void MatchesXxhsumVectors(int length, ulong expected64, ulong expected128High, ulong expected128Low)
    {
        byte[] input = Pattern(length);
        UInt128 expected128 = new(expected128High, expected128Low);

        Assert.Equal(Hex(expected64), Hex(XxHash3.HashToUInt64(input)));
        Assert.Equal(Hex(expected128), Hex(XxHash128.HashToUInt128(input)));

        var hash3 = new XxHash3();
        var hash128 = new XxHash128();
        for (int offset = 0; offset < length; offset += 1000)
        {
            ReadOnlySpan<byte> chunk = input.AsSpan(offset, Math.Min(1000, length - offset));
            hash3.Append(chunk);
            hash128.Append(chunk);
        }

        Assert.Equal(Hex(expected64), Hex(hash3.GetCurrentHashAsUInt64()));
        Assert.Equal(Hex(expected128), Hex(hash128.GetCurrentHashAsUInt128()));
    }

    // xxhsum has no seed option, so these came from the reference C library itself
    // (libxxhash 0.8.1: XXH3_64bits_withSeed / XXH3_128bits_withSeed) on Pattern(length).
    [Theory]
    [InlineData(0, 0x1, 0x4dc5b0cc826f6703UL, 0xd9265cc53bb2b9aeUL, 0x6131b78f753823cdUL)]
    [InlineData(3, 0x1, 0x2d2f08ad1dcf5855UL, 0x87666631f2fd8187UL, 0x2d2f08ad1dcf5855UL)]
    [InlineData(8, 0x1, 0x93db64e0c78addf0UL, 0x1e4f04181c23870dUL, 0x687e84bd7a14e34cUL)]
    [InlineData(16, 0x1, 0x5eb10bd46ebeb101UL, 0x3497a9c458da0ae1UL, 0xa8ad18f2d77f1656UL)]
    [InlineData(100, 0x1, 0x61bec5f2885427afUL, 0x48472ecb58359793UL, 0xa042d11e2f576091UL)]
    [InlineData(200, 0x1, 0x70b275726591737bUL, 0x4772f81024e60fbbUL, 0xb6c62f8d5afc23a8UL)]
    [InlineData(1025, 0x1, 0xc92b70791f0e3d05UL, 0xfd1f5d2cabe05ea1UL, 0xc92b70791f0e3d05UL)]
    [InlineData(4113, 0x1, 0xfd3b169d98d47d9dUL, 0x38ca5ba16d0a1fd0UL, 0xfd3b169d98d47d9dUL)]
    [InlineData(0, -1, 0x4c093276ae47a555UL, 0x5334ec22748b5fcdUL, 0x2d10110a247d19ddUL)]
    [InlineData(3, -1, 0xdc48f60472a5945bUL, 0x31ceaa930ad20855UL, 0xdc48f60472a5945bUL)]
    [InlineData(8, -1, 0x741c19391db323daUL, 0xa12442811705bc2dUL, 0x21d4f756ebb754cfUL)]
    [InlineData(16, -1, 0x1a57687741b7a2d0UL, 0xf6387fa32eacaae9UL, 0x68c20a942e001c0cUL)]
    [InlineData(100, -1, 0x20cde7b286ef10cfUL, 0x4ab6c977cacc2a8eUL, 0xf959db7704c114fdUL)]
    [InlineData(200, -1, 0x3f8e2e02a73d8205UL, 0x5d09808e8025d42cUL, 0x9fd4d2af94437375UL)]
    [InlineData(1025, -1, 0x74e4ffbb27ee59adUL, 0x6cdab277fe5caf09UL, 0x74e4ffbb27ee59adUL)]
    [InlineData(4113, -1, 0xbd8c3b70279f4a04UL, 0x015ac96a7faebe6fUL, 0xbd8c3b70279f4a04UL)]
    [InlineData(0, 0x123456789ABCDEF, 0xcc1ca35a1b089c5cUL, 0xa4cb05dbbf09907aUL, 0xaaa287af24a9bb3aUL)]
    [InlineData(3, 0x123456789ABCDEF, 0x2c39b392abaacc0eUL, 0x23fb72a959bf4818UL, 0x2c39b392abaacc0eUL)]
    [InlineData(8, 0x123456789ABCDEF, 0x32f1df0fb4c56018UL, 0x8c09234177f35fb8UL, 0x571078620377afd7UL)]
    [InlineData(16, 0x123456789ABCDEF, 0xf6ca25f941ddb47cUL, 0x7b220e947528f5a6UL, 0x1998cb6eb60bcb7fUL)]
    [InlineData(100, 0x123456789ABCDEF, 0x2cc815f0f0bf518bUL, 0x156f06bbb9b410dcUL, 0x8b6b49339d1be31bUL)]
    [InlineData(200, 0x123456789ABCDEF, 0x24a6cbd31a9b847cUL, 0x891ee174d9cc8857UL, 0x1a20a6e4c750075cUL)]
    [InlineData(1025, 0x123456789ABCDEF, 0x350929fe64db0243UL, 0x80e0d14600fc4078UL, 0x350929fe64db0243UL)]
    [InlineData(4113, 0x123456789ABCDEF, 0xe6e4ccda67d03a87UL, 0x48c7a42067319840UL, 0xe6e4ccda67d03a87UL)]
    public void MatchesReferenceLibraryWithSeed(int length, long seed, ulong expected64, ulong expected128High, ulong expected128Low)
    {
        byte[] input = Pattern(length);
        UInt128 expected128 = new(expected128High, expected128Low);

        Assert.Equal(Hex(expected64), Hex(XxHash3.HashToUInt64(input, seed)));
        Assert.Equal(Hex(expected128), Hex(XxHash128.HashToUInt128(input, seed)));

        var hash3 = new XxHash3(seed);
        var hash128 = new XxHash128(seed);
        hash3.Append(input);
        hash128.Append(input);
        Assert.Equal(Hex(expected64), Hex(hash3.GetCurrentHashAsUInt64()));
        Assert.Equal(Hex(expected128), Hex(hash128.GetCurrentHashAsUInt128()));
    }

    [RequiresToolFact("xxhsum")]
    public void MatchesXxhsumOnRandomFiles()
    {
        var random = new Random(20251122);
        string directory = Directory.CreateTempSubdirectory("dedup-xxhash-").FullName;
        try
        {
            var files = new List<(string Name, byte[] Data)>();
            for (int i = 0; i < 200; i++)
            {
                byte[] data = new byte[RandomLength(random)];
                random.NextBytes(data);
                string name = $"f{i:D3}.bin";
                File.WriteAllBytes(Path.Combine(directory, name), data);
                files.Add((name, data));
            }

            string[] names = files.Select(file => file.Name).ToArray();
            Dictionary<string, string> expected3 = RunXxhsum(directory, "-H3", names);
            Dictionary<string, string> expected128 = RunXxhsum(directory, "-H128", names);

            var mismatches = new List<string>();
            foreach ((string name, byte[] data) in files)
            {
                string actual3 = Hex(XxHash3.HashToUInt64(data));
                string actual128 = Hex(XxHash128.HashToUInt128(data));
                if (actual3 != expected3[name] || actual128 != expected128[name])
                {
                    mismatches.Add($"{name} ({data.Length} bytes): XXH3 {actual3} vs {expected3[name]}, XXH128 {actual128} vs {expected128[name]}");
                }
            }

            Assert.Empty(mismatches);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public void StreamingMatchesOneShotForRandomSplits()
    {
        var random = new Random(4242);
        byte[] data = new byte[300_064];
        random.NextBytes(data);

        // Every small length, lengths around each buffer/stripe/block boundary, then random large ones.
        var lengths = new List<int>(Enumerable.Range(0, 600));
        for (int boundary = 1024; boundary <= 8192; boundary += 256)
        {
            lengths.AddRange(Enumerable.Range(boundary - 65, 131));
        }

        for (int i = 0; i < 60; i++)
        {
            lengths.Add(random.Next(8192, 300_000));
        }

        var hash3 = new XxHash3();
        var hash128 = new XxHash128();
        foreach (int length in lengths)
        {
            // Random offsets make sure unaligned input is handled.
            ReadOnlySpan<byte> input = data.AsSpan(random.Next(0, 64), length);
            ulong expected3 = XxHash3.HashToUInt64(input);
            UInt128 expected128 = XxHash128.HashToUInt128(input);

            hash3.Reset();
            hash128.Reset();
            int position = 0;
            while (position < length)
            {
                int chunk = random.Next(5) switch
                {
                    0 => random.Next(0, 4),
                    1 => random.Next(0, 80),
                    2 => random.Next(0, 600),
                    3 => random.Next(0, 5000),
                    _ => random.Next(0, length + 1),
                };
                chunk = Math.Min(chunk, length - position);
                hash3.Append(input.Slice(position, chunk));
                hash128.Append(input.Slice(position, chunk));
                position += chunk;

                // Reading the hash mid-stream must not disturb the state, and must equal the prefix's hash.
                if (random.Next(6) == 0)
                {
                    Assert.Equal(XxHash3.HashToUInt64(input[..position]), hash3.GetCurrentHashAsUInt64());
                    Assert.Equal(XxHash128.HashToUInt128(input[..position]), hash128.GetCurrentHashAsUInt128());
                }
            }

            Assert.True(expected3 == hash3.GetCurrentHashAsUInt64(), $"XxHash3 streaming mismatch at length {length}");
            Assert.True(expected128 == hash128.GetCurrentHashAsUInt128(), $"XxHash128 streaming mismatch at length {length}");
        }
    }

    [Fact]
    public void SeededStreamingMatchesSeededOneShot()
    {
        var random = new Random(77);
        byte[] data = new byte[20_000];
        random.NextBytes(data);
        foreach (long seed in new[] { 1L, -1L, 0x0123456789ABCDEFL, random.NextInt64() })
        {
            var hash3 = new XxHash3(seed);
            var hash128 = new XxHash128(seed);
            foreach (int length in new[] { 0, 5, 100, 240, 241, 1024, 1025, 3333, 20_000 })
            {
                hash3.Reset();
                hash128.Reset();
                ReadOnlySpan<byte> input = data.AsSpan(0, length);
                int split = random.Next(0, length + 1);
                hash3.Append(input[..split]);
                hash3.Append(input[split..]);
                hash128.Append(input[..split]);
                hash128.Append(input[split..]);
                Assert.Equal(XxHash3.HashToUInt64(input, seed), hash3.GetCurrentHashAsUInt64());
                Assert.Equal(XxHash128.HashToUInt128(input, seed), hash128.GetCurrentHashAsUInt128());
            }
        }
    }

    [Fact]
    public void VectorizedAccumulateMatchesScalar()
    {
        // The hardware path (AVX-512/AVX2/SSE2 when present) against the portable one, on 15
        // stripes so no scramble runs in between.
        var random = new Random(9);
        byte[] data = new byte[15 * 64];
        random.NextBytes(data);
        ulong[] vectorAcc = Enumerable.Range(0, 8).Select(_ => (ulong)random.NextInt64()).ToArray();
        ulong[] scalarAcc = (ulong[])vectorAcc.Clone();

        int stripesInBlock = 0;
        XxHashShared.ConsumeStripes(vectorAcc, ref stripesInBlock, data, 15, XxHashShared.DefaultSecret);
        XxHashShared.AccumulateScalar(
            ref scalarAcc[0],
            ref data[0],
            ref MemoryMarshal.GetReference(XxHashShared.DefaultSecret),
            15);

        Assert.Equal(scalarAcc, vectorAcc);
    }

    [Fact]
    public void HashingDoesNotAllocate()
    {
        byte[] data = Pattern(100_000);
        int[] lengths = [0, 3, 8, 16, 100, 200, 1000, 100_000];
        var hash3 = new XxHash3();
        var hash128 = new XxHash128();
        ulong sink = 0;

        void HashAll()
        {
            foreach (int length in lengths)
            {
                sink += XxHash3.HashToUInt64(data.AsSpan(0, length));
                sink += (ulong)XxHash128.HashToUInt128(data.AsSpan(0, length));
            }

            hash3.Reset();
            hash128.Reset();
            hash3.Append(data.AsSpan(0, 777));
            hash3.Append(data.AsSpan(777));
            hash128.Append(data.AsSpan(0, 777));
            hash128.Append(data.AsSpan(777));
            sink += hash3.GetCurrentHashAsUInt64();
            sink += (ulong)hash128.GetCurrentHashAsUInt128();
        }

        // The runtime itself can allocate once on this thread while tiering the methods up (seen on
        // CI: ~7 KB in one window). Hashing that allocates does so in every window, so the least of
        // several windows must be zero.
        for (int i = 0; i < 50; i++)
        {
            HashAll();
        }

        long least = long.MaxValue;
        for (int window = 0; window < 5; window++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < 10; i++)
            {
                HashAll();
            }

            least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - before);
        }

        Assert.Equal(0, least);
        Assert.NotEqual(0UL, sink);
    }

    private static int RandomLength(Random random) => random.Next(100) switch
    {
        < 15 => random.Next(0, 17),
        < 35 => random.Next(17, 241),
        < 60 => random.Next(241, 2100),
        < 85 => random.Next(2100, 70_000),
        _ => random.Next(70_000, 2_200_000),
    };

    /// <summary>Runs xxhsum once over all files and returns file name -> upper-case hex digest.</summary>
    private static Dictionary<string, string> RunXxhsum(string directory, string algorithm, string[] names)
    {
        var (exitCode, output, error) = ProcessRunner.Run("xxhsum", [algorithm, "--tag", .. names], workingDirectory: directory, timeoutSeconds: 120);
        Assert.True(exitCode == 0, $"xxhsum {algorithm} failed ({exitCode}): {error}");

        var digests = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (string line in output.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            // BSD style (--tag): "XXH3 (name) = hex"; GNU style as a fallback: "[XXH3_]hex  name".
            Match match = BsdLine().Match(line);
            if (!match.Success)
            {
                match = GnuLine().Match(line);
            }

            Assert.True(match.Success, $"unexpected xxhsum output line: {line}");
            digests[match.Groups["name"].Value] = match.Groups["hash"].Value.ToUpperInvariant();
        }

        Assert.Equal(names.Length, digests.Count);
        return digests;
    }

    private static string Hex(ulong value) => value.ToString("X16", System.Globalization.CultureInfo.InvariantCulture);

    // Same order as xxhsum's canonical (big-endian) output: high 64 bits first.
    private static string Hex(UInt128 value) => value.ToString("X32", System.Globalization.CultureInfo.InvariantCulture);

    [GeneratedRegex(@"^\w+ \((?<name>.+)\) = (?<hash>[0-9a-fA-F]+)$")]
    private static partial Regex BsdLine();

    [GeneratedRegex(@"^(?:XXH3_)?(?<hash>[0-9a-fA-F]+) +\*?(?<name>.+)$")]
    private static partial Regex GnuLine();
}
