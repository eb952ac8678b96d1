using BenchmarkDotNet.Attributes;
using Dedup.Core.Comparison;
using Dedup.Core.Pooling;

namespace Dedup.Benchmarks;

/// <summary>
/// The comparer strategies on in-memory sets (no I/O: the read is a copy, as from the page cache): eight identical
/// files (#14's case: hybrid's 4–64-file branch against vectorized), and eight files in three classes that split
/// halfway through.
/// </summary>
[MemoryDiagnoser]
public class StrategyBenchmarks
{
    private byte[][] _files = [];

    [Params("identical8", "split3of8")]
    public string Set { get; set; } = "identical8";

    [Params("hybrid", "vectorized", "hash")]
    public string Strategy { get; set; } = "hybrid";

    [GlobalSetup]
    public void Setup()
    {
        const int length = 16 * 1024 * 1024;
        var first = new byte[length];
        new Random(3).NextBytes(first);
        _files = new byte[8][];
        for (var i = 0; i < _files.Length; i++)
        {
            _files[i] = (byte[])first.Clone();
            if (Set == "split3of8")
            {
                // From the middle on, every 4 KiB page of classes 1 and 2 differs in its last byte.
                for (var offset = length / 2; offset < length; offset += 4096)
                {
                    _files[i][offset + 4095] ^= (byte)(i % 3);
                }
            }
        }
    }

    [Benchmark]
    public int Partition()
    {
        var set = new InMemorySet(_files);
        ComparerStrategies.FromName(Strategy).Partition(set);
        return set.Groups;
    }

    private sealed class InMemorySet(byte[][] files) : ComparisonSet(DuplicateHashAlgorithm.XxHash128, trustHashes: false, chunkSize: 128 * 1024, BufferPool.Shared)
    {
        public int Groups { get; private set; }

        public override int Count => files.Length;

        public override long Length => files[0].Length;

        public override bool TryRead(int index, long offset, Span<byte> destination)
        {
            files[index].AsSpan((int)offset, destination.Length).CopyTo(destination);
            return true;
        }

        public override void Release(int index)
        {
        }

        public override void AddGroup(ReadOnlySpan<int> indices, bool verifiedByBytes) => Groups++;
    }
}
