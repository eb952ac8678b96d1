using System.Security.Cryptography;
using BenchmarkDotNet.Attributes;
using Dedup.Core.Comparison.Hashing;

namespace Dedup.Benchmarks;

/// <summary>SHA-1, SHA-256, XxHash128 and XxHash3 over 4 KiB and 1 MiB, as in the seed talk.</summary>
[MemoryDiagnoser]
public class HashBenchmarks
{
    private byte[] _data = [];

    [Params(4096, 1024 * 1024)]
    public int Size { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _data = new byte[Size];
        new Random(2).NextBytes(_data);
    }

    [Benchmark(Baseline = true)]
    public byte[] Sha1() => SHA1.HashData(_data);

    [Benchmark]
    public byte[] Sha256() => SHA256.HashData(_data);

    [Benchmark]
    public UInt128 XxHash128() => System.IO.Hashing.XxHash128.HashToUInt128(_data);

    [Benchmark]
    public ulong XxHash3() => System.IO.Hashing.XxHash3.HashToUInt64(_data);
}
