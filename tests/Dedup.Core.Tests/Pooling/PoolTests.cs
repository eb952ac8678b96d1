using Dedup.Core.Pooling;
using Xunit;

namespace Dedup.Core.Tests.Pooling;

/// <summary>The pools hand out clean objects, take them back, drop oversized ones, and the scoped wrappers return exactly once.</summary>
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
        default(PooledList<Marker>).Dispose();
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
        default(PooledStringBuilder).Dispose();

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
        default(RentedBuffer).Dispose();
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

    private sealed record Marker(int Value);
}
