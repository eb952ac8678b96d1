namespace Dedup.Core.IO;

/// <summary>Sees the bytes of a scan's content reads (not probes) as they are read, so they need not be read again.</summary>
internal interface IReadObserver
{
    /// <summary>
    /// Whether it is shown which bytes the comparer found equal to another file's (<c>sameAs</c>): the reads of a set are
    /// then shown once the comparer settled them, not as each ends (the files still open). An observer that hashes
    /// content takes a copy's digest from the file it equals instead of hashing the same bytes again.
    /// </summary>
    bool TakesCopies { get; }

    /// <summary>
    /// Called after <paramref name="bytes"/> were read at content offset <paramref name="offset"/> of <paramref name="node"/>
    /// through <paramref name="file"/>, which is still open (a check can go through it, <see cref="FileReader.IsUnchanged(in OpenedFile)"/>,
    /// instead of walking the file's path again); may run on any of the scan's threads.
    /// </summary>
    /// <param name="node">The file read.</param>
    /// <param name="offset">Where the bytes start in its content.</param>
    /// <param name="bytes">The bytes read.</param>
    /// <param name="file">The open file they were read through.</param>
    /// <param name="sameAs">
    /// A file whose bytes at this offset the comparer found equal to these, byte for byte, and showed this observer
    /// just before on this thread (a class of equal files' first: <c>LockstepPartitioner</c>); <see langword="null"/>
    /// when none was. A hint: the bytes are given all the same.
    /// </param>
    void OnRead(FileNode node, long offset, ReadOnlySpan<byte> bytes, OpenedFile file, FileNode? sameAs);
}
