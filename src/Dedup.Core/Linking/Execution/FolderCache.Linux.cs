using System.Runtime.Versioning;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Paths;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Linking.Execution;

/// <summary>
/// The folders one run of a plan has opened below its roots (<see cref="FolderHandle.TryOpenBeneath"/>'s walk, one
/// name at a time with <c>O_NOFOLLOW</c>), kept for the actions after: a group's kept folder is opened once for all its
/// duplicates, and a folder is opened from its nearest open ancestor rather than from the root. Holding a folder's
/// descriptor means, as for <see cref="RootHandles"/>, that a folder renamed or swapped later in the run changes
/// nothing: later actions work in the folder that was checked when it was opened, and every file step is still
/// checked by identity (device, inode, size, times) relative to it. At most <see cref="Capacity"/> folders stay open;
/// the least recently used one not in use by an action is closed first. The kept file of the last action is held open
/// too, for the next actions of its group (<see cref="LinkContext.OpenKept"/> checks it again for each).
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class FolderCache(RootHandles roots) : IDisposable
{
    /// <summary>Folders kept open at once (each an <c>O_PATH</c> descriptor).</summary>
    internal const int Capacity = 64;

    private readonly Dictionary<AbsolutePath, LinkedListNode<Entry>> _open = [];
    private readonly LinkedList<Entry> _recent = []; // most recently used first
    private (DuplicateFile Kept, SafeFileHandle Handle)? _kept;

    /// <summary>Folders open now (for tests).</summary>
    internal int Count => _open.Count;

    /// <summary>
    /// The folder <paramref name="folder"/>, opened from the root of <paramref name="scanRoots"/> holding it as
    /// <see cref="FolderHandle.TryOpenBeneath"/> opens it, or <see langword="null"/> with the reason. The handle stays
    /// the cache's: give it back with <see cref="Release"/> when the action is over, never dispose it.
    /// </summary>
    public FolderHandle? Lease(IReadOnlyList<ScanRoot> scanRoots, AbsolutePath folder, out string problem)
    {
        var root = ScanRoot.Holding(scanRoots, folder);
        if (root is null)
        {
            // The caller leases only folders under a folder root (a file root's folder is its action's own).
            problem = "is not under any scanned root";
            return null;
        }

        if (folder.Depth == root.Path.Depth)
        {
            // The root itself: the run's shared root handle, which stays open until the run ends.
            return roots.Get(root, out problem);
        }

        if (FindStill(root, folder) is { } known)
        {
            known.Value.Leases++;
            problem = string.Empty;
            return known.Value.Handle;
        }

        // The nearest open ancestor below the root, else the root: the walk goes on from there, one name at a time.
        var start = folder.Parent;
        LinkedListNode<Entry>? ancestor = null;
        while (start is not null && start.Depth > root.Path.Depth && (ancestor = FindStill(root, start)) is null)
        {
            start = start.Parent;
        }

        problem = string.Empty;
        var from = ancestor?.Value.Handle ?? roots.Get(root, out problem);
        if (from is null)
        {
            return null;
        }

        var below = new List<AbsolutePath>();
        for (var node = folder; node is not null && node.Depth > (ancestor?.Value.Path.Depth ?? root.Path.Depth); node = node.Parent)
        {
            below.Add(node);
        }

        // The walk's own handles are leased while it goes on, so that adding one never closes the one it starts from.
        if (ancestor is not null)
        {
            ancestor.Value.Leases++;
        }

        var leased = ancestor;
        try
        {
            for (var i = below.Count - 1; i >= 0; i--)
            {
                var next = from.TryOpenChild(below[i].Name, out var childProblem);
                if (next is null)
                {
                    var rootPath = root.Path.ToString();
                    var names = new List<string>();
                    for (var node = below[i]; node.Depth > root.Path.Depth; node = node.Parent!)
                    {
                        names.Add(node.Name);
                    }

                    names.Reverse();
                    problem = $"{PathText.Escape(System.IO.Path.Join(rootPath, string.Join('/', names)))}: {childProblem}";
                    return null;
                }

                var added = Add(below[i], next);
                added.Value.Leases++;
                if (leased is not null)
                {
                    leased.Value.Leases--;
                }

                leased = added;
                from = next;
            }

            problem = string.Empty;
            var result = leased!;
            leased = null; // the caller's lease now
            return result.Value.Handle;
        }
        finally
        {
            if (leased is not null)
            {
                leased.Value.Leases--;
            }
        }
    }

    /// <summary>Gives back a handle <see cref="Lease"/> returned (a root's handle included: nothing to do for it).</summary>
    public void Release(FolderHandle handle)
    {
        foreach (var entry in _recent)
        {
            if (ReferenceEquals(entry.Handle, handle))
            {
                entry.Leases--;
                return;
            }
        }
    }

    /// <summary>The kept file <paramref name="kept"/> as the last action opened it, when it is still open; otherwise <see langword="null"/>.</summary>
    public SafeFileHandle? HeldKept(DuplicateFile kept) =>
        _kept is { } held && ReferenceEquals(held.Kept, kept) && !held.Handle.IsClosed ? held.Handle : null;

    /// <summary>Holds <paramref name="handle"/> as the open kept file; the one held before, if another, is closed.</summary>
    public void HoldKept(DuplicateFile kept, SafeFileHandle handle)
    {
        if (_kept is { } held && !ReferenceEquals(held.Handle, handle))
        {
            held.Handle.Dispose();
        }

        _kept = (kept, handle);
    }

    public void Dispose()
    {
        _kept?.Handle.Dispose();
        _kept = null;
        foreach (var entry in _recent)
        {
            entry.Handle.Dispose();
        }

        _recent.Clear();
        _open.Clear();
    }

    /// <summary>
    /// The open folder <paramref name="folder"/>, only while a walk from <paramref name="root"/> through no link still
    /// reaches that very folder: one renamed away (out of the roots, or under a protected folder) since it was opened is
    /// dropped, and the caller walks again from the root as an action without the cache would.
    /// </summary>
    private LinkedListNode<Entry>? FindStill(ScanRoot root, AbsolutePath folder)
    {
        if (Find(folder) is not { } node)
        {
            return null;
        }

        if (StillBeneath(root, node.Value))
        {
            return node;
        }

        // Stale: no later lookup finds it; closed now unless an action still holds it (then when the run ends).
        _open.Remove(folder);
        if (node.Value.Leases == 0)
        {
            node.Value.Handle.Dispose();
            _recent.Remove(node);
        }

        return null;
    }

    /// <summary>Whether the path of <paramref name="entry"/> below <paramref name="root"/>, opened now from the root's descriptor with no link on the way, is the folder the entry holds open.</summary>
    private unsafe bool StillBeneath(ScanRoot root, Entry entry)
    {
        var from = roots.Get(root, out _);
        var rootText = root.Path.ToString();
        var relative = entry.Path.ToString().AsSpan(rootText.Length).TrimStart('/');
        Span<byte> bytes = stackalloc byte[RootedTree.PathMax + 1];
        if (from is null || relative.IsEmpty || !KernelNameCodec.TryEncode(relative, bytes[..^1], out var count))
        {
            return false;
        }

        bytes[count] = 0;
        int fd;
        fixed (byte* path = bytes)
        {
            fd = RootedTree.OpenBeneath(from.Fd, path, RootedTree.Walked | Libc.O_DIRECTORY | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, noLinks: true);
        }

        if (fd < 0)
        {
            return false;
        }

        try
        {
            return Libc.FStat(fd, out var now) == 0 && RootedTree.IsFile(now, entry.Identity.Device, entry.Identity.Inode);
        }
        finally
        {
            _ = Libc.Close(fd);
        }
    }

    private LinkedListNode<Entry>? Find(AbsolutePath folder)
    {
        if (!_open.TryGetValue(folder, out var node))
        {
            return null;
        }

        _recent.Remove(node);
        _recent.AddFirst(node);
        return node;
    }

    private LinkedListNode<Entry> Add(AbsolutePath folder, FolderHandle handle)
    {
        // Over capacity: close the least recently used folders no action is using.
        for (var node = _recent.Last; node is not null && _open.Count >= Capacity;)
        {
            var previous = node.Previous;
            if (node.Value.Leases == 0)
            {
                node.Value.Handle.Dispose();
                if (_open.TryGetValue(node.Value.Path, out var listed) && listed == node)
                {
                    _open.Remove(node.Value.Path); // not a newer entry for the same path (a stale one was replaced)
                }

                _recent.Remove(node);
            }

            node = previous;
        }

        // Its identity now, once: every later reuse compares the folder its path leads to with it (StillBeneath).
        var identity = Libc.FStat(handle.Fd, out var status) == 0 ? (status.Device, status.Ino) : (0UL, 0UL);
        var added = _recent.AddFirst(new Entry(folder, handle, identity));
        _open[folder] = added;
        return added;
    }

    private sealed class Entry(AbsolutePath path, FolderHandle handle, (ulong Device, ulong Inode) identity)
    {
        public AbsolutePath Path { get; } = path;

        /// <summary>The folder's (device, inode) when it was opened; (0, 0) when that could not be read, which no reuse matches.</summary>
        public (ulong Device, ulong Inode) Identity { get; } = identity;

        public FolderHandle Handle { get; } = handle;

        /// <summary>Actions (or the walk) using the handle now: it is not closed while any is.</summary>
        public int Leases { get; set; }
    }
}
