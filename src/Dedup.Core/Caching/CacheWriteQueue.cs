using System.Collections.Concurrent;
using Dedup.Core.Enumeration;

namespace Dedup.Core.Caching;

/// <summary>
/// Hands a scan's new entries to a <see cref="HashCacheWriter"/> on a thread of its own while the compare stage runs,
/// in batches through a bounded queue, so a store's work can overlap the comparisons instead of following them. That
/// helps where the compare stage leaves a core idle; on cores the compare keeps busy it only moves the work (session 9:
/// the time after the last comparison 0.56 → 0.20 s, the first run's ratio unchanged), so the SQLite store now only
/// keeps the entries here and writes them cheaply at the commit (schema 3's chunks). The writer is opened with the
/// first full batch: a scan that writes nothing never opens the store. A failing writer is a warning; the rest is
/// drained and dropped.
/// </summary>
internal sealed class CacheWriteQueue(HashCache cache, HashCacheScope scope, Action<string, Exception?> warn) : IDisposable
{
    /// <summary>Entries per batch: big enough that the hand-over is rare, small enough that the writer starts early.</summary>
    internal const int BatchSize = 4096;

    /// <summary>Full batches waiting: bounds memory when the store is slower than the scan (the scan then waits).</summary>
    private const int Capacity = 8;

    private readonly object _gate = new();
    private readonly BlockingCollection<(HashCacheEntry[] Items, int Count)> _queue = new(Capacity);
    private HashCacheEntry[] _batch = new HashCacheEntry[BatchSize];
    private int _count;
    private long _added;
    private Task? _consumer;
    private HashCacheWriter? _writer;
    private volatile bool _failed;
    private CancellationToken _cancellationToken;

    /// <summary>Entries added so far.</summary>
    public long Added => Interlocked.Read(ref _added);

    /// <summary>Adds one entry (any thread); a full batch goes to the writer's thread.</summary>
    public void Add(in HashCacheEntry entry, CancellationToken cancellationToken)
    {
        HashCacheEntry[]? full = null;
        lock (_gate)
        {
            _batch[_count++] = entry;
            _added++;
            if (_count == BatchSize)
            {
                full = _batch;
                _batch = new HashCacheEntry[BatchSize];
                _count = 0;
                StartLocked(cancellationToken);
            }
        }

        if (full is not null)
        {
            Hand(full, BatchSize, cancellationToken);
        }
    }

    /// <summary>
    /// Hands over the last batch, waits for the writer to take every entry, then commits with
    /// <paramref name="removals"/>; <see langword="false"/> (after a warning) when the store could not be written.
    /// </summary>
    public bool Commit(IReadOnlyList<FileIdentity> removals, CancellationToken cancellationToken)
    {
        HashCacheEntry[] last;
        int count;
        lock (_gate)
        {
            last = _batch;
            count = _count;
            _count = 0;
            StartLocked(cancellationToken);
        }

        if (count > 0)
        {
            Hand(last, count, cancellationToken);
        }

        _queue.CompleteAdding();
        _consumer!.GetAwaiter().GetResult();
        cancellationToken.ThrowIfCancellationRequested(); // a cancelled scan commits nothing
        if (_failed || _writer is null)
        {
            return false;
        }

        try
        {
            _writer.Commit(removals, cancellationToken);
            return true;
        }
        catch (Exception ex) when (ex is not OperationCanceledException)
        {
            Fail(ex);
            return false;
        }
    }

    /// <summary>Ends the save: discards it when it was not committed, and waits for the writer's thread.</summary>
    public void Dispose()
    {
        _queue.CompleteAdding();
        try
        {
            _consumer?.GetAwaiter().GetResult();
        }
        catch (OperationCanceledException)
        {
        }

        _writer?.Dispose();
        _queue.Dispose();
    }

    private void StartLocked(CancellationToken cancellationToken)
    {
        if (_consumer is null)
        {
            _cancellationToken = cancellationToken;
            // Always run, even when cancelled at once: the consumer is what disposes of the writer's work.
            _consumer = Task.Factory.StartNew(Consume, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        }
    }

    private void Hand(HashCacheEntry[] items, int count, CancellationToken cancellationToken)
    {
        if (!_failed)
        {
            _queue.Add((items, count), cancellationToken);
        }
    }

    private void Consume()
    {
        try
        {
            _writer = cache.BeginSave(scope);
        }
        catch (Exception ex) when (ex is not OperationCanceledException)
        {
            Fail(ex);
        }

        // Drained to the end even after a failure, so that no producer waits on a full queue.
        foreach (var (items, count) in _queue.GetConsumingEnumerable(_cancellationToken))
        {
            if (_failed)
            {
                continue;
            }

            try
            {
                _writer!.Write(items.AsSpan(0, count), _cancellationToken);
            }
            catch (Exception ex) when (ex is not OperationCanceledException)
            {
                Fail(ex);
            }
        }
    }

    private void Fail(Exception ex)
    {
        _failed = true;
        warn($"cache '{cache.Description}' not saved: {ex.Message}", ex);
    }
}
