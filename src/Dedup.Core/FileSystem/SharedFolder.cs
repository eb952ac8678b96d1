namespace Dedup.Core.FileSystem;

/// <summary>
/// A folder's descriptor shared with the walks that step down from it, so each sub-folder is opened by one name relative
/// to it (<see cref="RootedTree.OpenChild(int, Paths.AbsolutePath, in TreeWalkPolicy, int, out int)"/>): closed when its
/// holder and every borrower are done. A walk holds at most <see cref="MaxHeld"/> (about its depth times its workers in
/// practice); beyond that sub-folders are opened by whole path. Linux only in use (it closes a descriptor), but named
/// by the shared listing code, so not marked for one platform.
/// </summary>
internal sealed class SharedFolder
{
    /// <summary>Most descriptors one walk holds this way at once.</summary>
    public const int MaxHeld = 256;

    private readonly Counter _held;
    private int _references = 1;

    private SharedFolder(int fd, Counter held)
    {
        Fd = fd;
        _held = held;
    }

    public int Fd { get; }

    /// <summary>Holds <paramref name="fd"/> for lending, or <see langword="null"/> (the caller closes it) when the walk holds <paramref name="max"/> already.</summary>
    public static SharedFolder? TryHold(int fd, Counter held, int max = MaxHeld)
    {
        if (Interlocked.Increment(ref held.Value) > max)
        {
            Interlocked.Decrement(ref held.Value);
            return null;
        }

        return new SharedFolder(fd, held);
    }

    /// <summary>A reference for one sub-folder, given back by <see cref="Release"/> once it is open (or dropped).</summary>
    public SharedFolder Lend()
    {
        Interlocked.Increment(ref _references);
        return this;
    }

    public void Release()
    {
        if (Interlocked.Decrement(ref _references) == 0)
        {
            _ = Interop.Libc.Close(Fd);
            Interlocked.Decrement(ref _held.Value);
        }
    }

    /// <summary>How many descriptors a walk holds.</summary>
    internal sealed class Counter
    {
        public int Value;
    }
}
