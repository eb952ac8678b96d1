using System.Numerics;
using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;

namespace Dedup.Benchmarks;

/// <summary>The seed talk's 32-byte digest comparisons (equal digests: the full-length case).</summary>
[MemoryDiagnoser]
public class HashCompareBenchmarks
{
    private readonly byte[] _a = new byte[32];
    private readonly byte[] _b = new byte[32];

    [GlobalSetup]
    public void Setup()
    {
        new Random(4).NextBytes(_a);
        _a.CopyTo(_b, 0);
    }

    [Benchmark(Baseline = true)]
    public unsafe bool UInt64PointersReverse()
    {
        fixed (byte* pa = _a, pb = _b)
        {
            var la = (ulong*)pa;
            var lb = (ulong*)pb;
            return la[3] == lb[3] && la[2] == lb[2] && la[1] == lb[1] && la[0] == lb[0];
        }
    }

    [Benchmark]
    public bool SpanUInt64Forward()
    {
        var la = MemoryMarshal.Cast<byte, ulong>(_a.AsSpan());
        var lb = MemoryMarshal.Cast<byte, ulong>(_b.AsSpan());
        return la[0] == lb[0] && la[1] == lb[1] && la[2] == lb[2] && la[3] == lb[3];
    }

    [Benchmark]
    public bool VectorOfByte()
    {
        if (Vector<byte>.Count >= 32)
        {
            return new Vector<byte>(_a) == new Vector<byte>(_b);
        }

        return new Vector<byte>(_a, 16) == new Vector<byte>(_b, 16) && new Vector<byte>(_a, 0) == new Vector<byte>(_b, 0);
    }

    [Benchmark]
    public bool SequenceEqualConst32() => _a.AsSpan(0, 32).SequenceEqual(_b.AsSpan(0, 32));

    [Benchmark]
    public bool SequenceEqualN() => _a.AsSpan(0, _a.Length).SequenceEqual(_b.AsSpan(0, _b.Length));
}
