using System.Runtime.Versioning;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Paths;

namespace Dedup.Core.Linking.Execution;

/// <summary>
/// A folder opened once (<c>O_PATH</c>) so that every later step of an action works relative to it with the
/// <c>*at</c> calls: a folder on the path that is swapped for a symbolic link afterwards can no longer redirect
/// a rename, link or unlink to another folder. Every step is <see cref="RootedTree"/>'s, under
/// <see cref="TreeWalkPolicy.ForActions"/>; this type owns the descriptor and the messages.
/// </summary>
/// <remarks>
/// The scan may legitimately reach files through symbolically linked folders (when asked to follow links), so the
/// folder's real path is resolved once (<c>realpath</c>), then walked from <c>/</c> one component at a time with
/// <c>O_NOFOLLOW</c>; the folder reached must be the one a plain lookup of the written path gives at that moment,
/// otherwise something was swapped while it was being opened.
/// </remarks>
[SupportedOSPlatform("linux")]
internal sealed class FolderHandle : IDisposable
{
    private int _fd;

    private FolderHandle(int fd, string path)
    {
        _fd = fd;
        Path = path;
    }

    /// <summary>The path the folder was opened by (for messages only; never used to act).</summary>
    public string Path { get; }

    public int Fd => _fd >= 0 ? _fd : throw new ObjectDisposedException(nameof(FolderHandle));

    /// <summary>
    /// Opens <paramref name="path"/> as described above; with <paramref name="followLast"/> false the last component
    /// itself must be a real folder, not a symbolic link (only the folders above it are resolved).
    /// </summary>
    public static FolderHandle? TryOpen(string path, bool followLast, out string problem) => TryOpen(path, followLast, out problem, out _);

    /// <summary>As above, also giving the opened folder's status (the check already took it).</summary>
    private static FolderHandle? TryOpen(string path, bool followLast, out string problem, out StatxBuffer opened)
    {
        opened = default;
        string? resolved;
        int errno;
        if (followLast)
        {
            resolved = Libc.RealPathOf(path, out errno);
        }
        else
        {
            var parent = System.IO.Path.GetDirectoryName(path);
            var name = System.IO.Path.GetFileName(path);
            resolved = parent is null || name.Length == 0 ? Libc.RealPathOf(path, out errno) : Libc.RealPathOf(parent, out errno);
            if (resolved is not null && parent is not null && name.Length != 0)
            {
                resolved = System.IO.Path.Join(resolved, name);
            }
        }

        if (resolved is null)
        {
            problem = Libc.Message(errno);
            return null;
        }

        var fd = RootedTree.OpenResolved(resolved, out errno);
        if (fd < 0)
        {
            problem = $"changed while being opened (at {PathText.Escape(resolved)}: {Libc.Message(errno)})";
            return null;
        }

        return Confirm(new FolderHandle(fd, path), followLast, out problem, out opened);
    }

    /// <summary>
    /// The folder <paramref name="handle"/> reached by the walk must be the one a plain lookup of its path gives now
    /// (the last component followed or not); otherwise the handle is closed and <see langword="null"/> returned.
    /// </summary>
    internal static FolderHandle? Confirm(FolderHandle handle, bool followLast, out string problem, out StatxBuffer opened)
    {
        var checkedAt = RootedTree.IsAtPath(handle.Fd, handle.Path, followLast, out opened);
        if (checkedAt != 0)
        {
            handle.Dispose();
            problem = checkedAt > 0 ? Libc.Message(checkedAt) : "was replaced while being opened";
            return null;
        }

        problem = string.Empty;
        return handle;
    }

    /// <summary>
    /// Opens <paramref name="folder"/> from the root of <paramref name="roots"/> that holds it: the root is opened as
    /// above and must still be the folder the scan started from (same device and inode); every folder below it is
    /// then opened with <c>O_NOFOLLOW</c>, one name at a time. So a folder on the way that is now a symbolic link
    /// (swapped in since the scan, or one the scan followed) stops the action instead of leading out of the roots.
    /// </summary>
    /// <param name="roots">The roots the folder may lie under.</param>
    /// <param name="folder">The folder to open.</param>
    /// <param name="problem">Why it could not be opened.</param>
    /// <param name="opened">Roots already opened and checked (one run of a plan opens each root once), or <see langword="null"/>.</param>
    /// <param name="file">The file in <paramref name="folder"/> the caller means to act on: when no root holds the
    /// folder but a root is that file, the folder is opened for it (see <see cref="TryOpenFileRoot"/>).</param>
    public static FolderHandle? TryOpenBeneath(IReadOnlyList<ScanRoot> roots, AbsolutePath folder, out string problem, RootHandles? opened = null, AbsolutePath? file = null)
    {
        var root = ScanRoot.Holding(roots, folder);
        if (root is null && file?.Parent == folder && ScanRoot.Named(roots, file) is { } fileRoot)
        {
            return TryOpenFileRoot(fileRoot, out problem);
        }

        if (root is null)
        {
            problem = roots.Count == 0 ? "no scanned root is known for it" : "is not under any scanned root";
            return null;
        }

        var rootPath = root.Path.ToString();
        FolderHandle? cached = null;
        FolderHandle? handle;
        if (opened is null)
        {
            handle = TryOpenRoot(root, out problem);
        }
        else
        {
            handle = cached = opened.Get(root, out problem);
        }

        if (handle is null)
        {
            return null;
        }

        // The components below the root, outermost first.
        // Stryker disable once Arithmetic : a capacity hint
        var below = new List<string>(folder.Depth - root.Path.Depth);
        for (var node = folder; node is not null && node.Depth > root.Path.Depth; node = node.Parent)
        {
            below.Add(node.Name);
        }

        if (below.Count == 0 && cached is not null)
        {
            // The root itself: the caller owns what it gets, so not the shared handle.
            below.Add(".");
        }

        for (var i = below.Count - 1; i >= 0; i--)
        {
            var next = handle.TryOpenChild(below[i], out var childProblem);
            if (!ReferenceEquals(handle, cached))
            {
                handle.Dispose();
            }

            if (next is null)
            {
                problem = $"{PathText.Escape(System.IO.Path.Join(rootPath, string.Join('/', below.Skip(i).Reverse())))}: {childProblem}";
                return null;
            }

            handle = next;
        }

        problem = string.Empty;
        return handle;
    }

