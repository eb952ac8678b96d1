using System.Collections.Concurrent;
using System.IO.Hashing;
using System.Text;
using Dedup.Core.Comparison;
using Dedup.Core.Comparison.Hashing;
using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;
using Dedup.Core.Scanning.Features;

namespace Dedup.Core.Caching;

/// <summary>
/// One scan's use of a <see cref="HashCache"/>: every entry loaded at once when the folders have been listed (beside
/// the size barrier), looked up in memory by identity; the scan's new entries go to the store's writer on a thread of
/// its own while the compare stage runs (<see cref="CacheWriteQueue"/>), committed at the scan's end with the entries
/// of the same roots it did not see again pruned. Any failure of the store is a warning and the scan goes on without it.
/// </summary>
internal sealed class CacheSession : IDisposable
{
    /// <summary>
    /// What the probe keys mean; entries written under another format are ignored (and replaced). A scan's format also
    /// names the boot it runs in (<see cref="BootMark"/>).
    /// </summary>
    public static readonly string Format = $"v1;probe=xxh3-64;size={ProbeStage.ProbeSize};whole={ProbeStage.WholeReadLimit};suffix={ProbeStage.SuffixFrom}";

    private readonly HashCache _cache;
    private readonly HashCacheScope _scope;
    private readonly DuplicateHashAlgorithm _algorithm;
    private readonly Action<string, Exception?>? _log;
    private readonly bool _required;
    private HashCacheException? _failure; // the first problem, when the cache is required
    private readonly ConcurrentQueue<string> _warnings = new();
    private readonly ContentDigests _digests = new(); // until the file's entry is written
    private readonly CacheWriteQueue _upserts;
    private CancellationToken _cancellationToken;
    private Task<Table?>? _load;
    private long _hits;
    private long _misses;
    private long _pruned;
    private long _written;
    private bool _readOnly;
    private long _nextId;
    private long _startedNs;
    private LiveFiles? _live; // the scan's, from Start
    private readonly string? _bootUnknown; // why the boot could not be told: then the cache is not used

    public CacheSession(HashCache cache, IReadOnlyList<Paths.AbsolutePath> roots, DuplicateHashAlgorithm algorithm, Action<string, Exception?>? log, bool required = false)
    {
        _cache = cache;
        _algorithm = algorithm;
        _log = log;
        _required = required;
        // The kernel's bytes, so that roots differing only in a byte that is not UTF-8 get different keys (UTF-8 would
        // make both U+FFFD, and a scan of one would prune the other's entries); the same bytes as before for UTF-8 roots.
        var key = string.Join("\n", roots.Select(r => r.ToString()).OrderBy(r => r, StringComparer.Ordinal));
        var bytes = Paths.KernelNames.TryGetBytes(key, out var exact) ? exact : Encoding.UTF8.GetBytes(key);
        // The boot is part of the format: entries of an earlier boot are ignored, and the next save clears them.
        string boot;
        try
        {
            boot = BootMark.Current;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            _bootUnknown = ex.Message;
            boot = ";boot=unknown";
        }

        _scope = new HashCacheScope(Format + boot, (long)XxHash3.HashToUInt64(bytes));
        _upserts = new CacheWriteQueue(cache, _scope, Warn);
    }

    /// <summary>
    /// Starts loading on a thread of its own, so the store is read while the size barrier sorts the listing;
    /// <paramref name="live"/> is the scan's record of the files still in it (a dropped file is not written).
    /// </summary>
    public void Start(LiveFiles live, CancellationToken cancellationToken)
    {
        _live = live;
        _startedNs = (DateTime.UtcNow - DateTime.UnixEpoch).Ticks * 100;
        _cancellationToken = cancellationToken;
        _load = Task.Factory.StartNew(() => Load(cancellationToken), cancellationToken, TaskCreationOptions.LongRunning, TaskScheduler.Default);
    }

    /// <summary>
    /// Files whose change time is this close to the end of the listing (when <see cref="Start"/> is called), or later,
    /// are not written: the kernel's clock ticks coarsely, so an edit right after the scan read such a file could leave
    /// its stamp unchanged (git's "racy clean"). The end of the listing, not the scan's start: a file changed while the
    /// folders were being listed is not cached either.
    /// </summary>
    internal const long RacyWindowNs = 1_000_000_000;

