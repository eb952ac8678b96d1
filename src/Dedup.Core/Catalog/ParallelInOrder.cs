using System.Collections.Concurrent;
using System.Runtime.ExceptionServices;

namespace Dedup.Core.Catalog;

/// <summary>
/// Maps a list on several threads and yields the results in the list's order: workers map batches a few ahead of the
/// consumer while it takes the results, and the consumer maps batches too while its next results are not ready (so
/// it never waits for a thread of the pool to start). Only a few batches' results are held at once, so what the consumer
/// lets go of dies young.
/// </summary>
/// <remarks>
/// Made for the catalog's groups across machines, which a scan makes after its compare stage while nothing else runs:
/// on one thread they were most of a fleet scan's time after it (measured at 250k files matched on another machine:
/// 1.0–1.2 s of a 1.8–2.0 s tail on two cores, one idle). Mapped a window at a time with the consumer taking each
/// window's results alone, the second core was idle ~45 % of that tail (perf, per thread): the consumer's part, and
/// each window's start and end, ran on one thread.
/// </remarks>
internal static class ParallelInOrder
{
    // Small: the results mapped ahead are alive until the consumer takes them, and the collector marks and copies them at
    // every collection meanwhile (a window of 2,048 groups, ~2 MB, made the collections after a fleet scan's compare
    // stage slower than the second thread made the groups faster).
    private const int Batch = 64;

    /// <summary>
    /// <paramref name="map"/> of each item, in order. Each thread maps with a state of its own, taken from
    /// <paramref name="states"/> (made by <paramref name="make"/> when none is free) and put back when it stops: a
    /// state is never used by two threads at once, and at most <paramref name="degree"/> are in use.
    /// </summary>
    public static IEnumerable<TOut> Map<TIn, TOut, TState>(IReadOnlyList<TIn> items, int degree, ConcurrentBag<TState> states, Func<TState> make, Func<TState, TIn, TOut> map)
    {
        if (degree <= 1 || items.Count <= Batch)
        {
            var state = Take(states, make);
            try
            {
                foreach (var item in items)
                {
                    yield return map(state, item);
                }
            }
            finally
            {
                states.Add(state);
            }

            yield break;
        }

        var run = new Run<TIn, TOut, TState>(items, degree, states, make, map);
        try
        {
            for (var batch = 0; batch < run.Batches; batch++)
            {
                var slot = run.Await(batch);
                var end = Math.Min(Batch, items.Count - (batch * Batch));
                for (var i = 0; i < end; i++)
                {
                    var result = slot[i];
                    slot[i] = default!;
                    yield return result;
                }

                run.Consumed(batch);
            }
        }
        finally
        {
            run.Stop();
        }
    }

    private static TState Take<TState>(ConcurrentBag<TState> states, Func<TState> make) =>
        states.TryTake(out var state) ? state : make();

    /// <summary>
    /// One mapping: batches claimed in order by the workers and the consumer, results in a ring of slots. A worker never
    /// waits: with no batch it may claim (the ring full, or none left) it ends, and the consumer starts one again as it
    /// frees a slot; so a consumer that stops enumerating without disposing leaves no thread blocked.
    /// </summary>
    private sealed class Run<TIn, TOut, TState>
    {
        private readonly IReadOnlyList<TIn> _items;
        private readonly ConcurrentBag<TState> _states;
        private readonly Func<TState> _make;
        private readonly Func<TState, TIn, TOut> _map;
        private readonly TOut[][] _slots;
        private readonly int[] _ready; // the batch whose results a slot holds, -1 for none
        private readonly int _workers;
        private readonly object _gate = new();
        private int _next; // the next batch to claim
        private int _consumed; // batches the consumer is done with
        private int _running; // workers started and not ended
        private bool _stopped;
        private ExceptionDispatchInfo? _failure;
        private TState? _consumerState;
        private bool _hasConsumerState;

