using System.Runtime.Versioning;
using Dedup.Core.Paths;

namespace Dedup.Core.FileSystem;

/// <summary>
/// Descriptors (<c>O_PATH</c>) of the folders whose files a scan reads, so a file is opened by a short path relative
/// to a descriptor instead of a walk of its whole path: the path walk's dentry lookups were the largest kernel cost after
/// copying bytes (<c>perf</c>: a third of a warm scan's CPU went to opening files, most of it the walk). A folder is
/// opened relative to its parent's descriptor, so its ancestors are cached first; once the cache is full, a file in a
/// folder without a descriptor is opened relative to its nearest cached ancestor (a few components, not the whole path).
/// Safe against a folder renamed or replaced meanwhile because every opened file is still checked against its scanned
/// identity, and a folder is opened with <c>O_NOFOLLOW</c> (a folder replaced by a link is reached by path instead).
/// The last check before a group is reported (<see cref="LocateAtPath"/>) goes through a descriptor only once its folder
/// was found, by full path, to be still where the report will say it is.
/// Linux only; elsewhere <see cref="Locate"/> writes the full path. A root is opened by its path and never through a folder above it, and every folder below one by its name from its parent's descriptor: a path written below such a descriptor holds only folders the scan listed, so a link on it is one put there since, and is refused when the scan does not follow links (the reader, <c>IO.FileReader</c>).
/// </summary>
internal sealed unsafe partial class FolderHandles : IDisposable
{
    /// <summary>
    /// Folders beyond this many are not given descriptors, keeping descriptor use bounded (the open-file limit bounds it
    /// further: 9,488 under a limit of 20,000). 4,096 and 16,384 measured alike while the cache was first come, first
    /// served. With the heaviest folders opened first (<see cref="OpenHeaviest"/>), more descriptors mean fewer components
    /// walked (counted on the 1 M tree: 1.52 M at 9,488, 1.19 M at 18,976); no wall-time gain was measurable here.
    /// </summary>
    private const int MaxCapacity = 16384;

    /// <summary>Most uncached ancestors opened, or climbed past, for one file; deeper chains use the full path.</summary>
    private const int MaxClimb = 32;

    /// <summary>Marks a folder that could not be opened by its parent's descriptor: not tried again.</summary>
    private const int Unopenable = -2;

    private readonly int _capacity;

    /// <param name="reserved">Descriptors the scan's own opens may hold at once (its threads times the files each keeps
    /// open, <c>IO.OpenFileSet.MaxOpen</c>), which the cache leaves room for.</param>
    /// <param name="roots">The scan's roots: opened by their paths (links followed, as the listing did), never
    /// through a folder above them, so the folders below one are reached from it one listed name at a time.</param>
    /// <param name="refuseLinks">Whether the scan does not follow links: a folder below one that could not be opened by
    /// its name (gone, or now a link) is not opened by its path either, which would follow a link swapped in above it.</param>
    /// <param name="capacity">At most this many descriptors (tests); by default <see cref="CapacityFor"/>.</param>
    public FolderHandles(long reserved = 0, IEnumerable<AbsolutePath>? roots = null, bool refuseLinks = false, int? capacity = null)
    {
        _capacity = Math.Min(capacity ?? CapacityInThisFlow.Value ?? int.MaxValue, CapacityFor(reserved));
        _fds = new FolderDescriptorTable(_capacity);
        _roots = roots is null ? null : new HashSet<AbsolutePath>(roots);

        // The cache never goes through a link by its name, even one the listing followed: such a folder is marked
        // unopenable and reached by its path, which follows it only when the scan does not refuse links.
        _policy = new TreeWalkPolicy(FollowLinks: false, RefuseSwappedLinks: refuseLinks, TreeWalkPolicy.Unlimited);
    }

    private readonly HashSet<AbsolutePath>? _roots;
    private readonly TreeWalkPolicy _policy;

    /// <summary>Tests: caps the capacity of the caches of scans started in this async flow (a scan's own constructor takes no capacity).</summary>
    internal static readonly AsyncLocal<int?> CapacityInThisFlow = new();

    /// <summary>How many folder descriptors this cache keeps at most (tests).</summary>
    internal int Capacity => _capacity;

    /// <summary>
    /// Half of what the open-file limit leaves once the scan's own opens hold their <paramref name="reserved"/> descriptors
    /// (every thread its most files open; and 256 for the walk and the runtime), at most <see cref="MaxCapacity"/>: the
    /// cache never starves the scan's own opens. Zero (no cache) under a low limit with many threads.
    /// </summary>
    internal static int CapacityFor(long reserved) => OperatingSystem.IsLinux()
        ? (int)Math.Min(MaxCapacity, Math.Max(0, (Interop.OpenFileLimit.Current - reserved - 256) / 2))
        : 0;

    // By value (the node's hash is precomputed, and equal nodes of one scan are usually the same reference): files of a
    // custom enumerator, whose folders are not shared nodes, still share their folders' descriptors.
    private readonly FolderDescriptorTable _fds;
    private int _count; // descriptors held (the table also holds folders marked unopenable)
    private volatile bool _disposed;
    private volatile bool _full;

