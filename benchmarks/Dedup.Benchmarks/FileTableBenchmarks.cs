using BenchmarkDotNet.Attributes;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Scanning;

namespace Dedup.Benchmarks;

/// <summary>
/// What one enumerated file costs (#17), allocated bytes per file from [MemoryDiagnoser] divided by <see cref="Files"/>:
/// the compact table (a row, the name's bytes, the size barrier's sort) against the object-per-file form the scan used
/// before (a <see cref="ScannedFile"/>, a path node and a name string per file, grouped in a dictionary of lists).
/// `dotnet run -c Release --project benchmarks/Dedup.Benchmarks -- --filter '*FileTableBenchmarks*'`.
/// </summary>
[MemoryDiagnoser]
public class FileTableBenchmarks
{
    private const int FilesPerFolder = 8;
    private byte[][] _names = [];
    private AbsolutePath[] _folders = [];

    [Params(100_000)]
    public int Files { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        // Names like a source tree's (17.8 bytes on average in the 1 M-file benchmark tree).
        _names = Enumerable.Range(0, Files).Select(i => System.Text.Encoding.UTF8.GetBytes($"module_{i % 5000}_file{i}.js")).ToArray();
        var root = AbsolutePath.Parse("/bench/root");
        _folders = Enumerable.Range(0, (Files / FilesPerFolder) + 1).Select(i => root.Child($"folder{i}")).ToArray();
    }

    private static long SizeOf(int i) => 100 + ((i * 7919L) % (Math.Max(1, i / 4) + 1));

    [Benchmark(Baseline = true, Description = "object per file (before #17)")]
    public int ObjectPerFile()
    {
        var names = new NameTable();
        var bySize = new Dictionary<long, List<ScannedFile>>();
        for (var i = 0; i < Files; i++)
        {
            var name = System.Text.Encoding.UTF8.GetString(_names[i]);
            var path = _folders[i / FilesPerFolder].ChildFile(name.AsSpan(), names);
            var file = new ScannedFile(path, SizeOf(i), new FileIdentity(1, (ulong)i + 1), 1, DateTime.UnixEpoch);
            if (!bySize.TryGetValue(file.Length, out var list))
            {
                bySize[file.Length] = list = new List<ScannedFile>(2);
            }

            list.Add(file);
        }

        return bySize.Count;
    }

    [Benchmark(Description = "file table + size barrier")]
    public int Table()
    {
        var table = new FileTable();
        var writer = table.CreateWriter();
        var folder = -1;
        for (var i = 0; i < Files; i++)
        {
            if (i % FilesPerFolder == 0)
            {
                folder = table.AddFolder(_folders[i / FilesPerFolder]);
            }

            writer.Add(folder, _names[i], new FileRow { Identity = new FileIdentity(1, (ulong)i + 1), Length = SizeOf(i), LinkCount = 1 });
        }

        writer.Complete();
        return SizeBarrier.Split(table, keepSingles: false).Count;
    }
}
