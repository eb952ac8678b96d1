using BenchmarkDotNet.Attributes;
using Dedup.Core.Paths;
using Dedup.Core.Pooling;

namespace Dedup.Benchmarks;

/// <summary>AbsolutePath equality vs string.Equals(OrdinalIgnoreCase); ListPool vs new List.</summary>
[MemoryDiagnoser]
public class PathBenchmarks
{
    private const string A = "/usr/share/Microsoft Visual Studio/2022/Community/Common7/Packages/00098";
    private const string B = "/usr/share/Microsoft Visual Studio/2022/Community/Common7/Packages/00099";
    private AbsolutePath _pathA = null!;
    private AbsolutePath _pathB = null!;
    private string _stringA = null!;
    private string _stringB = null!;

    [GlobalSetup]
    public void Setup()
    {
        var parent = AbsolutePath.Parse("/usr/share/Microsoft Visual Studio/2022/Community/Common7/Packages");
        _pathA = parent.Child("00098");
        _pathB = parent.Child("00099");
        _stringA = new string(A.AsSpan());
        _stringB = new string(B.AsSpan());
    }

    [Benchmark(Baseline = true)]
    public bool StringEqualsIgnoreCase() => string.Equals(_stringA, _stringB, StringComparison.OrdinalIgnoreCase);

    [Benchmark]
    public bool AbsolutePathEquals() => _pathA.Equals(_pathB);

    [Benchmark]
    public bool AbsolutePathEqualsIgnoreCase() => _pathA.EqualsIgnoreCase(_pathB);

    [Benchmark]
    public int NewList()
    {
        var list = new List<string>();
        for (var i = 0; i < 6; i++)
        {
            list.Add(A);
        }

        return list.Count;
    }

    [Benchmark]
    public int ListPoolRent()
    {
        using var rented = ListPool<string>.Shared.RentScoped();
        for (var i = 0; i < 6; i++)
        {
            rented.List.Add(A);
        }

        return rented.List.Count;
    }
}
