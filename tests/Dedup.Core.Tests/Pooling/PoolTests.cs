using System.Text;
using Dedup.Core.Pooling;
using Microsoft.Extensions.ObjectPool;
using Xunit;

namespace Dedup.Core.Tests.Pooling;

/// <summary>The pools hand out clean objects, take them back, drop oversized ones, and the scoped owners return exactly once, however many references dispose them.</summary>
public sealed class PoolTests
{
    [Fact]
    public void A_returned_list_comes_back_empty()
    {
        // A private element type: no other code shares this pool, so reuse is observable.
        var pool = ListPool<Marker>.Shared;
        var list = pool.Rent();
        Assert.Empty(list);
        list.Add(new Marker(1));
        list.Add(new Marker(2));

        pool.Return(list);
        var again = pool.Rent();

        Assert.Same(list, again);
        Assert.Empty(again);
        pool.Return(again);
    }

    [Fact]
    public void Lists_rented_at_once_are_distinct()
    {
        var pool = ListPool<Marker>.Shared;
        var lists = Enumerable.Range(0, 10).Select(_ => pool.Rent()).ToList();

        Assert.Equal(10, lists.Distinct(ReferenceEqualityComparer.Instance).Count());
        lists.ForEach(pool.Return);
    }

    [Fact]
    public void A_list_grown_past_the_limit_is_not_kept()
    {
        var pool = ListPool<Marker>.Shared;
        var big = pool.Rent();
        big.AddRange(Enumerable.Range(0, ListPool<Marker>.MaxRetainedCapacity + 1).Select(i => new Marker(i)));

        pool.Return(big);
        var rented = Enumerable.Range(0, 64).Select(_ => pool.Rent()).ToList();

        Assert.DoesNotContain(rented, l => ReferenceEquals(l, big));
        Assert.All(rented, Assert.Empty);
        rented.ForEach(pool.Return);
    }

    [Fact]
    public void A_scoped_list_is_returned_once_on_dispose()
    {
        var pool = ListPool<Marker>.Shared;
        var scoped = pool.RentScoped();
        var list = scoped.List;
        list.Add(new Marker(3));

        scoped.Dispose();
        Assert.Null(scoped.List);
        scoped.Dispose();
        var first = pool.Rent();
        var second = pool.Rent();

        // Returned exactly once: a double return would hand the same list to two renters.
        Assert.NotSame(first, second);
        Assert.True(ReferenceEquals(first, list) || ReferenceEquals(second, list));
        Assert.Empty(list);
        pool.Return(first);
        pool.Return(second);
        Assert.Throws<ArgumentNullException>(() => pool.Return(null!));
    }

    [Fact]
    public void Builders_come_back_empty()
    {
        // The shared pool is used by every path's ToString in parallel tests, so only cleanliness is checked.
        var pool = StringBuilderPool.Shared;
        var builder = pool.Rent();
        Assert.Equal(0, builder.Length);
        builder.Append("left over");
        pool.Return(builder);

        var rented = Enumerable.Range(0, 64).Select(_ => pool.Rent()).ToList();

        Assert.All(rented, b => Assert.Equal(0, b.Length));
        rented.ForEach(pool.Return);
        Assert.Throws<ArgumentNullException>(() => pool.Return(null!));
    }

    [Fact]
    public void A_builder_grown_past_the_limit_is_not_kept()
    {
        var pool = StringBuilderPool.Shared;
        var big = pool.Rent();
        big.Append('x', 20_000);

        pool.Return(big);
        var rented = Enumerable.Range(0, 64).Select(_ => pool.Rent()).ToList();

        Assert.DoesNotContain(rented, b => ReferenceEquals(b, big));
        rented.ForEach(pool.Return);
    }

    [Fact]
    public void A_scoped_builder_is_returned_on_dispose()
    {
        // A pool of its own: the shared one is rented from by tests running in parallel.
        var pool = new StringBuilderPool();
        var scoped = pool.RentScoped();
        var builder = scoped.Builder;
        builder.Append("abc");
        Assert.Equal("abc", builder.ToString());

        scoped.Dispose();
        Assert.Null(scoped.Builder);
        scoped.Dispose();

        // Back in the pool, emptied, and once only: a second dispose must not hand the same builder out twice.
        var again = pool.Rent();
        Assert.Same(builder, again);
        Assert.Equal(0, again.Length);
        Assert.NotSame(builder, pool.Rent());
    }

