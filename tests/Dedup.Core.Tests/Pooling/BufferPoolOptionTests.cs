using Dedup.Core.Pooling;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Pooling;

/// <summary>A host's own buffer pool: every read of the scan rents from it, and it can let go of what it retains.</summary>
public sealed class BufferPoolOptionTests
{
    [Fact]
    public async Task A_scan_reads_through_the_pool_given_to_the_builder()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(200_000, 81);
        tree.Write("a.bin", content);
        tree.Write("b.bin", content);
        var pool = new CountingPool();

        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(tree.Root).UseBufferPool(pool));

        Assert.Single(groups);
        Assert.True(pool.Rented > 0, "no buffer was rented from the given pool");
        Assert.Equal(pool.Rented, pool.Returned);
    }

    [Fact]
    public void Released_buffers_are_not_handed_out_again()
    {
        var pool = BufferPool.Create(1 << 20, maxArraysPerBucket: 4);
        var first = pool.Rent(1 << 20);
        pool.Return(first);
        Assert.Same(first, pool.Rent(1 << 20)); // retained and reused
        pool.Return(first);

        pool.ReleaseRetainedResources();
        var after = pool.Rent(1 << 20);

        Assert.NotSame(first, after);
        pool.Return(after);
    }

    [Fact]
    public void A_pool_needs_positive_limits()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => BufferPool.Create(0, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => BufferPool.Create(1024, 0));
    }

    [Fact]
    public void The_builder_refuses_a_null_pool() =>
        Assert.Throws<ArgumentNullException>(() => new DuplicateFinderBuilder().UseBufferPool(null!));

    private sealed class CountingPool : BufferPool
    {
        private readonly BufferPool _inner = Create(4 << 20, 8);
        private int _rented;
        private int _returned;

        public int Rented => Volatile.Read(ref _rented);

        public int Returned => Volatile.Read(ref _returned);

        public override byte[] Rent(int minimumLength)
        {
            Interlocked.Increment(ref _rented);
            return _inner.Rent(minimumLength);
        }

        public override void Return(byte[] buffer)
        {
            Interlocked.Increment(ref _returned);
            _inner.Return(buffer);
        }
    }
}
