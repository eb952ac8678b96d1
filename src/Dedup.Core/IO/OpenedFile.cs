using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.IO;

/// <summary>
/// A file the <see cref="FileReader"/> opened (or was handed), with the node it was opened for: every read, hint and
/// change check of a scan goes through one. On Linux a bare descriptor (no finalizable <see cref="SafeFileHandle"/>
/// is made per candidate file: opening, reading and closing most files is the scan's hot path); elsewhere a
/// <see cref="SafeFileHandle"/>. A value with one owner at a time: whoever holds it closes it once
/// (<see cref="Close"/>), or hands it on and forgets its copy (<see cref="OpenFileSet.Take"/>), so no count of
/// references is needed.
/// </summary>
internal readonly struct OpenedFile
{
    // The descriptor plus one, so that default(OpenedFile) (an empty slot of an array) is no open file.
    private readonly int _descriptorPlusOne;

    private OpenedFile(FileNode? node, int descriptor, SafeFileHandle? handle)
    {
        Node = node;
        _descriptorPlusOne = descriptor + 1;
        Handle = handle;
    }

    /// <summary>No open file: a check goes by the file's path.</summary>
    public static OpenedFile None => new(null, -1, null);

    /// <summary>The file it was opened for: whose identity, size and time it was checked against.</summary>
    public FileNode? Node { get; }

    /// <summary>Whether a file is open (a handle handed in counts while it is not closed).</summary>
    public bool IsOpen => Handle is null ? _descriptorPlusOne > 0 : !Handle.IsClosed;

    /// <summary>The descriptor reads go through on Linux (a handle's own while it is open); -1 for none.</summary>
    public int Descriptor => _descriptorPlusOne - 1;

    /// <summary>The handle, where the file was opened as one (not Linux) or handed in as one; else <see langword="null"/>.</summary>
    public SafeFileHandle? Handle { get; }

    /// <summary>A descriptor the reader opened (Linux), now owned by the result.</summary>
    public static OpenedFile Of(FileNode node, int descriptor) => new(node, descriptor, null);

    /// <summary>A handle, read through its descriptor on Linux; <see cref="Close"/> disposes it.</summary>
    public static OpenedFile Of(FileNode? node, SafeFileHandle handle) =>
        // Stryker disable once Conditional,Unary : the -1 branch is taken off Linux only
        new(node, OperatingSystem.IsLinux() ? (int)handle.DangerousGetHandle() : -1, handle);

    /// <summary>Closes the file, if open. Only its owner calls this, once.</summary>
    public void Close()
    {
        if (Handle is not null)
        {
            Handle.Dispose();
        }
        // Stryker disable once Equality,Logical : without it the call is close(-1), which fails with EBADF and closes nothing
        else if (_descriptorPlusOne > 0 && OperatingSystem.IsLinux())
        {
            _ = Interop.Libc.Close(Descriptor);
        }
    }
}
