using System.Collections.Concurrent;
using System.Runtime.ExceptionServices;

namespace Dedup.Core.Catalog;

/// <summary>
/// Maps a list on several threads and yields the results in the list's order, a window at a time: the caller's thread
/// maps too (no thread of the pool is waited on for a start), and only a window's results are held at once, so what
/// the consumer lets go of dies young.
/// </summary>
/// <remarks>
/// Made for the catalog's groups across machines, which a scan makes after its compare stage while nothing else runs:
/// on one thread they were most of a fleet scan's time after it (measured at 250k files matched on another machine:
/// 1.0–1.2 s of a 1.8–2.0 s tail on two cores, one idle).
/// </remarks>
internal static class ParallelInOrder
{
    // Small: a window's results are alive until the consumer takes them, and the collector marks and copies them at every
    // collection meanwhile (a window of 2,048 groups, ~2 MB, made the collections after a fleet scan's compare stage
    // slower than the second thread made the groups faster).
    private const int Batch = 64;

    /// <summary>
    /// <paramref name="map"/> of each item, in order. Each thread maps with a state of its own, taken from
    /// <paramref name="states"/> (made by <paramref name="make"/> when none is free) and put back when its part of a
    /// window is done: a state is never used by two threads at once.
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

        var window = Batch * degree * 2;
        var results = new TOut[Math.Min(window, items.Count)];
        var options = new ParallelOptions { MaxDegreeOfParallelism = degree };
        for (var start = 0; start < items.Count; start += window)
        {
            var count = Math.Min(window, items.Count - start);
            var first = start;
            try
            {
                Parallel.For(
                    0,
                    (count + Batch - 1) / Batch,
                    options,
                    () => Take(states, make),
                    (batch, _, state) =>
                    {
                        var end = Math.Min(count, (batch + 1) * Batch);
                        for (var i = batch * Batch; i < end; i++)
                        {
                            results[i] = map(state, items[first + i]);
                        }

                        return state;
                    },
                    states.Add);
            }
            catch (AggregateException error) when (error.InnerExceptions.Count == 1)
            {
                ExceptionDispatchInfo.Capture(error.InnerExceptions[0]).Throw();
            }

            for (var i = 0; i < count; i++)
            {
                var result = results[i];
                results[i] = default!;
                yield return result;
            }
        }
    }

    private static TState Take<TState>(ConcurrentBag<TState> states, Func<TState> make) =>
        states.TryTake(out var state) ? state : make();
}
