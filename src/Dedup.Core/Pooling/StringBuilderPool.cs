using System.Text;
using Microsoft.Extensions.ObjectPool;

namespace Dedup.Core.Pooling;

/// <summary>A pool of <see cref="StringBuilder"/> instances, used to build paths and report lines.</summary>
public sealed class StringBuilderPool
{
    private readonly ObjectPool<StringBuilder> _pool;

    // Internal, not private: tests use a pool of their own, which parallel tests cannot rent from.
    internal StringBuilderPool()
    {
        _pool = new DefaultObjectPoolProvider { MaximumRetained = Math.Max(32, Environment.ProcessorCount * 2) }
            .CreateStringBuilderPool(initialCapacity: 256, maximumRetainedCapacity: 16 * 1024);
    }

    /// <summary>The process-wide pool.</summary>
    public static StringBuilderPool Shared { get; } = new();

    /// <summary>Rents an empty builder.</summary>
    /// <returns>An empty builder.</returns>
    public StringBuilder Rent() => _pool.Get();

    /// <summary>Returns a builder; the caller must not use it afterwards.</summary>
    /// <param name="builder">The builder.</param>
    public void Return(StringBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        _pool.Return(builder);
    }

    /// <summary>Rents a builder that goes back to the pool when the wrapper is disposed.</summary>
    /// <returns>A disposable wrapper.</returns>
    public PooledStringBuilder RentScoped() => new(this, Rent());
}

/// <summary>A builder rented from a <see cref="StringBuilderPool"/>, returned on <see cref="Dispose"/>.</summary>
public struct PooledStringBuilder : IDisposable
{
    private readonly StringBuilderPool? _pool;

    internal PooledStringBuilder(StringBuilderPool pool, StringBuilder builder)
    {
        _pool = pool;
        Builder = builder;
    }

    /// <summary>The rented builder.</summary>
    public StringBuilder Builder { get; private set; }

    /// <summary>Returns the builder to its pool.</summary>
    public void Dispose()
    {
        var builder = Builder;
        if (builder is not null && _pool is not null)
        {
            Builder = null!;
            _pool.Return(builder);
        }
    }
}