    /// <summary>Folder descriptors held now (tests).</summary>
    internal int Count => Volatile.Read(ref _count);

    /// <summary>
    /// Writes the NUL-terminated path of the entry named <paramref name="name"/> (the kernel's bytes) in
    /// <paramref name="folder"/>, relative to the returned descriptor, or whole with <c>AT_FDCWD</c>.
    /// </summary>
    /// <param name="folder">The folder holding the entry.</param>
    /// <param name="name">The entry's name.</param>
    /// <param name="destination">Receives the path.</param>
    /// <param name="beneathRoot">Whether the descriptor returned is a root's or reached from one without links (see
    /// <see cref="FolderDescriptorTable.IsBeneathRoot"/>): a link anywhere on the path written is then none the scan
    /// listed, and may be refused (<c>openat2</c>'s <c>RESOLVE_NO_SYMLINKS</c>).</param>
    /// <returns>The descriptor to open with; <see cref="int.MinValue"/> if the path does not fit or cannot be encoded.</returns>
    public int Locate(AbsolutePath folder, ReadOnlySpan<byte> name, Span<byte> destination, out bool beneathRoot)
    {
        beneathRoot = false;
        if (OperatingSystem.IsLinux())
        {
            var fd = GetOrOpen(folder, MaxClimb, out beneathRoot);
            if (fd >= 0)
            {
                return Terminate(destination, 0, name) ? fd : int.MinValue;
            }

            // No descriptor of its own (the cache is full, or it could not be opened): the nearest ancestor that has one.
            var ancestor = folder.Parent;
            for (var climbed = 0; ancestor is not null && climbed < MaxClimb; climbed++, ancestor = ancestor.Parent)
            {
                var slot = _fds.Find(ancestor);
                fd = slot < 0 ? -1 : _fds.ValueAt(slot);
                if (fd >= 0)
                {
                    beneathRoot = _fds.IsBeneathRoot(slot);
                    var written = WriteBelow(ancestor, folder, destination);
                    return written >= 0 && Terminate(destination, written, name) ? fd : int.MinValue;
                }
            }
        }

        beneathRoot = false;
        return folder.WriteUtf8(destination, name) >= 0 ? Interop.Libc.AT_FDCWD : int.MinValue;
    }

    /// <summary>
    /// As <see cref="Locate"/>, for the last check before a report, which must see the file where the report will name
    /// it: only descriptors already cached are used (none is opened for a check), and only one whose folder still is
    /// the folder at its full path (checked once per folder, by <c>statx</c> of the path against the descriptor's
    /// identity); otherwise the full path is written. A check then looks up one name, or the few below a cached
    /// ancestor, instead of every component of the path (the whole-path checks of the reported small files were ~6 % of
    /// a warm 250k-file scan's CPU, perf).
    /// </summary>
    public int LocateAtPath(AbsolutePath folder, ReadOnlySpan<byte> name, Span<byte> destination)
    {
        if (OperatingSystem.IsLinux())
        {
            var climbed = 0;
            for (var owner = folder; owner is not null && climbed <= MaxClimb; climbed++, owner = owner.Parent)
            {
                var slot = _fds.Find(owner);
                var fd = slot < 0 ? -1 : _fds.ValueAt(slot);
                if (fd < 0)
                {
                    continue;
                }

                if (!IsAtItsPath(owner, slot, fd))
                {
                    break;
                }

                var written = WriteBelow(owner, folder, destination);
                return written >= 0 && Terminate(destination, written, name) ? fd : int.MinValue;
            }
        }

        return folder.WriteUtf8(destination, name) >= 0 ? Interop.Libc.AT_FDCWD : int.MinValue;
    }

    /// <summary>Whether the descriptor <paramref name="fd"/> of <paramref name="folder"/> is still the folder its full path leads to; asked once per folder.</summary>
    [SupportedOSPlatform("linux")]
    private bool IsAtItsPath(AbsolutePath folder, int slot, int fd)
    {
        var known = _fds.AtPath(slot);
        if (known != 0)
        {
            return known > 0;
        }

        Span<byte> path = stackalloc byte[4096];
        var atPath = folder.WriteUtf8(path) >= 0;
        if (atPath)
        {
            fixed (byte* p = path)
            {
                // The path as a report shows it, links followed as the old whole-path check followed them.
                atPath = RootedTree.IsAtPath(fd, p);
            }
        }

        return _fds.SetAtPath(slot, atPath);
    }

    /// <summary>A descriptor of <paramref name="folder"/> (tests), or -1 when it has none and none can be made.</summary>
    internal int Get(AbsolutePath folder) => OperatingSystem.IsLinux() ? Math.Max(-1, GetOrOpen(folder, MaxClimb, out _)) : -1;

    /// <summary>Closes every descriptor; called once the scan's readers have stopped.</summary>
    public void Dispose()
    {
        _disposed = true;
        foreach (var slot in _fds.Slots())
        {
            var fd = _fds.Take(slot);
            if (fd >= 0)
            {
                _ = Interop.Libc.Close(fd);
            }
        }
    }

