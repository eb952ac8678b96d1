using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace Dedup.Core.Comparison.Hashing;

// Hand-written XXH3 (64- and 128-bit), following the published XXH3 specification
// (xxhash_spec.md). It exists only because the System.IO.Hashing package is not available
// to this build; the public shape mirrors that package so it can be swapped in later.
// Outputs are checked against the reference `xxhsum` tool in XxHashTests.

/// <summary>Constants and building blocks shared by <see cref="XxHash3"/> and <see cref="XxHash128"/>.</summary>
internal static class XxHashShared
{
    internal const ulong Prime32_1 = 0x9E3779B1UL;
    internal const ulong Prime32_2 = 0x85EBCA77UL;
    internal const ulong Prime32_3 = 0xC2B2AE3DUL;
    internal const ulong Prime64_1 = 0x9E3779B185EBCA87UL;
    internal const ulong Prime64_2 = 0xC2B2AE3D27D4EB4FUL;
    internal const ulong Prime64_3 = 0x165667B19E3779F9UL;
    internal const ulong Prime64_4 = 0x85EBCA77C2B2AE63UL;
    internal const ulong Prime64_5 = 0x27D4EB2F165667C5UL;
    internal const ulong PrimeMx1 = 0x165667919E3779F9UL;
    internal const ulong PrimeMx2 = 0x9FB21C651E98DF25UL;

    internal const int SecretLength = 192;
    internal const int StripeLength = 64;
    internal const int StripesPerBlock = (SecretLength - StripeLength) / 8; // 16 stripes = 1 KiB block
    internal const int MidSizeMax = 240;
    internal const int MergeSecretOffset = 11;
    internal const int LastStripeSecretOffset = SecretLength - StripeLength - 7;
    internal const int ScrambleSecretOffset = SecretLength - StripeLength;

    /// <summary>The standard XXH3 default secret (kSecret).</summary>
    internal static ReadOnlySpan<byte> DefaultSecret =>
    [
        0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
        0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
        0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
        0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
        0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
        0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
        0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
        0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
        0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
        0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
        0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
        0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
    ];

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static ulong Read64(ReadOnlySpan<byte> source, int offset) =>
        BinaryPrimitives.ReadUInt64LittleEndian(source[offset..]);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static uint Read32(ReadOnlySpan<byte> source, int offset) =>
        BinaryPrimitives.ReadUInt32LittleEndian(source[offset..]);

