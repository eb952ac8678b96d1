using Dedup.Core.Pooling;

namespace Dedup.Core.Comparison;

/// <summary>
/// Candidate files of equal length handed to an <see cref="IComparerStrategy"/>, addressed by index.
/// Reads are positional; a file that fails (vanished, changed, unreadable) is reported as a scan error
/// and from then on every read of it returns <see langword="false"/>.
/// </summary>
public abstract class ComparisonSet
{
    /// <summary>Initializes the settings shared by all sets.</summary>
    /// <param name="hashAlgorithm">The hash to use where hashing.</param>
    /// <param name="trustHashes">Whether equal 128-bit hashes may stand for equal bytes.</param>
    /// <param name="chunkSize">The suggested read size.</param>
    /// <param name="buffers">The pool for read buffers.</param>
    protected ComparisonSet(DuplicateHashAlgorithm hashAlgorithm, bool trustHashes, int chunkSize, BufferPool buffers)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(chunkSize);
        ArgumentNullException.ThrowIfNull(buffers);
        HashAlgorithm = hashAlgorithm;
        TrustHashes = trustHashes;
        ChunkSize = chunkSize;
        Buffers = buffers;
    }

    /// <summary>Number of files in the set.</summary>
    public abstract int Count { get; }

    /// <summary>Content length of every file in the set, in bytes.</summary>
    public abstract long Length { get; }

    /// <summary>The hash algorithm the user chose.</summary>
    public DuplicateHashAlgorithm HashAlgorithm { get; }

    /// <summary>Whether equal 128-bit hashes may stand for equal content.</summary>
    public bool TrustHashes { get; }

    /// <summary>The suggested size of one read.</summary>
    public int ChunkSize { get; }

    /// <summary>Where to rent read buffers.</summary>
    public BufferPool Buffers { get; }

    /// <summary>Reads exactly <paramref name="destination"/>.Length bytes at <paramref name="offset"/>.</summary>
    /// <param name="index">The file's index.</param>
    /// <param name="offset">Offset into the file's content.</param>
    /// <param name="destination">Where to put the bytes.</param>
    /// <returns><see langword="false"/> when the file failed and must be left out.</returns>
    public abstract bool TryRead(int index, long offset, Span<byte> destination);

    /// <summary>Tells the set a file is no longer needed, so its handle can be closed early.</summary>
    /// <param name="index">The file's index.</param>
    public abstract void Release(int index);

    /// <summary>Reports files of equal content (two or more indices).</summary>
    /// <param name="indices">The files' indices.</param>
    /// <param name="verifiedByBytes"><see langword="false"/> when equality rests on hashes alone.</param>
    public abstract void AddGroup(ReadOnlySpan<int> indices, bool verifiedByBytes);

    /// <summary>Whether the scan is shown which bytes equal another file's (<see cref="Observe"/>); if not, reads show themselves.</summary>
    internal virtual bool ObservesCopies => false;

    /// <summary>
    /// As <see cref="TryRead"/>, for a built-in strategy that shows the scan the bytes itself once it compared them
    /// (<see cref="Observe"/>); a set that observes nothing reads as <see cref="TryRead"/> does.
    /// </summary>
    internal virtual bool TryReadUnobserved(int index, long offset, Span<byte> destination) => TryRead(index, offset, destination);

    /// <summary>
    /// Shows the scan the bytes a built-in strategy read by <see cref="TryReadUnobserved"/> at <paramref name="offset"/> of
    /// file <paramref name="index"/>, found equal byte for byte to those of file <paramref name="sameAs"/> there, shown
    /// just before (-1: none): a catalog scan then hashes a class of equal files' bytes once.
    /// </summary>
    internal virtual void Observe(int index, long offset, ReadOnlySpan<byte> bytes, int sameAs)
    {
    }

    /// <summary>A built-in strategy hashed file <paramref name="index"/> whole with <see cref="HashAlgorithm"/> (kept by a scan's cache).</summary>
    internal virtual void OnContentDigest(int index, Hashing.ContentHash digest)
    {
    }
}
