using Dedup.Core.Comparison;
using Dedup.Core.Comparison.Hashing;

namespace Dedup.Core.Tests.Comparison;

/// <summary>
/// The digests the scan keys on come from System.IO.Hashing: checked against xxhsum's vectors (so the package and the
/// way its bytes become a key agree with the reference tool), and the streaming hasher against the one-shot digests.
/// </summary>
public sealed class ContentHashTests
{
    /// <summary>The deterministic test input: byte i = (byte)(i * 31 + 7).</summary>
    private static byte[] Pattern(int length)
    {
        var data = new byte[length];
        for (var i = 0; i < length; i++)
        {
            data[i] = (byte)((i * 31) + 7);
        }

        return data;
    }

    // From `xxhsum -H3` and `xxhsum -H128` (xxhsum 0.8.1, Debian package xxhash) on files holding Pattern(length);
    // xxhsum prints XXH128 big-endian: high 64 bits first.
    [Theory]
    [InlineData(0, 0x2d06800538d394c2UL, 0x99aa06d3014798d8UL, 0x6001c324468d497fUL)]
    [InlineData(1, 0x4c5cca45d0f4811fUL, 0x495b62073ef70ca4UL, 0x4c5cca45d0f4811fUL)]
    [InlineData(4, 0xdca012f95811b6b9UL, 0x7fefeeffb4d0eab3UL, 0xb987ca5d9241572aUL)]
    [InlineData(17, 0x208bde5ee2bed407UL, 0x18217300b5132d5aUL, 0x78c349fe81b2f26cUL)]
    [InlineData(129, 0xf8f76713f2bb60faUL, 0x6881633650cd8924UL, 0xc51bc887976aef63UL)]
    [InlineData(241, 0x0b3b630948ce4a00UL, 0x92b991a7192f3f08UL, 0x0b3b630948ce4a00UL)]
    [InlineData(4096, 0xa3c19f8174cde0bbUL, 0x49d3842b33d51e8aUL, 0xa3c19f8174cde0bbUL)]
    [InlineData(1048576 + 3, 0xbd1d0e8fc15f8450UL, 0xf88290dcb1ef0b5eUL, 0xbd1d0e8fc15f8450UL)]
    public void Digests_match_xxhsum_one_shot_and_streamed(int length, ulong expected64, ulong expected128High, ulong expected128Low)
    {
        var input = Pattern(length);

        Assert.Equal(new ContentHash(expected64), ContentHash.Compute(DuplicateHashAlgorithm.XxHash3, input));
        Assert.Equal(new ContentHash(expected128Low, expected128High), ContentHash.Compute(DuplicateHashAlgorithm.XxHash128, input));
        Assert.Equal(new ContentHash(expected128Low, expected128High), ContentHash.Xx128(input));

        foreach (var algorithm in new[] { DuplicateHashAlgorithm.XxHash3, DuplicateHashAlgorithm.XxHash128, DuplicateHashAlgorithm.Sha256 })
        {
            using var hasher = new IncrementalContentHasher(algorithm);
            for (var round = 0; round < 2; round++)
            {
                // Uneven chunks, twice: Finish must reset the hasher for the next file.
                for (var offset = 0; offset < length; offset += 1000 + round)
                {
                    hasher.Append(input.AsSpan(offset, Math.Min(1000 + round, length - offset)));
                }

                Assert.Equal(ContentHash.Compute(algorithm, input), hasher.Finish());
            }
        }
    }

    [Theory]
    [InlineData(DuplicateHashAlgorithm.XxHash3)]
    [InlineData(DuplicateHashAlgorithm.XxHash128)]
    [InlineData(DuplicateHashAlgorithm.Sha256)]
    public void Reset_forgets_what_was_appended(DuplicateHashAlgorithm algorithm)
    {
        using var hasher = new IncrementalContentHasher(algorithm);
        hasher.Append(Pattern(300));
        hasher.Reset();
        hasher.Append(Pattern(17));

        Assert.Equal(ContentHash.Compute(algorithm, Pattern(17)), hasher.Finish());
    }

    [Fact]
    public void Sha256_digest_is_the_standard_one()
    {
        var expected = System.Security.Cryptography.SHA256.HashData(Pattern(5000));
        Assert.Equal(ContentHash.FromBytes(expected), ContentHash.Compute(DuplicateHashAlgorithm.Sha256, Pattern(5000)));
    }
}
