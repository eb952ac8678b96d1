using System.Buffers.Binary;
using System.Numerics;
using static Dedup.Core.Comparison.Hashing.XxHashShared;

namespace Dedup.Core.Comparison.Hashing;

/// <summary>
/// XXH3 64-bit hash. Mirrors <c>System.IO.Hashing.XxHash3</c> (one-shot and streaming), which is not
/// available to this build; see XxHashShared.cs.
/// </summary>
internal sealed class XxHash3 : XxHash3StreamingBase
{
    public XxHash3()
        : this(0)
    {
    }

    public XxHash3(long seed)
        : base(seed)
    {
    }

    /// <summary>Computes the XXH3 64-bit hash of <paramref name="source"/>.</summary>
    public static ulong HashToUInt64(ReadOnlySpan<byte> source, long seed = 0)
    {
        ulong s = (ulong)seed;
        return source.Length switch
        {
            <= 16 => HashUpTo16(source, s),
            <= 128 => Hash17To128(source, s),
            <= MidSizeMax => Hash129To240(source, s),
            _ => HashLong(source, s),
        };
    }

    /// <summary>Returns the hash of everything appended since construction or the last reset.</summary>
    public ulong GetCurrentHashAsUInt64()
    {
        if (TotalLength <= MidSizeMax)
        {
            return HashToUInt64(ShortInput, Seed);
        }

        Accumulators acc = default;
        FinishLong(acc);
        return MergeAccumulators(acc, Secret[MergeSecretOffset..], TotalLength * Prime64_1);
    }

    private static ulong HashUpTo16(ReadOnlySpan<byte> source, ulong seed)
    {
        ReadOnlySpan<byte> secret = DefaultSecret;
        int length = source.Length;
        if (length > 8)
        {
            ulong low = ((Read64(secret, 24) ^ Read64(secret, 32)) + seed) ^ Read64(source, 0);
            ulong high = ((Read64(secret, 40) ^ Read64(secret, 48)) - seed) ^ Read64(source, length - 8);
            ulong acc = (ulong)length + BinaryPrimitives.ReverseEndianness(low) + high + Mul128Fold64(low, high);
            return Avalanche(acc);
        }

        if (length >= 4)
        {
            ulong modifiedSeed = seed ^ ((ulong)BinaryPrimitives.ReverseEndianness((uint)seed) << 32);
            ulong combined = Read32(source, length - 4) | ((ulong)Read32(source, 0) << 32);
            ulong value = ((Read64(secret, 8) ^ Read64(secret, 16)) - modifiedSeed) ^ combined;
            value ^= BitOperations.RotateLeft(value, 49) ^ BitOperations.RotateLeft(value, 24);
            value *= PrimeMx2;
            value ^= (value >> 35) + (ulong)length;
            value *= PrimeMx2;
            return value ^ (value >> 28);
        }

        if (length > 0)
        {
            uint combined = source[length - 1] | ((uint)length << 8) | ((uint)source[0] << 16) | ((uint)source[length >> 1] << 24);
            ulong value = ((ulong)(Read32(secret, 0) ^ Read32(secret, 4)) + seed) ^ combined;
            return AvalancheXxh64(value);
        }

        return AvalancheXxh64(seed ^ Read64(secret, 56) ^ Read64(secret, 64));
    }

    private static ulong Hash17To128(ReadOnlySpan<byte> source, ulong seed)
    {
        ReadOnlySpan<byte> secret = DefaultSecret;
        int length = source.Length;
        ulong acc = (ulong)length * Prime64_1;

        // Pairs a 16-byte chunk from the front with one from the back until they cover the input.
        int rounds = ((length - 1) >> 5) + 1;
        for (int i = rounds - 1; i >= 0; i--)
        {
            acc += Mix16(source[(16 * i)..], secret[(32 * i)..], seed);
            acc += Mix16(source[(length - 16 - (16 * i))..], secret[((32 * i) + 16)..], seed);
        }

        return Avalanche(acc);
    }

    private static ulong Hash129To240(ReadOnlySpan<byte> source, ulong seed)
    {
        ReadOnlySpan<byte> secret = DefaultSecret;
        int length = source.Length;
        ulong acc = (ulong)length * Prime64_1;
        for (int i = 0; i < 8; i++)
        {
            acc += Mix16(source[(16 * i)..], secret[(16 * i)..], seed);
        }

        acc = Avalanche(acc);
        int chunks = length >> 4;
        for (int i = 8; i < chunks; i++)
        {
            acc += Mix16(source[(16 * i)..], secret[((16 * (i - 8)) + 3)..], seed);
        }

        acc += Mix16(source[(length - 16)..], secret[119..], seed);
        return Avalanche(acc);
    }

    private static ulong HashLong(ReadOnlySpan<byte> source, ulong seed)
    {
        SecretBuffer derived = default;
        scoped ReadOnlySpan<byte> secret = DefaultSecret;
        if (seed != 0)
        {
            DeriveSecret(derived, seed);
            secret = derived;
        }

        Accumulators acc = default;
        InitAccumulators(acc);
        AccumulateLong(acc, source, secret);
        return MergeAccumulators(acc, secret[MergeSecretOffset..], (ulong)source.Length * Prime64_1);
    }
}
