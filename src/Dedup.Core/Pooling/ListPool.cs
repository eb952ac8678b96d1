using Microsoft.Extensions.ObjectPool;

namespace Dedup.Core.Pooling;

/// <summary>
/// A pool of <see cref="List{T}"/> instances for short-lived lists on hot paths; lists are cleared on
/// return and very large ones are dropped so the pool never pins much memory.
/// </summary>
/// <typeparam name="T">The element type.</typeparam>
public sealed class ListPool<T>
{
    /// <summary>Lists whose capacity grew beyond this are not kept.</summary>
    public const int MaxRetainedCapacity = 4096;

    private readonly ObjectPool<List<T>> _pool;

    private ListPool(int maximumRetained)
        : this(new DefaultObjectPool<List<T>>(new ListPolicy(), maximumRetained))
    {
    }

    // Internal: tests observe rentals and returns through an object pool of their own.
    internal ListPool(ObjectPool<List<T>> pool)
    {
        _pool = pool;
    }

    /// <summary>The process-wide pool (keeps up to 2 × processors lists, at least 32).</summary>
    public static ListPool<T> Shared { get; } = new(Math.Max(32, Environment.ProcessorCount * 2));

    /// <summary>Rents an empty list.</summary>
    /// <returns>An empty list.</returns>
    public List<T> Rent() => _pool.Get();

    /// <summary>Returns a list; the caller must not use it afterwards.</summary>
    /// <param name="list">The list.</param>
    public void Return(List<T> list)
    {
        ArgumentNullException.ThrowIfNull(list);
        _pool.Return(list);
    }

    /// <summary>Rents a list that goes back to the pool when the wrapper is disposed.</summary>
    /// <returns>A disposable wrapper.</returns>
    public PooledList<T> RentScoped() => new(this, Rent());

    private sealed class ListPolicy : PooledObjectPolicy<List<T>>
    {
        public override List<T> Create() => new();

        public override bool Return(List<T> obj)
        {
            if (obj.Capacity > MaxRetainedCapacity)
            {
                return false;
            }

            obj.Clear();
            return true;
        }
    }
}

/// <summary>
/// A list rented from a <see cref="ListPool{T}"/>, returned on <see cref="Dispose"/>. An owner object: every
/// reference to it is the same rental, so disposing it twice, or from two places, returns the list once.
/// </summary>
/// <typeparam name="T">The element type.</typeparam>
public sealed class PooledList<T> : IDisposable
{
    private readonly ListPool<T> _pool;
    private List<T>? _list;

    internal PooledList(ListPool<T> pool, List<T> list)
    {
        _pool = pool;
        _list = list;
    }

    /// <summary>The rented list; <see langword="null"/> once disposed.</summary>
    public List<T> List => _list!;

    /// <summary>Returns the list to its pool; later calls do nothing.</summary>
    public void Dispose()
    {
        var list = Interlocked.Exchange(ref _list, null);
        if (list is not null)
        {
            _pool.Return(list);
        }
    }
}