    /// <summary>The loaded entries, or <see langword="null"/> when the store could not be read (waits for the load: scan threads only).</summary>
    private Table? Entries
    {
        get
        {
            if (_load is null)
            {
                return null;
            }

            Table? table;
            try
            {
                table = _load.GetAwaiter().GetResult();
            }
            catch (OperationCanceledException)
            {
                return null;
            }

            // A required cache that could not be read fails the scan instead of letting it read everything.
            return table is null && _failure is { } failure ? throw failure : table;
        }
    }

    /// <summary>Whether the cache could be read; without it every file is read as if there were none.</summary>
    public bool IsUsable => Entries is not null;

    /// <summary>
    /// The slot of <paramref name="file"/>'s entry if its whole stamp, change time included, is what the entry was
    /// written under, else -1; counted as a hit or a miss. <see cref="Entry"/> reads the slot.
    /// </summary>
    public int Find(FileNode file)
    {
        var table = Entries;
        var stamp = file.Primary.Stamp;
        if (table is not null && stamp.IsComplete && table.Index.TryGetValue(stamp.Identity, out var slot)
            && table.Items[slot].Stamp == stamp)
        {
            table.Seen[slot] = true; // only ever set to true, read after the compare stage ended
            Interlocked.Increment(ref _hits);
            return slot;
        }

        Interlocked.Increment(ref _misses);
        return -1;
    }

    /// <summary>The entry in a slot <see cref="Find"/> returned (by reference: no copy per file).</summary>
    public ref readonly HashCacheEntry Entry(int slot) => ref Entries!.Items[slot];

    /// <summary>A new partition or class id, negative until the store gives it its own.</summary>
    public long NewId() => -Interlocked.Increment(ref _nextId);

    /// <summary>
    /// The digests of files' whole contents, as the comparer computes them with the scan's algorithm, held until
    /// <see cref="Write"/> takes them; opened only once the cache was read and may be saved (else nothing is kept).
    /// </summary>
    public ContentDigests Digests => _digests;

    /// <summary>The cached whole-content digest of an entry, when it has one of the scan's algorithm.</summary>
    public bool TryGetDigest(in HashCacheEntry entry, out ContentHash digest)
    {
        digest = default;
        if (entry.Digest.Length != 32 || entry.DigestAlgorithm != _algorithm)
        {
            return false;
        }

        digest = ContentHash.FromBytes(entry.Digest.Span);
        return true;
    }

    /// <summary>
    /// Writes what the scan learned about <paramref name="file"/> (under the stamp it was scanned with); a file
    /// dropped, racy or without a change time is not written, only let go of.
    /// </summary>
    public void Write(FileNode file, ulong probe, long partition, long @class, in HashCacheEntry? previous = null)
    {
        var hashed = _digests.TryTake(file, out var digest); // first: the node is not held past its set

        var stamp = file.Primary.Stamp;
        var table = Entries;
        if (!stamp.IsComplete || (_live?.IsDropped(file) ?? false) || table is null || _readOnly || stamp.ChangeTimeNs >= _startedNs - RacyWindowNs)
        {
            return;
        }

        if (table.Index.Count != 0 && table.Index.TryGetValue(stamp.Identity, out var slot))
        {
            // Its old entry is replaced, not pruned (only changed files get here on a rescan; nothing on a first run).
            table.Seen[slot] = true;
        }

        var entry = new HashCacheEntry(stamp, probe, partition, @class, _scope.Roots);
        if (hashed)
        {
            var bytes = new byte[32];
            WriteDigest(digest, bytes);
            entry = entry with { DigestAlgorithm = _algorithm, Digest = bytes };
        }
        else if (previous is { } kept && kept.Stamp == stamp && kept.Digest.Length != 0)
        {
            // Unchanged file: its digest stays true.
            entry = entry with { DigestAlgorithm = kept.DigestAlgorithm, Digest = kept.Digest };
        }

        _upserts.Add(entry, _cancellationToken);
    }

