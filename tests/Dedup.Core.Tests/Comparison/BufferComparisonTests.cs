using System.Numerics;
using System.Runtime.Intrinsics;
using Dedup.Core.Comparison;

namespace Dedup.Core.Tests.Comparison;

/// <summary>
/// Every buffer comparison (the benchmarks' word and <see cref="Vector{T}"/> loops as well as the two the library uses)
/// over every length from 0 to past two 512-bit vectors and then some longer ones, with one differing byte at every
/// offset: the first byte, the last, inside the word or vector loop, and in the tail after it; on aligned and
/// unaligned slices; and buffers of different lengths, which are never equal, whichever is longer.
/// </summary>
public sealed class BufferComparisonTests
{
    /// <summary>Past two 512-bit vectors (and so past every word, <see cref="Vector{T}"/> and 128/256-bit width).</summary>
    private static readonly int MaxDenseLength = (2 * Vector512<byte>.Count) + 9;

    private static readonly int[] LongLengths = [255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097];

    public static TheoryData<string> Methods => new() { "bytewise", "int64", "vector", "vectorized" };

    [Theory]
    [MemberData(nameof(Methods))]
    public void One_differing_byte_at_any_offset_of_any_length_is_found(string method)
    {
        var equal = Method(method);
        var random = new Random(12_345);

        // Offsets into the backing arrays shift both slices off word and vector alignment, alike and differently.
        foreach (var (shiftA, shiftB) in new[] { (0, 0), (1, 3), (7, 7) })
        {
            for (var length = 0; length <= MaxDenseLength; length++)
            {
                AssertEveryOffset(equal, method, random, length, shiftA, shiftB);
            }
        }
    }

    [Theory]
    [MemberData(nameof(Methods))]
    public void One_differing_byte_in_a_longer_buffer_is_found(string method)
    {
        var equal = Method(method);
        var random = new Random(54_321);
        foreach (var length in LongLengths)
        {
            // Every offset of the first and last 300 bytes (the tail after the last whole vector included), and a
            // sample of the middle.
            var offsets = Enumerable.Range(0, Math.Min(length, 300))
                .Concat(Enumerable.Range(Math.Max(0, length - 300), Math.Min(length, 300)))
                .Concat(Enumerable.Range(0, 64).Select(_ => random.Next(length)))
                .Distinct();
            AssertOffsets(equal, method, random, length, shiftA: 0, shiftB: 5, offsets);
        }
    }

    [Theory]
    [MemberData(nameof(Methods))]
    public void Buffers_of_different_lengths_are_never_equal(string method)
    {
        var equal = Method(method);
        var random = new Random(777);
        for (var length = 0; length <= MaxDenseLength; length++)
        {
            var longer = RandomBytes(random, length + Vector512<byte>.Count + 1);
            foreach (var shorter in new[] { length, length + 1, length + Vector<byte>.Count }.Distinct())
            {
                // A prefix of the same bytes: equal for as long as the shorter one goes.
                Expect(false, equal(longer.AsSpan(0, shorter), longer.AsSpan(0, shorter + 1)), method, shorter, "a prefix one byte short");
                Expect(false, equal(longer.AsSpan(0, shorter + 1), longer.AsSpan(0, shorter)), method, shorter, "one byte more than a prefix");
            }

            Expect(false, equal(longer.AsSpan(0, length), longer), method, length, "a short prefix");
            Expect(false, equal(longer, longer.AsSpan(0, length)), method, length, "longer than a prefix");
        }
    }

    [Theory]
    [MemberData(nameof(Methods))]
    public void Every_bit_of_the_last_byte_counts(string method)
    {
        var equal = Method(method);
        for (var length = 1; length <= MaxDenseLength; length++)
        {
            var zeros = new byte[length];
            var ones = Enumerable.Repeat((byte)0xFF, length).ToArray();
            Expect(false, equal(zeros, ones), method, length, "all zeros against all ones");
            Expect(true, equal(ones, (byte[])ones.Clone()), method, length, "all ones");

            // A single bit, each of the eight, in the last byte: the tail compare sees every bit.
            for (var bit = 0; bit < 8; bit++)
            {
                var other = (byte[])zeros.Clone();
                other[length - 1] = (byte)(1 << bit);
                Expect(false, equal(zeros, other), method, length, "one bit of the last byte set");
                Expect(false, equal(other, zeros), method, length, "one bit of the last byte clear");
            }
        }
    }

    private static void AssertEveryOffset(Comparer equal, string method, Random random, int length, int shiftA, int shiftB) =>
        AssertOffsets(equal, method, random, length, shiftA, shiftB, Enumerable.Range(0, length));

    private static void AssertOffsets(Comparer equal, string method, Random random, int length, int shiftA, int shiftB, IEnumerable<int> offsets)
    {
        var content = RandomBytes(random, length);
        var a = new byte[length + shiftA];
        var b = new byte[length + shiftB];
        content.CopyTo(a, shiftA);
        content.CopyTo(b, shiftB);
        var what = $"{method}, shifts {shiftA} and {shiftB}";
        Expect(true, equal(a.AsSpan(shiftA, length), b.AsSpan(shiftB, length)), what, length, "equal");
        Expect(true, equal(b.AsSpan(shiftB, length), a.AsSpan(shiftA, length)), what, length, "equal");

        foreach (var offset in offsets)
        {
            var flip = (byte)random.Next(1, 256);
            b[shiftB + offset] ^= flip;
            Expect(false, equal(a.AsSpan(shiftA, length), b.AsSpan(shiftB, length)), what, length, "one byte differs at", offset);
            Expect(false, equal(b.AsSpan(shiftB, length), a.AsSpan(shiftA, length)), what, length, "one byte differs at", offset);
            b[shiftB + offset] ^= flip;
        }

        // Restored: equal again (so no comparison leaves state behind or was lucky on the first call).
        Expect(true, equal(a.AsSpan(shiftA, length), b.AsSpan(shiftB, length)), what, length, "equal after the flips");
    }

    /// <summary>Asserts without building a message unless it fails (millions of calls).</summary>
    private static void Expect(bool expected, bool actual, string what, int length, string how, int offset = -1)
    {
        if (actual != expected)
        {
            Assert.Fail($"{what}, length {length}: {how}{(offset >= 0 ? $" {offset}" : string.Empty)}: expected {expected}");
        }
    }

    private static byte[] RandomBytes(Random random, int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }

    private delegate bool Comparer(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b);

    private static Comparer Method(string name) => name switch
    {
        "bytewise" => BufferComparison.Bytewise,
        "int64" => BufferComparison.Int64Words,
        "vector" => BufferComparison.VectorT,
        "vectorized" => BufferComparison.Vectorized,
        _ => throw new ArgumentOutOfRangeException(nameof(name), name, null),
    };
}
