using System.Numerics;
using System.Runtime.InteropServices;

namespace Dedup.Core.Comparison;

/// <summary>Ways to compare two buffers; the benchmarks measure each against the others.</summary>
internal static class BufferComparison
{
    /// <summary>The naive loop: the baseline.</summary>
    public static bool Bytewise(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
    {
        if (a.Length != b.Length)
        {
            return false;
        }

        for (var i = 0; i < a.Length; i++)
        {
            if (a[i] != b[i])
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Compares 64-bit words, then the tail bytes.</summary>
    public static bool Int64Words(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
    {
        if (a.Length != b.Length)
        {
            return false;
        }

        var wa = MemoryMarshal.Cast<byte, ulong>(a);
        var wb = MemoryMarshal.Cast<byte, ulong>(b);
        for (var i = 0; i < wa.Length; i++)
        {
            if (wa[i] != wb[i])
            {
                return false;
            }
        }

        for (var i = wa.Length * sizeof(ulong); i < a.Length; i++)
        {
            if (a[i] != b[i])
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>Compares <see cref="Vector{T}"/>-sized blocks with early exit.</summary>
    public static bool VectorT(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b)
    {
        if (a.Length != b.Length)
        {
            return false;
        }

        var i = 0;
        for (; i <= a.Length - Vector<byte>.Count; i += Vector<byte>.Count)
        {
#if NET
            if (new Vector<byte>(a[i..]) != new Vector<byte>(b[i..]))
#else
            if (MemoryMarshal.Read<Vector<byte>>(a[i..]) != MemoryMarshal.Read<Vector<byte>>(b[i..]))
#endif
            {
                return false;
            }
        }

        for (; i < a.Length; i++)
        {
            if (a[i] != b[i])
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>The BCL's vectorized <c>SequenceEqual</c>: the one the library uses.</summary>
    public static bool Vectorized(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b) => a.SequenceEqual(b);
}
