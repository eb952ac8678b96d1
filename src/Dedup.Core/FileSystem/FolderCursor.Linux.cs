using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Dedup.Core.Paths;

namespace Dedup.Core.FileSystem;

/// <summary>
/// Descriptors (<c>O_PATH</c>) of one folder and its ancestors up to its root, reached from the root one listed name at a
/// time (<see cref="RootedTree"/>) and kept while the next folders asked for share them: a pass over a scan's table in
/// listing order asks mostly for one folder's files, or a sibling's. One thread's.
/// </summary>
/// <param name="roots">The scan's roots: a folder not below one is not walked to.</param>
/// <param name="policy">Which links the walk goes through, and how deep (deeper folders are not walked to).</param>
[SupportedOSPlatform("linux")]
internal sealed class FolderCursor(HashSet<AbsolutePath> roots, TreeWalkPolicy policy) : IDisposable
{
    private readonly List<AbsolutePath> _folders = [];
    private readonly List<int> _fds = [];
    private readonly List<AbsolutePath> _chain = [];

    /// <summary>The folder's descriptor (owned by the cursor), or -1 when it, or a folder above it, cannot be opened.</summary>
    public int Open(AbsolutePath folder)
    {
        if (_folders.Count > 0 && ReferenceEquals(_folders[^1], folder))
        {
            return _fds[^1];
        }

        _chain.Clear();
        var f = folder;
        while (!roots.Contains(f))
        {
            if (f.Parent is null || _chain.Count >= policy.MaxDepth)
            {
                return -1; // not below a root: not a folder the listing reached from one
            }

            _chain.Add(f);
            f = f.Parent;
        }

        _chain.Add(f);
        _chain.Reverse();
        var same = 0;
        while (same < _folders.Count && same < _chain.Count && ReferenceEquals(_folders[same], _chain[same]))
        {
            same++;
        }

        CloseFrom(same);
        for (var i = same; i < _chain.Count; i++)
        {
            // Nothing below a folder that failed is opened some other way: that way could go through a swapped link.
            var fd = i == 0 ? RootedTree.OpenRoot(_chain[0], RootedTree.Walked, out _)
                : _fds[i - 1] < 0 ? -1
                : RootedTree.OpenChild(_fds[i - 1], _chain[i], policy, RootedTree.Walked, out _);
            _folders.Add(_chain[i]);
            _fds.Add(fd < 0 ? -1 : fd);
        }

        return _fds[^1];
    }

    private void CloseFrom(int depth)
    {
        for (var i = _fds.Count - 1; i >= depth; i--)
        {
            if (_fds[i] >= 0)
            {
                _ = Libc.Close(_fds[i]);
            }
        }

        _folders.RemoveRange(depth, _folders.Count - depth);
        _fds.RemoveRange(depth, _fds.Count - depth);
    }

    public void Dispose() => CloseFrom(0);
}
