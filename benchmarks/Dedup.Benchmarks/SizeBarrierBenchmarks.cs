using BenchmarkDotNet.Attributes;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Scanning;

namespace Dedup.Benchmarks;

/// <summary>
/// The size barrier on a table of a million rows whose sizes are spread like the 1 M-file benchmark tree's (log-normal,
/// ~47k distinct sizes, most shared): placing rows by counting sizes against sorting every row by size
/// (<c>maxSizesCounted: 0</c>). Time, and bytes allocated by the barrier beside the table, which is the scan's memory
/// peak (#17). `dotnet run -c Release --project benchmarks/Dedup.Benchmarks -- --filter '*SizeBarrierBenchmarks*'`.
/// </summary>
[MemoryDiagnoser]
public class SizeBarrierBenchmarks
{
    private long[] _sizes = [];
    private FileTable? _table;

    [Params(1_000_000)]
    public int Files { get; set; }

    [Params("count", "sort")]
    public string Placement { get; set; } = "count";

    [GlobalSetup]
    public void Setup()
    {
        // Log-normal sizes (median ~3 KiB), seeded: shaped like benchmarks/e2e/gen_sourcetree.py's trees.
        var random = new Random(17);
        _sizes = new long[Files];
        for (var i = 0; i < Files; i++)
        {
            var normal = Math.Sqrt(-2 * Math.Log(1 - random.NextDouble())) * Math.Cos(2 * Math.PI * random.NextDouble());
            _sizes[i] = Math.Max(1, (long)Math.Exp(8 + (1.6 * normal)));
        }
    }

    [IterationSetup]
    public void MakeTable()
    {
        _table = new FileTable();
        var writer = _table.CreateWriter();
        var folder = _table.AddFolder(AbsolutePath.Parse("/bench/root"));
        for (var i = 0; i < Files; i++)
        {
            writer.Add(folder, "f"u8, new FileRow { Identity = new FileIdentity(1, (ulong)i + 1), Length = _sizes[i], LinkCount = 1 });
        }

        writer.Complete();
    }

    [Benchmark]
    public int Split() => SizeBarrier.Split(_table!, keepSingles: false, Placement == "sort" ? 0 : null).Count;
}
