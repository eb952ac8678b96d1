using Dedup.Core.Comparison;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Topology;

namespace Dedup.Core.Tests.Topology;

/// <summary>
/// A device's reader limit holds for the whole scan, not per candidate set: comparisons running at once on
/// one device, counted by a strategy that wraps the built-in one, never exceed it.
/// </summary>
[Collection(Name)] // it raises the thread pool's minimum: no other test runs meanwhile
public sealed class ReaderLimitTests
{
    public const string Name = "ThreadPoolMinimum";

    [Theory]
    [InlineData(DriveKind.Network, 4)]
    [InlineData(DriveKind.Hdd, 1)]
    [InlineData(DriveKind.Ssd, 16)]
    public async Task Comparisons_on_one_device_stay_within_its_reader_limit(DriveKind kind, int limit)
    {
        // 8 sizes × 6 contents × 2 copies: 8 sets whose probes leave 6 buckets each, all on one device.
        using var tree = new TempTree();
        for (var size = 0; size < 8; size++)
        {
            for (var content = 0; content < 6; content++)
            {
                var bytes = TempTree.RandomBytes(100_000 + size, (size * 10) + content);
                tree.Write($"a/{size}-{content}.bin", bytes);
                tree.Write($"b/{size}-{content}.bin", bytes);
            }
        }

        var counting = new CountingStrategy(ComparerStrategies.Bytewise);
        var finder = new DuplicateFinderBuilder()
            .AddRoot(tree.Root)
            .WithDriveKind(tree.Root, kind)
            .WithMaxDegreeOfParallelism(16)
            .UseComparer(counting)
            .Build();

        // Enough pool threads that any fan-out the scan allows really happens (2 cores here).
        ThreadPool.GetMinThreads(out var workers, out var io);
        ThreadPool.SetMinThreads(Math.Max(workers, 64), io);
        List<DuplicateGroup> groups;
        Reporting.ScanSummary summary;
        try
        {
            (groups, summary) = await Scan.RunAsync(finder);
        }
        finally
        {
            ThreadPool.SetMinThreads(workers, io);
        }

        Assert.Empty(summary.Errors);
        Assert.Equal(48, groups.Count);
        Assert.Equal(48, counting.Calls);
        Assert.True(counting.MaxConcurrent <= limit, $"{counting.MaxConcurrent} comparisons ran at once; the limit is {limit}");
        if (limit > 1)
        {
            Assert.True(counting.MaxConcurrent >= 2, "the sets were never compared in parallel");
        }
    }

    private sealed class CountingStrategy(IComparerStrategy inner) : IComparerStrategy
    {
        private int _running;
        private int _max;
        private int _calls;

        public string Name => "counting";

        public int MaxConcurrent => Volatile.Read(ref _max);

        public int Calls => Volatile.Read(ref _calls);

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default)
        {
            Interlocked.Increment(ref _calls);
            var now = Interlocked.Increment(ref _running);
            int seen;
            while (now > (seen = Volatile.Read(ref _max)) && Interlocked.CompareExchange(ref _max, now, seen) != seen)
            {
            }

            try
            {
                Thread.Sleep(30); // long enough for overlapping comparisons to be seen
                inner.Partition(set, cancellationToken);
            }
            finally
            {
                Interlocked.Decrement(ref _running);
            }
        }
    }
}

/// <summary>Tests that change process-wide thread-pool settings run alone.</summary>
[CollectionDefinition(ReaderLimitTests.Name, DisableParallelization = true)]
public sealed class ThreadPoolMinimumCollection
{
}
