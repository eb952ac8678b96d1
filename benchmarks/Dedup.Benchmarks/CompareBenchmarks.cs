using BenchmarkDotNet.Attributes;
using Dedup.Core.Comparison;

namespace Dedup.Benchmarks;

/// <summary>The seed talk's 4 KiB buffer compare: byte loop, Int64 words, Vector&lt;byte&gt;, SequenceEqual.</summary>
[MemoryDiagnoser]
public class CompareBenchmarks
{
    private byte[] _a = [];
    private byte[] _b = [];

    [Params(4096, 1024 * 1024)]
    public int Size { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _a = new byte[Size];
        new Random(1).NextBytes(_a);
        _b = (byte[])_a.Clone(); // equal buffers: the full-length worst case
    }

    [Benchmark(Baseline = true)]
    public bool ByteLoop() => BufferComparison.Bytewise(_a, _b);

    [Benchmark]
    public bool Int64Words() => BufferComparison.Int64Words(_a, _b);

    [Benchmark]
    public bool VectorT() => BufferComparison.VectorT(_a, _b);

    [Benchmark]
    public bool SequenceEqual() => BufferComparison.Vectorized(_a, _b);
}
