using System.IO.Hashing;
using Dedup.Core.Comparison.Hashing;

namespace Dedup.Core.Scanning;

/// <summary>
/// Tells same-size candidates apart by reading as little as possible, each file opened once. Files up to
/// <see cref="WholeReadLimit"/> bytes are read whole and settled here, exactly (bytes compared with each
/// class representative). Larger files are split by a prefix and, from <see cref="SuffixFrom"/> bytes, a
/// suffix probe through the same handle; the survivors go to the comparer strategy. Large sets are read
/// by several threads (files are independent here), unless the device admits one reader.
/// </summary>
internal static class ProbeStage
{
    public const int ProbeSize = 4096;
    public const int WholeReadLimit = 8192;
    public const long SuffixFrom = 64 * 1024;

    /// <summary>Sets smaller than this are read on the calling thread.</summary>
    private const int ParallelFrom = 64;

    /// <summary>The largest set whose whole reads stay open until it is settled (on the calling thread): a thread's share of open files.</summary>
    private const int KeepOpenMax = IO.OpenFileSet.MaxOpen;

    /// <summary>
    /// Memory allowed for the small files' bytes when settling them in memory, shared by the scan's threads: a set gets
    /// its share, at least <see cref="MinSmallFileShare"/> (so at the default of eight or more threads every set gets
    /// 256 KiB; only fewer threads give a set more). Larger sets are hashed and their colliding members confirmed
    /// by the strategy: a bigger arena only grows the pool's retained arrays (every power of two up to it, per thread),
    /// measured as peak RSS (1 M-file tree: eight threads with 1 MiB each peaked 155.2 MiB, with 256 KiB 146.6 MiB).
    /// </summary>
    private const long SmallFileBudget = 2 * 1024 * 1024;

    private const long MinSmallFileShare = 256 * 1024;

    /// <summary>
    /// Splits <paramref name="set"/>: groups settled exactly go to <see cref="Comparison.ComparisonSet.AddGroup"/>,
    /// buckets still to compare to <paramref name="unsettled"/>.
    /// </summary>
    public static void Run(FileComparisonSet set, ReaderFanOut readers, List<List<int>> unsettled, CancellationToken cancellationToken)
    {
        if (set.Length <= WholeReadLimit)
        {
            RunWhole(set, readers, unsettled, cancellationToken);
        }
        else
        {
            RunPrefixSuffix(set, readers, unsettled, cancellationToken);
        }
    }

    /// <summary>
    /// Reads file <paramref name="index"/>'s probe key alone, as <see cref="Run"/> computes it (the cache's pre-pass
    /// for files it has no entry for); <see langword="false"/> when the file could not be read.
    /// </summary>
    public static bool TryReadKey(FileComparisonSet set, int index, out ulong key)
    {
        key = 0;
        var whole = set.Length <= WholeReadLimit;
        var withSuffix = set.Length >= SuffixFrom;
        var length = whole ? (int)set.Length : (withSuffix ? 2 * ProbeSize : ProbeSize);
        var buffer = set.Buffers.Rent(Math.Max(1, length));
        try
        {
            var ok = whole
                ? set.TryReadWhole(index, buffer.AsSpan(0, length), keepOpen: false)
                : set.TryProbe(index, buffer.AsSpan(0, ProbeSize), withSuffix ? buffer.AsSpan(ProbeSize, ProbeSize) : default, keepOpen: false);
            if (ok)
            {
                key = XxHash3.HashToUInt64(buffer.AsSpan(0, length));
            }

            return ok;
        }
        finally
        {
            set.Buffers.Return(buffer);
        }
    }

    private static void ForEachFile(FileComparisonSet set, ReaderFanOut readers, CancellationToken cancellationToken, Action<int> body)
        => (set.Count < ParallelFrom ? ReaderFanOut.Single : readers).For(set.Count, body, cancellationToken);

    private static void RunWhole(FileComparisonSet set, ReaderFanOut readers, List<List<int>> unsettled, CancellationToken cancellationToken)
    {
        var length = (int)set.Length;
        var share = Math.Max(MinSmallFileShare, SmallFileBudget / Math.Max(2, ScanThreads.Current?.Count ?? 2));
        var keepBytes = (long)set.Count * length <= share;
        var hashes = new ulong[set.Count];
        var ok = new bool[set.Count];
        var arena = keepBytes ? set.Buffers.Rent(Math.Max(1, set.Count * length)) : null;

        // A set settled here from its bytes, read on this thread, keeps its files open until it is settled: a group's last
        // check then is a stat of the descriptor that read the bytes, not a lookup of the file's name (the name lookups
        // were ~7 % of a warm scan's CPU, perf). No more than a thread's share of open files (OpenFileSet.MaxOpen).
        var keepOpen = OperatingSystem.IsLinux() && arena is not null && set.Count <= KeepOpenMax && set.CanKeepOpen;
        // Kept open, the files' bytes are shown to the scan once settled, each copy with its class's first file: a
        // catalog scan then hashes each class's bytes once (CatalogHasher.Copies).
        var sameAs = keepOpen && set.ObservesCopies ? new int[set.Count] : null;
        sameAs?.AsSpan().Fill(-1); // -1: no file it equals (yet)
        try
        {
            ForEachFile(set, keepOpen ? ReaderFanOut.Single : readers, cancellationToken, i =>
            {
                var buffer = arena is null ? set.Buffers.Rent(Math.Max(1, length)) : null;
                var data = arena is null ? buffer.AsSpan(0, length) : arena.AsSpan(i * length, length);
                ok[i] = set.TryReadWhole(i, data, keepOpen, observe: sameAs is null);
                if (ok[i])
                {
                    hashes[i] = XxHash3.HashToUInt64(data);
                    set.NoteProbeKey(i, hashes[i]);
                }

                if (buffer is not null)
                {
                    set.Buffers.Return(buffer);
                }
            });

            Classify(set, ok, hashes, arena, length, unsettled, sameAs);
            if (sameAs is not null)
            {
                ObserveSettled(set, ok, sameAs, arena!, length);
            }
        }
        finally
        {
            set.CloseKept();
            if (arena is not null)
            {
                set.Buffers.Return(arena);
            }
        }
    }