    // Unchecked little-endian read for the hot loops; callers guarantee the bounds.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Read64(ref byte source, int offset)
    {
        ulong value = Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref source, offset));
        return BitConverter.IsLittleEndian ? value : BinaryPrimitives.ReverseEndianness(value);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static ulong Mul128Fold64(ulong left, ulong right)
    {
        ulong high = Math.BigMul(left, right, out ulong low);
        return low ^ high;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static ulong Avalanche(ulong value)
    {
        value ^= value >> 37;
        value *= PrimeMx1;
        return value ^ (value >> 32);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static ulong AvalancheXxh64(ulong value)
    {
        value ^= value >> 33;
        value *= Prime64_2;
        value ^= value >> 29;
        value *= Prime64_3;
        return value ^ (value >> 32);
    }

    /// <summary>Mixes 16 bytes of input with 16 bytes of secret (medium-size inputs).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static ulong Mix16(ReadOnlySpan<byte> data, ReadOnlySpan<byte> secret, ulong seed) =>
        Mul128Fold64(
            Read64(data, 0) ^ (Read64(secret, 0) + seed),
            Read64(data, 8) ^ (Read64(secret, 8) - seed));

    /// <summary>A non-zero seed replaces the secret for long inputs by this derivation.</summary>
    internal static void DeriveSecret(Span<byte> destination, ulong seed)
    {
        ReadOnlySpan<byte> secret = DefaultSecret;
        for (int i = 0; i < SecretLength; i += 16)
        {
            BinaryPrimitives.WriteUInt64LittleEndian(destination[i..], Read64(secret, i) + seed);
            BinaryPrimitives.WriteUInt64LittleEndian(destination[(i + 8)..], Read64(secret, i + 8) - seed);
        }
    }

    internal static void InitAccumulators(Span<ulong> acc)
    {
        acc[0] = Prime32_3;
        acc[1] = Prime64_1;
        acc[2] = Prime64_2;
        acc[3] = Prime64_3;
        acc[4] = Prime64_4;
        acc[5] = Prime32_2;
        acc[6] = Prime64_5;
        acc[7] = Prime32_1;
    }

    /// <summary>
    /// Runs the long-input (&gt; 240 bytes) accumulation over a whole buffer: every full stripe
    /// but the last byte's, then the final 64 bytes as the closing stripe.
    /// </summary>
    // Hot loop: compiled fully optimized at once (tiering would run it unoptimized first, and
    // ReadyToRun cannot precompile its AVX-512/AVX2 paths).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    internal static void AccumulateLong(Span<ulong> acc, ReadOnlySpan<byte> source, ReadOnlySpan<byte> secret)
    {
        int stripesInBlock = 0;
        ConsumeStripes(acc, ref stripesInBlock, source, (source.Length - 1) / StripeLength, secret);
        AccumulateLastStripe(acc, source[^StripeLength..], secret);
    }

    internal static void AccumulateLastStripe(Span<ulong> acc, ReadOnlySpan<byte> lastStripe, ReadOnlySpan<byte> secret)
    {
        ReadOnlySpan<byte> stripe = lastStripe[..StripeLength];
        ReadOnlySpan<byte> key = secret.Slice(LastStripeSecretOffset, StripeLength);
        Accumulate(ref acc[0], ref MemoryMarshal.GetReference(stripe), ref MemoryMarshal.GetReference(key), 1);
    }

    /// <summary>
    /// Accumulates <paramref name="stripes"/> stripes, scrambling at each block boundary. Scrambling
    /// eagerly after the 16th stripe gives the same result as the spec's block loop because
    /// callers never pass the stripe holding the input's last byte.
    /// </summary>
    // Hot loop: compiled fully optimized at once (tiering would run it unoptimized first, and
    // ReadyToRun cannot precompile its AVX-512/AVX2 paths).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    internal static void ConsumeStripes(Span<ulong> acc, ref int stripesInBlock, ReadOnlySpan<byte> data, int stripes, ReadOnlySpan<byte> secret)
    {
        if ((uint)stripes > (uint)(data.Length / StripeLength) || acc.Length < 8 || secret.Length < SecretLength)
        {
            throw new ArgumentOutOfRangeException(nameof(stripes));
        }

        ref ulong accRef = ref acc[0];
        ref byte dataRef = ref MemoryMarshal.GetReference(data);
        ref byte secretRef = ref MemoryMarshal.GetReference(secret);
        while (stripes > 0)
        {
            int count = Math.Min(stripes, StripesPerBlock - stripesInBlock);
            Accumulate(ref accRef, ref dataRef, ref Unsafe.Add(ref secretRef, stripesInBlock * 8), count);
            dataRef = ref Unsafe.Add(ref dataRef, count * StripeLength);
            stripes -= count;
            stripesInBlock += count;
            if (stripesInBlock == StripesPerBlock)
            {
                Scramble(ref accRef, ref Unsafe.Add(ref secretRef, ScrambleSecretOffset));
                stripesInBlock = 0;
            }
        }
    }

    /// <summary>
    /// For each stripe n: acc[i ^ 1] += lane[i]; acc[i] += lo32(lane[i] ^ key[i]) * hi32(lane[i] ^ key[i]),
    /// with the key advancing 8 bytes per stripe. Bounds are checked by the callers.
    /// </summary>
    // Hot loop: compiled fully optimized at once (tiering would run it unoptimized first, and
    // ReadyToRun cannot precompile its AVX-512/AVX2 paths).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void Accumulate(ref ulong acc, ref byte data, ref byte secret, int stripes)
    {
        if (Vector512.IsHardwareAccelerated && Avx512F.IsSupported)
        {
            Vector512<ulong> a = Vector512.LoadUnsafe(ref acc);
            for (int n = 0; n < stripes; n++)
            {
                Vector512<ulong> d = Vector512.LoadUnsafe(ref data, (nuint)(n * StripeLength)).AsUInt64();
                Vector512<ulong> k = d ^ Vector512.LoadUnsafe(ref secret, (nuint)(n * 8)).AsUInt64();
                Vector512<ulong> product = Avx512F.Multiply(k.AsUInt32(), Avx512F.ShiftRightLogical(k, 32).AsUInt32());
                // 0x4E swaps the two 64-bit lanes of every 128-bit pair: that is the i ^ 1 above.
                a += Avx512F.Shuffle(d.AsUInt32(), 0x4E).AsUInt64() + product;
            }

            a.StoreUnsafe(ref acc);
        }
        else if (Avx2.IsSupported)
        {
            Vector256<ulong> a0 = Vector256.LoadUnsafe(ref acc);
            Vector256<ulong> a1 = Vector256.LoadUnsafe(ref acc, 4);
            for (int n = 0; n < stripes; n++)
            {
                ref byte d = ref Unsafe.Add(ref data, n * StripeLength);
                ref byte s = ref Unsafe.Add(ref secret, n * 8);
                Vector256<ulong> d0 = Vector256.LoadUnsafe(ref d).AsUInt64();
                Vector256<ulong> d1 = Vector256.LoadUnsafe(ref d, 32).AsUInt64();
                Vector256<ulong> k0 = d0 ^ Vector256.LoadUnsafe(ref s).AsUInt64();
                Vector256<ulong> k1 = d1 ^ Vector256.LoadUnsafe(ref s, 32).AsUInt64();
                a0 += Avx2.Multiply(k0.AsUInt32(), Avx2.ShiftRightLogical(k0, 32).AsUInt32()) + Avx2.Shuffle(d0.AsUInt32(), 0x4E).AsUInt64();
                a1 += Avx2.Multiply(k1.AsUInt32(), Avx2.ShiftRightLogical(k1, 32).AsUInt32()) + Avx2.Shuffle(d1.AsUInt32(), 0x4E).AsUInt64();
            }

            a0.StoreUnsafe(ref acc);
            a1.StoreUnsafe(ref acc, 4);
        }
        else if (Sse2.IsSupported)
        {
            for (int lane = 0; lane < 8; lane += 2)
            {
                Vector128<ulong> a = Vector128.LoadUnsafe(ref acc, (nuint)lane);
                for (int n = 0; n < stripes; n++)
                {
                    Vector128<ulong> d = Vector128.LoadUnsafe(ref data, (nuint)((n * StripeLength) + (lane * 8))).AsUInt64();
                    Vector128<ulong> k = d ^ Vector128.LoadUnsafe(ref secret, (nuint)((n * 8) + (lane * 8))).AsUInt64();
                    a += Sse2.Multiply(k.AsUInt32(), Sse2.ShiftRightLogical(k, 32).AsUInt32()) + Sse2.Shuffle(d.AsUInt32(), 0x4E).AsUInt64();
                }

                a.StoreUnsafe(ref acc, (nuint)lane);
            }
        }
        else
        {
            AccumulateScalar(ref acc, ref data, ref secret, stripes);
        }
    }

    // Hot loop: compiled fully optimized at once (tiering would run it unoptimized first, and
    // ReadyToRun cannot precompile its AVX-512/AVX2 paths).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    internal static void AccumulateScalar(ref ulong acc, ref byte data, ref byte secret, int stripes)
    {
        for (int n = 0; n < stripes; n++)
        {
            ref byte d = ref Unsafe.Add(ref data, n * StripeLength);
            ref byte s = ref Unsafe.Add(ref secret, n * 8);
            for (int i = 0; i < 8; i++)
            {
                ulong lane = Read64(ref d, i * 8);
                ulong key = lane ^ Read64(ref s, i * 8);
                Unsafe.Add(ref acc, i ^ 1) += lane;
                Unsafe.Add(ref acc, i) += (key & 0xFFFFFFFFUL) * (key >> 32);
            }
        }
    }

    // Runs once per 1 KiB block, so scalar code is fast enough here.
    // Hot loop: compiled fully optimized at once (tiering would run it unoptimized first, and
    // ReadyToRun cannot precompile its AVX-512/AVX2 paths).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void Scramble(ref ulong acc, ref byte secret)
    {
        for (int i = 0; i < 8; i++)
        {
            ref ulong a = ref Unsafe.Add(ref acc, i);
            ulong value = a ^ (a >> 47) ^ Read64(ref secret, i * 8);
            a = value * Prime32_1;
        }
    }

    /// <summary>Folds the eight accumulators into one 64-bit result.</summary>
    internal static ulong MergeAccumulators(ReadOnlySpan<ulong> acc, ReadOnlySpan<byte> secret, ulong start)
    {
        ulong result = start;
        for (int i = 0; i < 4; i++)
        {
            result += Mul128Fold64(acc[2 * i] ^ Read64(secret, 16 * i), acc[(2 * i) + 1] ^ Read64(secret, (16 * i) + 8));
        }

        return Avalanche(result);
    }

    [InlineArray(8)]
    internal struct Accumulators
    {
        private ulong _element0;
    }

    [InlineArray(SecretLength)]
    internal struct SecretBuffer
    {
        private byte _element0;
    }

    [InlineArray(XxHash3StreamingBase.BufferLength)]
    internal struct InputBuffer
    {
        private byte _element0;
    }
}

/// <summary>
/// Streaming state shared by <see cref="XxHash3"/> and <see cref="XxHash128"/>. Input is buffered
/// until more than <see cref="BufferLength"/> bytes are pending, so the stripe holding the final
/// byte (which the algorithm treats specially) is never consumed before the digest is requested.
/// </summary>
internal abstract class XxHash3StreamingBase
{
    internal const int BufferLength = 4 * XxHashShared.StripeLength;

    private XxHashShared.Accumulators _accumulators;
    private XxHashShared.InputBuffer _buffer;
    private XxHashShared.SecretBuffer _secret;
    private readonly ulong _seed;
    private ulong _totalLength;
    private int _bufferedCount;
    private int _stripesInBlock;

    protected XxHash3StreamingBase(long seed)
    {
        _seed = (ulong)seed;
        if (_seed == 0)
        {
            XxHashShared.DefaultSecret.CopyTo(_secret);
        }
        else
        {
            XxHashShared.DeriveSecret(_secret, _seed);
        }

        Reset();
    }

    protected long Seed => (long)_seed;

    /// <summary>Total bytes appended since the last reset.</summary>
    protected ulong TotalLength => _totalLength;

    /// <summary>Everything appended so far; only valid while <see cref="TotalLength"/> &lt;= 240.</summary>
    protected ReadOnlySpan<byte> ShortInput => ((ReadOnlySpan<byte>)_buffer)[.._bufferedCount];

    protected ReadOnlySpan<byte> Secret => _secret;

    /// <summary>Clears the state so the instance can hash a new input with the same seed.</summary>
    public void Reset()
    {
        XxHashShared.InitAccumulators(_accumulators);
        _totalLength = 0;
        _bufferedCount = 0;
        _stripesInBlock = 0;
    }

    /// <summary>Adds <paramref name="source"/> to the data being hashed.</summary>
    public void Append(ReadOnlySpan<byte> source)
    {
        _totalLength += (ulong)source.Length;
        Span<byte> buffer = _buffer;
        if (source.Length <= BufferLength - _bufferedCount)
        {
            source.CopyTo(buffer[_bufferedCount..]);
            _bufferedCount += source.Length;
            return;
        }

        // From here more than a full buffer is pending, so the buffered stripes are not the last.
        if (_bufferedCount > 0)
        {
            int fill = BufferLength - _bufferedCount;
            source[..fill].CopyTo(buffer[_bufferedCount..]);
            source = source[fill..];
            XxHashShared.ConsumeStripes(_accumulators, ref _stripesInBlock, buffer, BufferLength / XxHashShared.StripeLength, _secret);
            _bufferedCount = 0;
        }

        if (source.Length > BufferLength)
        {
            // Hash straight from the caller's span, keeping 1..64 bytes back for the final stripe.
            int stripes = (source.Length - 1) / XxHashShared.StripeLength;
            int consumed = stripes * XxHashShared.StripeLength;
            XxHashShared.ConsumeStripes(_accumulators, ref _stripesInBlock, source, stripes, _secret);

            // The final stripe may need bytes from before the tail: keep the last consumed stripe at the buffer's end.
            source.Slice(consumed - XxHashShared.StripeLength, XxHashShared.StripeLength)
                .CopyTo(buffer[(BufferLength - XxHashShared.StripeLength)..]);
            source = source[consumed..];
        }

        // A tail shorter than a stripe lands in front of the kept stripe without overwriting the part still needed.
        source.CopyTo(buffer);
        _bufferedCount = source.Length;
    }

    /// <summary>
    /// Finishes the long-input accumulation on a copy of the state (so appending can continue).
    /// Only valid when <see cref="TotalLength"/> &gt; 240.
    /// </summary>
    protected void FinishLong(Span<ulong> acc)
    {
        ((ReadOnlySpan<ulong>)_accumulators).CopyTo(acc);
        ReadOnlySpan<byte> buffer = _buffer;
        int stripesInBlock = _stripesInBlock;
        int count = _bufferedCount;
        if (count >= XxHashShared.StripeLength)
        {
            XxHashShared.ConsumeStripes(acc, ref stripesInBlock, buffer, (count - 1) / XxHashShared.StripeLength, _secret);
            XxHashShared.AccumulateLastStripe(acc, buffer[(count - XxHashShared.StripeLength)..count], _secret);
        }
        else
        {
            // The last 64 input bytes = the end of the previously consumed stripe + the buffered tail.
            Span<byte> lastStripe = stackalloc byte[XxHashShared.StripeLength];
            int carried = XxHashShared.StripeLength - count;
            buffer[(BufferLength - carried)..].CopyTo(lastStripe);
            buffer[..count].CopyTo(lastStripe[carried..]);
            XxHashShared.AccumulateLastStripe(acc, lastStripe, _secret);
        }
    }
}