    [Fact]
    public void A_buffer_is_reused_after_return()
    {
        var pool = BufferPool.Create(1024 * 1024, 4);
        var buffer = pool.Rent(1000);
        Assert.True(buffer.Length >= 1000);

        pool.Return(buffer);

        Assert.Same(buffer, pool.Rent(1000));
    }

    [Fact]
    public void A_buffer_above_the_pool_limit_is_allocated_and_dropped()
    {
        var pool = BufferPool.Create(64 * 1024, 4);
        var big = pool.Rent(100_000);
        Assert.True(big.Length >= 100_000);

        pool.Return(big);

        Assert.NotSame(big, pool.Rent(100_000));
    }

    [Fact]
    public void A_scoped_buffer_is_returned_once_on_dispose()
    {
        var pool = BufferPool.Create(1024 * 1024, 4);
        var scoped = pool.RentScoped(5000);
        var array = scoped.Array;
        Assert.True(array.Length >= 5000);

        scoped.Dispose();
        Assert.Null(scoped.Array);
        scoped.Dispose();
        var first = pool.Rent(5000);
        var second = pool.Rent(5000);

        Assert.Same(array, first);
        Assert.NotSame(first, second);
    }

    [Fact]
    public void Pool_sizes_are_validated_and_the_shared_pool_serves_its_largest_size()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => BufferPool.Create(0, 1));
        Assert.Throws<ArgumentOutOfRangeException>(() => BufferPool.Create(1024, 0));
        var largest = BufferPool.Shared.Rent(BufferPool.MaxPooledLength);
        Assert.True(largest.Length >= BufferPool.MaxPooledLength);
        BufferPool.Shared.Return(largest);
    }

    [Fact]
    public void A_scoped_buffer_disposed_through_a_copy_and_the_original_goes_back_once()
    {
        var pool = new CountingBufferPool();
        var scoped = pool.RentScoped(100);
        var copy = scoped;
        IDisposable boxed = scoped;

        copy.Dispose();
        scoped.Dispose();
        boxed.Dispose();

        Assert.Equal(1, pool.Returns);
        Assert.Null(scoped.Array);
    }

    [Fact]
    public void A_scoped_list_disposed_through_a_copy_and_the_original_goes_back_once()
    {
        var counting = new CountingObjectPool<List<Marker>>(() => []);
        var pool = new ListPool<Marker>(counting);
        var scoped = pool.RentScoped();
        var list = scoped.List;
        var copy = scoped;

        copy.Dispose();
        scoped.Dispose();

        Assert.Equal(1, counting.Gets);
        Assert.Equal([list], counting.Returned);
        Assert.Null(copy.List);
    }

    [Fact]
    public void A_scoped_builder_disposed_through_a_copy_and_the_original_goes_back_once()
    {
        var counting = new CountingObjectPool<StringBuilder>(() => new StringBuilder());
        var pool = new StringBuilderPool(counting);
        var scoped = pool.RentScoped();
        var builder = scoped.Builder;
        var copy = scoped;

        copy.Dispose();
        scoped.Dispose();

        Assert.Equal([builder], counting.Returned);
        Assert.Null(scoped.Builder);
    }

    [Fact]
    public void Disposing_one_rental_from_many_threads_at_once_returns_it_once()
    {
        var counting = new CountingObjectPool<List<Marker>>(() => []);
        var pool = new ListPool<Marker>(counting);
        for (var round = 0; round < 100; round++)
        {
            var scoped = pool.RentScoped();
            using var start = new Barrier(4);
            var threads = Enumerable.Range(0, 4).Select(_ => new Thread(() =>
            {
                start.SignalAndWait();
                scoped.Dispose();
            })).ToArray();
            Array.ForEach(threads, t => t.Start());
            Array.ForEach(threads, t => t.Join());
        }

        Assert.Equal(100, counting.Gets);
        Assert.Equal(100, counting.Returned.Count);
    }

    private sealed class CountingBufferPool : BufferPool
    {
        public int Returns { get; private set; }

        public override byte[] Rent(int minimumLength) => new byte[minimumLength];

        public override void Return(byte[] buffer) => Returns++;
    }

    private sealed class CountingObjectPool<TItem>(Func<TItem> create) : ObjectPool<TItem>
        where TItem : class
    {
        private readonly object _gate = new();

        public int Gets { get; private set; }

        public List<TItem> Returned { get; } = [];

        public override TItem Get()
        {
            lock (_gate)
            {
                Gets++;
            }

            return create();
        }

        public override void Return(TItem obj)
        {
            lock (_gate)
            {
                Returned.Add(obj);
            }
        }
    }

    private sealed record Marker(int Value);
}