    private static void RunPrefixSuffix(FileComparisonSet set, ReaderFanOut readers, List<List<int>> unsettled, CancellationToken cancellationToken)
    {
        var withSuffix = set.Length >= SuffixFrom;
        var keys = new ulong[set.Count];
        var ok = new bool[set.Count];

        // A set probed on this thread keeps its files open: those the probe cannot tell apart are read on by the strategy
        // through the same descriptors (WholeFileStage), not opened a second time (an open, a stat and a close per file).
        var keepOpen = set.Count < ParallelFrom && set.CanKeepOpen;
        ForEachFile(set, readers, cancellationToken, i =>
        {
            var buffer = set.Buffers.Rent(ProbeSize * 2);
            try
            {
                var prefix = buffer.AsSpan(0, ProbeSize);
                var suffix = withSuffix ? buffer.AsSpan(ProbeSize, ProbeSize) : default;
                ok[i] = set.TryProbe(i, prefix, suffix, keepOpen);
                if (ok[i])
                {
                    // Prefix and suffix lie next to each other in the buffer: one hash keys both.
                    keys[i] = XxHash3.HashToUInt64(buffer.AsSpan(0, withSuffix ? 2 * ProbeSize : ProbeSize));
                    set.NoteProbeKey(i, keys[i]);
                }
            }
            finally
            {
                set.Buffers.Return(buffer);
            }
        });

        Classify(set, ok, keys, arena: null, 0, unsettled, sameAs: null);
    }

    /// <summary>
    /// Shows the scan the bytes of the files read whole and kept open: each class's first file (and each file alone),
    /// then right after it the files equal to it byte for byte (<paramref name="sameAs"/>, -1 for none).
    /// </summary>
    private static void ObserveSettled(FileComparisonSet set, bool[] ok, int[] sameAs, byte[] arena, int length)
    {
        for (var i = 0; i < set.Count; i++)
        {
            if (!ok[i] || sameAs[i] >= 0)
            {
                continue;
            }

            set.Observe(i, 0, arena.AsSpan(i * length, length), -1);
            for (var k = 0; k < set.Count; k++)
            {
                if (sameAs[k] == i)
                {
                    set.Observe(k, 0, arena.AsSpan(k * length, length), i);
                }
            }
        }
    }

    /// <summary>
    /// Groups the files read without error by key: their indices are sorted by key and runs of equal keys are
    /// walked, so no per-set dictionary or list of lists is built (most sets are pairs). With the bytes at hand
    /// (<paramref name="arena"/>), a run is settled here by comparing bytes with a representative; otherwise it
    /// goes to <paramref name="unsettled"/> for the comparer strategy. Failed files are marked failed; with
    /// <paramref name="sameAs"/>, each settled file after its class's first gets that first's index.
    /// </summary>
    private static void Classify(FileComparisonSet set, bool[] ok, ulong[] keys, byte[]? arena, int length, List<List<int>> unsettled, int[]? sameAs)
    {
        var order = new int[set.Count];
        var count = 0;
        for (var i = 0; i < set.Count; i++)
        {
            if (ok[i])
            {
                keys[count] = keys[i]; // compacted in place: count <= i
                order[count++] = i;
            }
            else
            {
                set.MarkFailed(i);
            }
        }

        Array.Sort(keys, order, 0, count);
        for (var start = 0; start < count;)
        {
            var end = start + 1;
            while (end < count && keys[end] == keys[start])
            {
                end++;
            }

            if (end - start >= 2)
            {
                if (arena is null)
                {
                    Array.Sort(order, start, end - start);
                    unsettled.Add([.. order.AsSpan(start, end - start)]);
                }
                else
                {
                    SettleByBytes(set, order, start, end, arena, length, sameAs);
                }
            }

            start = end;
        }
    }

    /// <summary>
    /// Splits a run of equal hashes into classes of equal bytes (nearly always one): the members equal to the first
    /// are swapped to the front and reported as a group (each given the first's index in sameAs, when given), and the
    /// rest is split again.
    /// </summary>
    private static void SettleByBytes(FileComparisonSet set, int[] order, int start, int end, byte[] arena, int length, int[]? sameAs)
    {
        while (end - start >= 2)
        {
            var representative = arena.AsSpan(order[start] * length, length);
            var equalEnd = start + 1;
            for (var k = start + 1; k < end; k++)
            {
                if (arena.AsSpan(order[k] * length, length).SequenceEqual(representative))
                {
                    (order[equalEnd], order[k]) = (order[k], order[equalEnd]);
                    equalEnd++;
                }
            }

            if (sameAs is not null)
            {
                for (var k = start + 1; k < equalEnd; k++)
                {
                    sameAs[order[k]] = order[start];
                }
            }

            if (equalEnd - start >= 2)
            {
                var members = order.AsSpan(start, equalEnd - start).ToArray();
                Array.Sort(members);
                set.AddGroup(members, verifiedByBytes: true);
            }

            start = equalEnd;
        }
    }
}
