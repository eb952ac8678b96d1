using System.Buffers;

namespace Dedup.Core.Pooling;

/// <summary>
/// A pool of byte buffers for file reads. The library uses <see cref="Shared"/>, a dedicated
/// <see cref="ArrayPool{T}"/> created with <see cref="ArrayPool{T}.Create(int, int)"/>, so that its large
/// read buffers neither crowd out nor are crowded out by <see cref="ArrayPool{T}.Shared"/> users.
/// </summary>
public abstract class BufferPool
{
    /// <summary>The largest buffer the shared pool keeps (4 MiB); larger rentals are allocated and dropped.</summary>
    public const int MaxPooledLength = 4 * 1024 * 1024;

    /// <summary>The pool the library uses by default.</summary>
    public static BufferPool Shared { get; } = new ArrayBufferPool(MaxPooledLength, maxArraysPerBucket: 64);

    /// <summary>Creates a pool backed by its own <see cref="ArrayPool{T}"/>.</summary>
    /// <param name="maxArrayLength">The largest array length kept in the pool.</param>
    /// <param name="maxArraysPerBucket">How many arrays of one size class are kept.</param>
    /// <returns>A new pool.</returns>
    public static BufferPool Create(int maxArrayLength, int maxArraysPerBucket)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxArrayLength);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxArraysPerBucket);
        return new ArrayBufferPool(maxArrayLength, maxArraysPerBucket);
    }

    /// <summary>Rents a buffer of at least <paramref name="minimumLength"/> bytes.</summary>
    /// <param name="minimumLength">The minimum length.</param>
    /// <returns>A buffer, possibly longer than asked.</returns>
    public abstract byte[] Rent(int minimumLength);

    /// <summary>Returns a buffer rented from this pool.</summary>
    /// <param name="buffer">The buffer.</param>
    public abstract void Return(byte[] buffer);

    /// <summary>
    /// Lets go of the buffers the pool keeps for reuse (they become garbage once no rental holds them); renting goes
    /// on afterwards with a fresh pool. For a host that scans now and then: a scan's read buffers otherwise stay
    /// retained until the next. The default does nothing.
    /// </summary>
    public virtual void ReleaseRetainedResources()
    {
    }

    /// <summary>Rents a buffer that is returned when the wrapper is disposed.</summary>
    /// <param name="minimumLength">The minimum length.</param>
    /// <returns>A disposable wrapper.</returns>
    public RentedBuffer RentScoped(int minimumLength) => new(this, Rent(minimumLength));
}

/// <summary>
/// A buffer rented from a <see cref="BufferPool"/>, returned on <see cref="Dispose"/>. An owner object, like
/// <see cref="IMemoryOwner{T}"/>: every reference to it is the same rental, so disposing it twice, or from two
/// places, returns the buffer once.
/// </summary>
public sealed class RentedBuffer : IDisposable
{
    private readonly BufferPool _pool;
    private byte[]? _array;

    internal RentedBuffer(BufferPool pool, byte[] array)
    {
        _pool = pool;
        _array = array;
    }

    /// <summary>The rented array (may be longer than requested); <see langword="null"/> once disposed.</summary>
    public byte[] Array => _array!;

    /// <summary>Returns the buffer to its pool; later calls do nothing.</summary>
    public void Dispose()
    {
        var array = Interlocked.Exchange(ref _array, null);
        if (array is not null)
        {
            _pool.Return(array);
        }
    }
}

internal sealed class ArrayBufferPool : BufferPool
{
    private readonly int _maxArrayLength;
    private readonly int _maxArraysPerBucket;
    private volatile ArrayPool<byte> _pool;

    public ArrayBufferPool(int maxArrayLength, int maxArraysPerBucket)
    {
        _maxArrayLength = maxArrayLength;
        _maxArraysPerBucket = maxArraysPerBucket;
        _pool = ArrayPool<byte>.Create(maxArrayLength, maxArraysPerBucket);
    }

    public override byte[] Rent(int minimumLength) => _pool.Rent(minimumLength);

    // A buffer rented before a release goes back to the new pool: same size classes, so it fits.
    public override void Return(byte[] buffer) => _pool.Return(buffer);

    // The old pool and everything it kept become garbage; renting continues from a fresh one.
    public override void ReleaseRetainedResources() => _pool = ArrayPool<byte>.Create(_maxArrayLength, _maxArraysPerBucket);
}