        public Run(IReadOnlyList<TIn> items, int degree, ConcurrentBag<TState> states, Func<TState> make, Func<TState, TIn, TOut> map)
        {
            (_items, _states, _make, _map) = (items, states, make, map);
            Batches = (items.Count + Batch - 1) / Batch;

            // Two batches ahead per thread: a worker that finished one finds the next free while the consumer takes results.
            var ahead = Math.Min(Batches, degree * 2);
            _slots = new TOut[ahead][];
            _ready = new int[ahead];
            for (var i = 0; i < ahead; i++)
            {
                (_slots[i], _ready[i]) = (new TOut[Batch], -1);
            }

            // The consumer maps too while its next results are not ready: one worker fewer than the degree.
            _workers = degree - 1;
            lock (_gate)
            {
                StartWorkers();
            }
        }

        public int Batches { get; }

        /// <summary>
        /// The slot holding <paramref name="batch"/>'s results. While they are not ready the consumer maps the next
        /// unclaimed batch itself, as a worker would (waiting instead left it idle while one worker mapped every batch).
        /// </summary>
        public TOut[] Await(int batch)
        {
            var slot = batch % _slots.Length;
            while (true)
            {
                int claimed;
                lock (_gate)
                {
                    while (true)
                    {
                        _failure?.Throw();
                        if (_ready[slot] == batch)
                        {
                            return _slots[slot];
                        }

                        if (TryClaim(out claimed))
                        {
                            break;
                        }

                        Monitor.Wait(_gate);
                    }
                }

                if (!_hasConsumerState)
                {
                    (_consumerState, _hasConsumerState) = (Take(_states, _make), true);
                }

                Fill(_consumerState!, claimed);
            }
        }

        /// <summary>The consumer took <paramref name="batch"/>'s results: its slot is free for a later batch, and ended workers start again.</summary>
        public void Consumed(int batch)
        {
            lock (_gate)
            {
                _ready[batch % _slots.Length] = -1;
                _consumed = batch + 1;
                StartWorkers();
            }
        }

        /// <summary>Stops the workers (at the end, or when the consumer stops early or failed) and waits for them: their states are back.</summary>
        public void Stop()
        {
            lock (_gate)
            {
                _stopped = true;
                while (_running > 0)
                {
                    Monitor.Wait(_gate);
                }
            }

            if (_hasConsumerState)
            {
                _states.Add(_consumerState!);
                _hasConsumerState = false;
            }
        }

        /// <summary>Starts workers up to their number while there is a batch one could claim (under the lock).</summary>
        private void StartWorkers()
        {
            while (_running < _workers && Claimable)
            {
                _running++;
                _ = Task.Run(Work);
            }
        }

        /// <summary>Whether the next batch may be mapped now: not stopped or failed, not past the last, nor past the ring (under the lock).</summary>
        private bool Claimable => !_stopped && _failure is null && _next < Batches && _next < _consumed + _slots.Length;

        /// <summary>The next batch, if one may be mapped now (<see cref="Claimable"/>; under the lock).</summary>
        private bool TryClaim(out int batch)
        {
            batch = _next;
            if (!Claimable)
            {
                return false;
            }

            _next++;
            return true;
        }

        private void Work()
        {
            var state = Take(_states, _make);
            try
            {
                while (true)
                {
                    int batch;
                    lock (_gate)
                    {
                        if (!TryClaim(out batch))
                        {
                            return;
                        }
                    }

                    Fill(state, batch);
                }
            }
            catch (Exception error)
            {
                lock (_gate)
                {
                    _failure ??= ExceptionDispatchInfo.Capture(error);
                }
            }
            finally
            {
                _states.Add(state);
                lock (_gate)
                {
                    _running--;
                    Monitor.PulseAll(_gate);
                }
            }
        }

        /// <summary>Maps <paramref name="batch"/> into its slot and marks it ready.</summary>
        private void Fill(TState state, int batch)
        {
            var slot = batch % _slots.Length;
            var results = _slots[slot];
            var first = batch * Batch;
            var end = Math.Min(Batch, _items.Count - first);
            for (var i = 0; i < end; i++)
            {
                results[i] = _map(state, _items[first + i]);
            }

            lock (_gate)
            {
                _ready[slot] = batch;
                Monitor.PulseAll(_gate);
            }
        }
    }
}
