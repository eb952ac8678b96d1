namespace Dedup.Core.IO;

/// <summary>Sees the bytes of a scan's content reads (not probes) as they are read, so they need not be read again.</summary>
internal interface IReadObserver
{
    /// <summary>
    /// Called after <paramref name="bytes"/> were read at content offset <paramref name="offset"/> of <paramref name="node"/>
    /// through <paramref name="file"/>, which is still open (a check can go through it, <see cref="FileReader.IsUnchanged(in OpenedFile)"/>,
    /// instead of walking the file's path again); may run on any of the scan's threads.
    /// </summary>
    void OnRead(FileNode node, long offset, ReadOnlySpan<byte> bytes, OpenedFile file);
}