    /// <summary>The folder's descriptor, opening it (and its uncached ancestors, up to <paramref name="budget"/> of them) while there is room.</summary>
    [SupportedOSPlatform("linux")]
    private int GetOrOpen(AbsolutePath folder, int budget, out bool beneathRoot)
    {
        beneathRoot = false;
        var found = _fds.Find(folder);
        if (found >= 0)
        {
            beneathRoot = _fds.IsBeneathRoot(found);
            return _fds.ValueAt(found);
        }

        if (_disposed || _full || budget <= 0)
        {
            return -1;
        }

        if (Volatile.Read(ref _count) >= _capacity)
        {
            _full = true;
            return -1;
        }

        // A root is opened by its path, as the listing opened it; a folder below one from its parent, by its name and
        // without following a link, so it stays beneath the root only if its parent is.
        var parent = folder.Parent;
        var isRoot = _roots?.Contains(folder) == true;
        var parentBeneath = false;
        var parentFd = parent is null || isRoot ? -1 : GetOrOpen(parent, budget - 1, out parentBeneath);
        int fd;
        if (parentFd == Unopenable && _policy.RefuseSwappedLinks)
        {
            fd = Unopenable; // its files are opened below the nearest ancestor that has a descriptor, links refused
        }
        else if (parentFd >= 0)
        {
            fd = OpenChild(parentFd, folder, out var byName);
            beneathRoot = byName && parentBeneath;
        }
        else
        {
            fd = OpenByPath(folder);
            beneathRoot = isRoot;
        }

        if (fd == Unopenable)
        {
            _ = _fds.TryAdd(folder, Unopenable, out _);
            return Unopenable;
        }

        if (fd < 0)
        {
            return -1;
        }

        var slot = _fds.TryAdd(folder, fd, out var existing, beneathRoot);
        if (slot >= 0)
        {
            Interlocked.Increment(ref _count);
            if (_disposed)
            {
                // Added while the scan was being torn down: whichever of this and Dispose takes it closes it.
                var taken = _fds.Take(slot);
                if (taken >= 0)
                {
                    _ = Interop.Libc.Close(taken);
                }

                return -1;
            }

            return fd;
        }

        _ = Interop.Libc.Close(fd);
        if (existing == FolderDescriptorTable.Closed)
        {
            _full = true; // the table refused it: as full as the cache
            beneathRoot = false;
            return existing;
        }

        // Another thread's descriptor of it, or a mark.
        var other = _fds.Find(folder);
        beneathRoot = other >= 0 && _fds.IsBeneathRoot(other);
        return existing;
    }

    /// <summary>Opens the folder by its one name relative to its parent's descriptor, not following a link there (<see cref="RootedTree"/>).</summary>
    /// <param name="parentFd">The parent's descriptor.</param>
    /// <param name="folder">The folder.</param>
    /// <param name="byName">Whether it was opened by its name (else by its path: a name that cannot be encoded).</param>
    [SupportedOSPlatform("linux")]
    private int OpenChild(int parentFd, AbsolutePath folder, out bool byName)
    {
        var fd = RootedTree.OpenChild(parentFd, folder, _policy, RootedTree.Walked, out var errno);
        byName = fd >= 0;
        return fd >= 0 ? fd : fd == RootedTree.InvalidName ? OpenByPath(folder) : Failed(errno);
    }

    /// <summary>A root, or a folder no descriptor above reaches, by its whole path: links followed, as the listing opened it.</summary>
    [SupportedOSPlatform("linux")]
    private int OpenByPath(AbsolutePath folder)
    {
        var fd = RootedTree.OpenByPath(folder, RootedTree.Walked, followLast: true, out var errno);
        return fd >= 0 ? fd : fd == RootedTree.InvalidName ? Unopenable : Failed(errno);
    }

    /// <summary>
    /// After a failed open: out of descriptors stops caching (-1); anything else (gone, a link, no access) marks the folder
    /// <see cref="Unopenable"/>, and its files are opened by a longer path, whose failure is then reported.
    /// </summary>
    private int Failed(int errno)
    {
        if (errno is Interop.Libc.EMFILE or Interop.Libc.ENFILE)
        {
            _full = true;
            return -1;
        }

        return Unopenable;
    }

    /// <summary>Writes the components from below <paramref name="ancestor"/> down to <paramref name="folder"/>, each followed by a separator.</summary>
    private static int WriteBelow(AbsolutePath ancestor, AbsolutePath folder, Span<byte> destination)
    {
        if (ReferenceEquals(folder, ancestor))
        {
            return 0;
        }

        var offset = WriteBelow(ancestor, folder.Parent!, destination);
        if (offset < 0 || !KernelNames.TryEncode(folder.Name.AsSpan(), destination[offset..], out var count) || offset + count >= destination.Length)
        {
            return -1;
        }

        destination[offset + count] = (byte)'/';
        return offset + count + 1;
    }

    private static bool Terminate(Span<byte> destination, int offset, ReadOnlySpan<byte> name)
    {
        if (name.IsEmpty || offset + name.Length >= destination.Length)
        {
            return false;
        }

        name.CopyTo(destination[offset..]);
        destination[offset + name.Length] = 0;
        return true;
    }
}
