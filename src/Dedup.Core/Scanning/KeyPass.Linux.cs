using System.Numerics;
using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.FileSystem;
using Dedup.Core.Paths;

namespace Dedup.Core.Scanning;

/// <summary>
/// Keys, once the listing is done and before the size barrier splits sizes by key, the small files of shared sizes that
/// the listing could not key from the page cache (<see cref="ContentKeys"/>): a cold tree's, whose pages the failed reads
/// asked the kernel to read ahead. Without it a cold scan left those sizes unsplit, so every row of them stayed in the
/// table until the compare stage read the files in size order (a cold 1 M scan's peak RSS 153–158 MiB against 125 MiB
/// warm; docs/architecture.md, The size barrier).
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

    /// <summary>Deeper folders are left to the compare stage.</summary>
    private const int MaxDepth = 256;

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
        using var folders = new FolderCursor(roots, TreeWalkPolicy.ForScan(followLinks, MaxDepth));
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
}
