using System.Buffers.Binary;
using System.Numerics;
using static Dedup.Core.Comparison.Hashing.XxHashShared;

namespace Dedup.Core.Comparison.Hashing;

/// <summary>
/// XXH3 128-bit hash (XXH128). Mirrors <c>System.IO.Hashing.XxHash128</c> (one-shot and streaming),
/// which is not available to this build; see XxHashShared.cs.
/// </summary>
internal sealed class XxHash128 : XxHash3StreamingBase
{
    public XxHash128()
        : this(0)
    {
    }

    public XxHash128(long seed)
        : base(seed)
    {
    }

    /// <summary>Computes the XXH128 hash of <paramref name="source"/>.</summary>
    public static UInt128 HashToUInt128(ReadOnlySpan<byte> source, long seed = 0)
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
    public UInt128 GetCurrentHashAsUInt128()
    {
        if (TotalLength <= MidSizeMax)
        {
            return HashToUInt128(ShortInput, Seed);
        }

        Accumulators acc = default;
        FinishLong(acc);
        return MergeLong(acc, Secret, TotalLength);
    }

    private static UInt128 HashUpTo16(ReadOnlySpan<byte> source, ulong seed)
    {
        ReadOnlySpan<byte> secret = DefaultSecret;
        int length = source.Length;
        if (length > 8)
        {
            ulong first = Read64(source, 0);
            ulong last = Read64(source, length - 8);
            ulong value1 = ((Read64(secret, 32) ^ Read64(secret, 40)) - seed) ^ first ^ last;
            ulong value2 = ((Read64(secret, 48) ^ Read64(secret, 56)) + seed) ^ last;
            ulong high = Math.BigMul(value1, Prime64_1, out ulong low);
            low += (ulong)(length - 1) << 54;
            high += (value2 & 0xFFFFFFFF00000000UL) + ((value2 & 0xFFFFFFFFUL) * Prime32_2);
            low ^= BinaryPrimitives.ReverseEndianness(high);

            // 128x64-bit multiply of {low, high} by Prime64_2.
            ulong carry = Math.BigMul(low, Prime64_2, out low);
            high = carry + (high * Prime64_2);
            return new UInt128(Avalanche(high), Avalanche(low));
        }

        if (length >= 4)
        {
            ulong modifiedSeed = seed ^ ((ulong)BinaryPrimitives.ReverseEndianness((uint)seed) << 32);
            ulong combined = Read32(source, 0) | ((ulong)Read32(source, length - 4) << 32);
            ulong value = ((Read64(secret, 16) ^ Read64(secret, 24)) + modifiedSeed) ^ combined;
            ulong high = Math.BigMul(value, Prime64_1 + ((ulong)length << 2), out ulong low);
            high += low << 1;
            low ^= high >> 3;
            low ^= low >> 35;
            low *= PrimeMx2;
            low ^= low >> 28;
            return new UInt128(Avalanche(high), low);
        }

        if (length > 0)
        {
            uint combined = source[length - 1] | ((uint)length << 8) | ((uint)source[0] << 16) | ((uint)source[length >> 1] << 24);
            uint flipped = BitOperations.RotateLeft(BinaryPrimitives.ReverseEndianness(combined), 13);
            ulong low = ((ulong)(Read32(secret, 0) ^ Read32(secret, 4)) + seed) ^ combined;
            ulong high = ((ulong)(Read32(secret, 8) ^ Read32(secret, 12)) - seed) ^ flipped;
            return new UInt128(AvalancheXxh64(high), AvalancheXxh64(low));
        }

        return new UInt128(
            AvalancheXxh64(seed ^ Read64(secret, 80) ^ Read64(secret, 88)),
            AvalancheXxh64(seed ^ Read64(secret, 64) ^ Read64(secret, 72)));
    }

    private static UInt128 Hash17To128(ReadOnlySpan<byte> source, ulong seed)
    {
        ReadOnlySpan<byte> secret = DefaultSecret;
        int length = source.Length;
        ulong acc0 = (ulong)length * Prime64_1;
        ulong acc1 = 0;

        // Order matters here (unlike the 64-bit variant): the xor steps do not commute with the adds.
        int rounds = ((length - 1) >> 5) + 1;
        for (int i = rounds - 1; i >= 0; i--)
        {
            MixTwoChunks(ref acc0, ref acc1, source[(16 * i)..], source[(length - 16 - (16 * i))..], secret[(32 * i)..], seed);
        }

        return FinishMedium(acc0, acc1, length, seed);
    }

    private static UInt128 Hash129To240(ReadOnlySpan<byte> source, ulong seed)
    {
        ReadOnlySpan<byte> secret = DefaultSecret;
        int length = source.Length;
        ulong acc0 = (ulong)length * Prime64_1;
        ulong acc1 = 0;
        for (int i = 0; i < 4; i++)
        {
            MixTwoChunks(ref acc0, ref acc1, source[(32 * i)..], source[((32 * i) + 16)..], secret[(32 * i)..], seed);
        }

        acc0 = Avalanche(acc0);
        acc1 = Avalanche(acc1);
        int chunks = length >> 5;
        for (int i = 4; i < chunks; i++)
        {
            MixTwoChunks(ref acc0, ref acc1, source[(32 * i)..], source[((32 * i) + 16)..], secret[((32 * (i - 4)) + 3)..], seed);
        }

        // The spec swaps the half-chunk order and negates the seed for the closing pair.
        MixTwoChunks(ref acc0, ref acc1, source[(length - 16)..], source[(length - 32)..], secret[103..], 0 - seed);
        return FinishMedium(acc0, acc1, length, seed);
    }

    private static void MixTwoChunks(ref ulong acc0, ref ulong acc1, ReadOnlySpan<byte> data1, ReadOnlySpan<byte> data2, ReadOnlySpan<byte> secret, ulong seed)
    {
        acc0 += Mix16(data1, secret, seed);
        acc1 += Mix16(data2, secret[16..], seed);
        acc0 ^= Read64(data2, 0) + Read64(data2, 8);
        acc1 ^= Read64(data1, 0) + Read64(data1, 8);
    }

    private static UInt128 FinishMedium(ulong acc0, ulong acc1, int length, ulong seed)
    {
        ulong low = acc0 + acc1;
        ulong high = (acc0 * Prime64_1) + (acc1 * Prime64_4) + (((ulong)length - seed) * Prime64_2);
        return new UInt128(0 - Avalanche(high), Avalanche(low));
    }

    private static UInt128 HashLong(ReadOnlySpan<byte> source, ulong seed)
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
        return MergeLong(acc, secret, (ulong)source.Length);
    }

    private static UInt128 MergeLong(ReadOnlySpan<ulong> acc, ReadOnlySpan<byte> secret, ulong length)
    {
        ulong low = MergeAccumulators(acc, secret[MergeSecretOffset..], length * Prime64_1);
        ulong high = MergeAccumulators(acc, secret[(SecretLength - StripeLength - MergeSecretOffset)..], ~(length * Prime64_2));
        return new UInt128(high, low);
    }
}