    /// <summary>Opens a scanned root as the scan followed it and checks it is still the folder that was scanned.</summary>
    internal static FolderHandle? TryOpenRoot(ScanRoot root, out string problem)
    {
        var rootPath = root.Path.ToString();
        var handle = TryOpen(rootPath, followLast: true, out problem, out var status);
        if (handle is null)
        {
            problem = $"scanned root {PathText.Escape(rootPath)}: {problem}";
            return null;
        }

        if (root.Identity != default && !RootedTree.IsFile(status, root.Identity.Device, root.Identity.FileId))
        {
            handle.Dispose();
            problem = $"scanned root {PathText.Escape(rootPath)} is no longer the folder that was scanned (another device or inode)";
            return null;
        }

        return handle;
    }

    /// <summary>
    /// A root that is a file: its folder opened by its path (followed, as the scan followed it), and the name in it,
    /// not followed, must still be the file that was scanned (same device and inode). The caller acts on that name only.
    /// </summary>
    /// <param name="root">The file root.</param>
    /// <param name="problem">Why it could not be opened.</param>
    /// <param name="checkFile">Whether the name must still be the scanned file: undo, which finds it changed by the
    /// action it takes back, checks the name against its journal instead.</param>
    internal static FolderHandle? TryOpenFileRoot(ScanRoot root, out string problem, bool checkFile = true)
    {
        var rootPath = PathText.Escape(root.Path.ToString());
        if (root.Path.Parent is not { } folder)
        {
            problem = $"scanned root {rootPath}: not a file name";
            return null;
        }

        if (root.FolderIdentity == default)
        {
            // Without it a folder swapped for another holding the same file (a snapshot's `latest` link) would pass.
            problem = $"scanned root {rootPath}: the identity of its folder is unknown (not recorded by the scan or the report); scan it again";
            return null;
        }

        var handle = TryOpen(folder.ToString(), followLast: true, out problem, out var folderStatus);
        if (handle is null)
        {
            problem = $"scanned root {rootPath}: {problem}";
            return null;
        }

        if (!RootedTree.IsFile(folderStatus, root.FolderIdentity.Device, root.FolderIdentity.FileId))
        {
            handle.Dispose();
            problem = $"scanned root {rootPath}: its folder is no longer the folder that was scanned (another device or inode)";
            return null;
        }

        if (!checkFile)
        {
            problem = string.Empty;
            return handle;
        }

        var errno = Libc.LStatAt(handle.Fd, root.Path.Name, out var status);
        if (errno != 0 || root.Identity == default || !RootedTree.IsFile(status, root.Identity.Device, root.Identity.FileId))
        {
            handle.Dispose();
            problem = errno != 0 ? $"scanned root {rootPath}: {Libc.Message(errno)}" : $"scanned root {rootPath} is no longer the file that was scanned (another device or inode)";
            return null;
        }

        problem = string.Empty;
        return handle;
    }

    /// <summary>Opens the sub-folder <paramref name="name"/> without following a symbolic link in its place.</summary>
    public FolderHandle? TryOpenChild(string name, out string problem)
    {
        var fd = RootedTree.OpenChild(Fd, name, out var errno);
        if (fd < 0)
        {
            // O_NOFOLLOW|O_DIRECTORY on a symbolic link fails with ELOOP or ENOTDIR: say which it is.
            problem = RootedTree.IsLinkAt(Fd, name)
                ? "is a symbolic link (actions never follow links below a scanned root)"
                : Libc.Message(errno);
            return null;
        }

        problem = string.Empty;
        return new FolderHandle(fd, System.IO.Path.Join(Path, name));
    }

    public void Dispose()
    {
        if (_fd >= 0)
        {
            _ = Libc.Close(_fd);
            _fd = -1;
        }
    }
}