    /// <summary>Commits the scan's changes and prunes what the same roots did not see again; call once, when the scan completed.</summary>
    public void Finish(CancellationToken cancellationToken)
    {
        var table = Entries;
        if (table is null || _readOnly)
        {
            return;
        }

        // Seen: unchanged (Find) or written anew (Write), so neither is pruned.
        var removals = new List<FileIdentity>();
        for (var i = 0; i < table.Items.Length; i++)
        {
            var item = table.Items[i];
            if (!table.Seen[i] && item.Roots == _scope.Roots)
            {
                removals.Add(item.Stamp.Identity);
            }
        }

        // Nothing to change: no write. Unless the store is empty, as on a first run whose files all changed within the
        // racy window (or were never read): the commit then creates the cache file, which an operator looks for.
        var written = _upserts.Added;
        if (written == 0 && removals.Count == 0 && table.Items.Length != 0)
        {
            return;
        }

        if (_upserts.Commit(removals, cancellationToken))
        {
            _pruned = removals.Count;
            _written = written;
        }
        else if (_failure is { } failure)
        {
            throw failure;
        }
    }

    /// <summary>Discards an uncommitted save (a cancelled or failed scan) and waits for the writer's thread.</summary>
    public void Dispose() => _upserts.Dispose();

    public CacheStatistics Statistics => new()
    {
        Hits = Interlocked.Read(ref _hits),
        Misses = Interlocked.Read(ref _misses),
        Pruned = _pruned,
        Written = _written,
        Warnings = _warnings.ToArray(),
    };

    private Table? Load(CancellationToken cancellationToken)
    {
        if (_bootUnknown is not null)
        {
            Warn($"cache '{_cache.Description}' not used: cannot tell this boot from an earlier one, before which a crash may have kept new bytes under a file's old stamp ({_bootUnknown})");
            return null;
        }

        HashCacheSnapshot snapshot;
        try
        {
            snapshot = _cache.Load(_scope, cancellationToken);
        }
        catch (Exception ex) when (ex is not OperationCanceledException)
        {
            Warn($"cache '{_cache.Description}' not used: {ex.Message}", ex);
            return null;
        }

        foreach (var warning in snapshot.Warnings)
        {
            Warn(warning);
        }

        if (_failure is not null)
        {
            return null; // a store's own warning (a damaged chunk, a rebuilt file) fails a required cache too
        }

        _readOnly = snapshot.IsReadOnly;

        var entries = snapshot.Entries;
        var items = entries as HashCacheEntry[] ?? [.. entries]; // the store's own array when it gives one: no copy
        var index = new Dictionary<FileIdentity, int>(items.Length);
        var count = 0;
        for (var i = 0; i < items.Length; i++)
        {
            // A stamp without a change time is never trusted, so such an entry is of no use (a store should not hold one).
            var entry = items[i];
            if (entry.Stamp.IsComplete && !index.ContainsKey(entry.Stamp.Identity))
            {
                index[entry.Stamp.Identity] = count;
                items[count++] = entry;
            }
        }

        if (count != items.Length)
        {
            Array.Resize(ref items, count);
        }

        if (!_readOnly)
        {
            _digests.Open(); // before the load completes: every comparison with the cache waits for it
        }

        return new Table(items, index, new bool[count]);
    }

    /// <summary>
    /// Records a warning, the session's or the store's, as one line, and logs it with the exception behind it. With a
    /// required cache the first one becomes the failure the scan throws when it next needs the cache.
    /// </summary>
    private void Warn(string message, Exception? exception = null)
    {
        message = message.Replace('\r', ' ').Replace('\n', ' ').Trim();
        _warnings.Enqueue(message);
        _log?.Invoke(message, exception);
        if (_required)
        {
            Interlocked.CompareExchange(ref _failure, new HashCacheException(message, exception), null);
        }
    }

    private static void WriteDigest(ContentHash digest, Span<byte> destination)
    {
        System.Buffers.Binary.BinaryPrimitives.WriteUInt64LittleEndian(destination, digest.A);
        System.Buffers.Binary.BinaryPrimitives.WriteUInt64LittleEndian(destination[8..], digest.B);
        System.Buffers.Binary.BinaryPrimitives.WriteUInt64LittleEndian(destination[16..], digest.C);
        System.Buffers.Binary.BinaryPrimitives.WriteUInt64LittleEndian(destination[24..], digest.D);
    }

    /// <summary>The loaded entries, indexed by identity; <see cref="Seen"/> marks the ones this scan found unchanged.</summary>
    private sealed record Table(HashCacheEntry[] Items, Dictionary<FileIdentity, int> Index, bool[] Seen);
}
