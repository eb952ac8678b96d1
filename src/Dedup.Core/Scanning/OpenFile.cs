using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Scanning;

/// <summary>
/// The open file a read went through, as a read observer sees it (still open then): a check after the read can look at
/// the file through it (<see cref="FileReader.IsUnchanged(FileNode, OpenFile)"/>) instead of walking its path again.
/// </summary>
internal readonly struct OpenFile
{
    private OpenFile(int descriptor, SafeFileHandle? handle)
    {
        Descriptor = descriptor;
        Handle = handle;
    }

    /// <summary>No open file known: a check goes by the file's path.</summary>
    public static OpenFile None => new(-1, null);

    /// <summary>A bare descriptor (Linux), open while the observer runs.</summary>
    public int Descriptor { get; }

    /// <summary>A handle, open while the observer runs.</summary>
    public SafeFileHandle? Handle { get; }

    public static OpenFile Of(int descriptor) => new(descriptor, null);

    public static OpenFile Of(SafeFileHandle handle) => new(-1, handle);
}
