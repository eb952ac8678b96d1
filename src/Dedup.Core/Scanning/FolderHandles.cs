using System.Collections.Concurrent;
using Dedup.Core.Paths;

namespace Dedup.Core.Scanning;

/// <summary>
/// Descriptors (<c>O_PATH</c>) of the folders whose files a scan reads, so each file is opened with one path
/// component relative to its folder instead of a walk of its whole path: the path walk's dentry lookups were
/// the largest kernel cost after copying bytes (<c>perf</c>, 60,000-file tree). Safe against a folder renamed or
/// replaced meanwhile because every opened file is still checked against its scanned identity.
/// Linux only; elsewhere <see cref="Get"/> always answers -1 (open by full path).
/// </summary>
internal sealed unsafe class FolderHandles : IDisposable
{
    /// <summary>Folders beyond this many are opened by full path, keeping descriptor use bounded.</summary>
    private const int MaxCapacity = 4096;

    /// <summary>
    /// At most a quarter of the open-file limit, so the cache never starves the scan's own opens (up to 96 per
    /// comparison set) or the runtime; read once, after the runtime has raised the soft limit.
    /// </summary>
    private static readonly int s_capacity = ComputeCapacity();

    /// <summary>How many folder descriptors one scan keeps at most (tests).</summary>
    internal static int Capacity => s_capacity;


    private readonly ConcurrentDictionary<AbsolutePath, int> _fds = new(ReferenceEqualityComparer.Instance);
    private int _count; // not _fds.Count: that takes every lock of the dictionary, and was a quarter of a warm scan's CPU (perf)
    private volatile bool _disposed;
    private volatile bool _full;

    /// <summary>A descriptor of <paramref name="folder"/>, or -1 to open by full path.</summary>
    public int Get(AbsolutePath? folder)
    {
        if (folder is null || !OperatingSystem.IsLinux())
        {
            return -1;
        }

        if (_fds.TryGetValue(folder, out var fd))
        {
            return fd;
        }

        if (_disposed || _full)
        {
            return -1;
        }

        if (Volatile.Read(ref _count) >= s_capacity)
        {
            _full = true;
            return -1;
        }

        Span<byte> path = stackalloc byte[4096];
        if (folder.WriteUtf8(path) < 0)
        {
            return -1;
        }

        fixed (byte* p = path)
        {
            fd = Interop.Libc.OpenAt(Interop.Libc.AT_FDCWD, p, Interop.Libc.O_PATH | Interop.Libc.O_DIRECTORY | Interop.Libc.O_CLOEXEC, 0);
        }

        if (fd < 0)
        {
            var errno = System.Runtime.InteropServices.Marshal.GetLastPInvokeError();
            _full |= errno is Interop.Libc.EMFILE or Interop.Libc.ENFILE; // out of descriptors: stop caching
            return -1; // the full-path open that follows reports the real error
        }

        if (_fds.TryAdd(folder, fd))
        {
            Interlocked.Increment(ref _count);
            if (_disposed && _fds.TryRemove(folder, out _))
            {
                _ = Interop.Libc.Close(fd); // added while the scan was being torn down
                return -1;
            }

            return fd;
        }

        _ = Interop.Libc.Close(fd);
        return _fds.TryGetValue(folder, out var other) ? other : -1;
    }

    /// <summary>Closes every descriptor; called once the scan's readers have stopped.</summary>
    public void Dispose()
    {
        _disposed = true;
        foreach (var key in _fds.Keys)
        {
            if (_fds.TryRemove(key, out var fd))
            {
                _ = Interop.Libc.Close(fd);
            }
        }
    }

    private static int ComputeCapacity()
    {
        if (!OperatingSystem.IsLinux())
        {
            return 0;
        }

        Interop.RLimit limit;
        if (Interop.Libc.GetRLimit(Interop.Libc.RLIMIT_NOFILE, &limit) != 0)
        {
            return 64;
        }

        return (int)Math.Min(MaxCapacity, limit.Current / 4);
    }
}
