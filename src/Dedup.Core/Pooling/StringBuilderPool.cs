using System.Text;
using Microsoft.Extensions.ObjectPool;

namespace Dedup.Core.Pooling;

/// <summary>A pool of <see cref="StringBuilder"/> instances, used to build paths and report lines.</summary>
public sealed class StringBuilderPool
{
    private readonly ObjectPool<StringBuilder> _pool;

    // Internal, not private: tests use a pool of their own, which parallel tests cannot rent from.
    internal StringBuilderPool()
        : this(new DefaultObjectPoolProvider { MaximumRetained = Math.Max(32, Environment.ProcessorCount * 2) }
            .CreateStringBuilderPool(initialCapacity: 256, maximumRetainedCapacity: 16 * 1024))
    {
    }

    // Internal: tests observe rentals and returns through an object pool of their own.
    internal StringBuilderPool(ObjectPool<StringBuilder> pool)
    {
        _pool = pool;
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

    /// <summary>Rents a builder for one method without allocating an owner.</summary>
    internal StringBuilderScope RentScope() => new(this);
}

/// <summary>
/// A builder rented from a <see cref="StringBuilderPool"/>, returned on <see cref="Dispose"/>. An owner object:
/// every reference to it is the same rental, so disposing it twice, or from two places, returns the builder once.
/// </summary>
public sealed class PooledStringBuilder : IDisposable
{
    private readonly StringBuilderPool _pool;
    private StringBuilder? _builder;

    internal PooledStringBuilder(StringBuilderPool pool, StringBuilder builder)
    {
        _pool = pool;
        _builder = builder;
    }

    /// <summary>The rented builder; <see langword="null"/> once disposed.</summary>
    public StringBuilder Builder => _builder!;

    /// <summary>Returns the builder to its pool; later calls do nothing.</summary>
    public void Dispose()
    {
        var builder = Interlocked.Exchange(ref _builder, null);
        if (builder is not null)
        {
            _pool.Return(builder);
        }
    }
}

/// <summary>
/// A builder rented for one method, without allocating an owner (the library's hot paths, such as
/// <see cref="Paths.AbsolutePath.ToString"/>). A <see langword="ref"/> struct cannot be boxed or stored, so it
/// lives in one stack frame; dispose it once, with <see langword="using"/>.
/// </summary>
internal ref struct StringBuilderScope
{
    private readonly StringBuilderPool _pool;

    public StringBuilderScope(StringBuilderPool pool)
    {
        _pool = pool;
        Builder = pool.Rent();
    }

    public StringBuilder Builder { get; private set; }

    public void Dispose()
    {
        var builder = Builder;
        if (builder is not null)
        {
            Builder = null!;
            _pool.Return(builder);
        }
    }
}
