using System.Numerics;
using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Paths;

namespace Dedup.Core.Scanning;

/// <summary>
/// Keys, once the listing is done and before the size barrier splits sizes by key, the small files of shared sizes that
/// the listing could not key from the page cache (<see cref="ContentKeys"/>): a cold tree's, whose pages the failed reads
/// asked the kernel to read ahead. Without it a cold scan left those sizes unsplit, so every row of them stayed in the
/// table until the compare stage read the files in size order (a cold 1 M scan's peak RSS 153–158 MiB against 125 MiB
/// warm; docs/benchmarks.md, #17 session 17).
/// </summary>
/// <remarks>
/// Files are read in table order, which is listing order: each folder's files relative to one descriptor of the folder,
/// reached from its root one name at a time as the listing reached it (no path walked, no link followed that the listing
/// did not follow). Every file is checked against its row by <see cref="ContentKeys.Read(int, byte*, in FileRow)"/>;
/// any failure leaves the row without a key and the file to the compare stage, which reports errors.
/// </remarks>
[SupportedOSPlatform("linux")]
internal static unsafe class KeyPass
{
    /// <summary>Rows one thread takes at a time: 64 words of the mask, within one block of rows.</summary>
    private const int ChunkRows = 4096;

    /// <summary>NAME_MAX: a longer name is none the listing gave.</summary>
    private const int MaxName = 255;

    /// <param name="table">The sealed table.</param>
    /// <param name="rows">The rows to key: row <c>r</c> is bit <c>r % 64</c> of word <c>r / 64</c>.</param>
    /// <param name="roots">The scan's roots: opened by their paths, as the listing opened them.</param>
    /// <param name="followLinks">Whether the listing followed links to folders (then so does this pass, where it did).</param>
    /// <param name="threads">The scan's threads; called on one of them.</param>
    /// <param name="bytesRead">Told the bytes read for keys, per chunk.</param>
    /// <param name="cancellationToken">Stops the pass.</param>
    public static void Run(FileTable table, ulong[] rows, IEnumerable<AbsolutePath> roots, bool followLinks, ScanThreads threads, Action<long>? bytesRead, CancellationToken cancellationToken)
    {
        var chunks = new List<int>();
        for (var start = 0; start < table.Count; start += ChunkRows)
        {
            var end = Math.Min(rows.Length, (start + ChunkRows) >> 6);
            for (var w = start >> 6; w < end; w++)
            {
                if (rows[w] != 0)
                {
                    chunks.Add(start);
                    break;
                }
            }
        }

        var rootSet = new HashSet<AbsolutePath>(roots);
        threads.ForEach(chunks, start => KeyChunk(table, rows, start, rootSet, followLinks, bytesRead, cancellationToken), cancellationToken);
    }

    private static void KeyChunk(FileTable table, ulong[] rows, int start, HashSet<AbsolutePath> roots, bool followLinks, Action<long>? bytesRead, CancellationToken cancellationToken)
    {
        using var folders = new FolderCursor(roots, followLinks);
        byte* name = stackalloc byte[MaxName + 1];
        long bytes = 0;
        var end = Math.Min(start + ChunkRows, table.Count);
        for (var w = start >> 6; w << 6 < end; w++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            for (var bits = rows[w]; bits != 0; bits &= bits - 1)
            {
                var r = (w << 6) + BitOperations.TrailingZeroCount(bits);
                ref var row = ref table[r];
                var fd = folders.Open(table.GetFolder(row.Folder));
                var bytesOfName = table.Names.GetBytes(row.Name);
                if (fd < 0 || bytesOfName.Length > MaxName)
                {
                    continue;
                }

                bytesOfName.CopyTo(new Span<byte>(name, MaxName));
                name[bytesOfName.Length] = 0;
                var key = ContentKeys.Read(fd, name, in row);
                if (key != 0)
                {
                    row.ContentKey = key;
                    bytes += row.Length;
                }
            }
        }

        if (bytes > 0)
        {
            bytesRead?.Invoke(bytes);
        }
    }

    /// <summary>
    /// Descriptors (<c>O_PATH</c>) of one folder and its ancestors up to its root, kept while the next rows' folders share
    /// them: consecutive rows are mostly one folder's files, or a sibling's.
    /// </summary>
    private sealed class FolderCursor(HashSet<AbsolutePath> roots, bool followLinks) : IDisposable
    {
        /// <summary>Deeper folders are left to the compare stage.</summary>
        private const int MaxDepth = 256;

        private readonly List<AbsolutePath> _folders = [];
        private readonly List<int> _fds = [];
        private readonly List<AbsolutePath> _chain = [];

        /// <summary>The folder's descriptor, or -1 when it (or a folder above it) cannot be opened.</summary>
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
                if (f.Parent is null || _chain.Count == MaxDepth)
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
                var fd = i == 0 ? OpenRoot(_chain[0]) : _fds[i - 1] < 0 ? -1 : OpenChild(_fds[i - 1], _chain[i]);
                _folders.Add(_chain[i]);
                _fds.Add(fd);
            }

            return _fds[^1];
        }

        /// <summary>A root by its path, links followed, as the listing opened it.</summary>
        private static int OpenRoot(AbsolutePath root)
        {
            Span<byte> path = stackalloc byte[4096];
            if (root.WriteUtf8(path) < 0)
            {
                return -1;
            }

            fixed (byte* p = path)
            {
                var fd = Libc.OpenAt(Libc.AT_FDCWD, p, Libc.O_PATH | Libc.O_DIRECTORY | Libc.O_CLOEXEC, 0);
                return fd < 0 ? -1 : fd;
            }
        }

        /// <summary>A folder by its name relative to its parent, not following a link unless the listing followed one there.</summary>
        private int OpenChild(int parentFd, AbsolutePath folder)
        {
            var follows = followLinks && folder is AbsolutePathSymlinkPoint;
            var fd = Libc.OpenAtName(parentFd, folder.Name.AsSpan(), Libc.O_PATH | Libc.O_DIRECTORY | Libc.O_CLOEXEC | (follows ? 0 : Libc.O_NOFOLLOW), out _);
            return fd < 0 ? -1 : fd;
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
}
