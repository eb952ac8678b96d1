using System.Collections.Concurrent;
using Dedup.Core.Catalog;

namespace Dedup.Core.Tests.Catalog;

/// <summary>The catalog's ordered parallel map: results in the list's order, a state per thread at a time, failures as thrown.</summary>
public sealed class ParallelInOrderTests
{
    [Theory]
    [InlineData(1, 10_000)]
    [InlineData(2, 10_000)]
    [InlineData(4, 10_001)]
    [InlineData(2, 100)]
    [InlineData(3, 0)]
    public void Results_come_in_the_lists_order_each_once(int degree, int count)
    {
        var items = Enumerable.Range(0, count).ToArray();
        var states = new ConcurrentBag<State>();

        var results = ParallelInOrder.Map(items, degree, states, () => new State(), static (state, item) => state.Map(item)).ToList();

        Assert.Equal(items.Select(item => item * 3), results);
        // Every state is back in the bag, and no state ever mapped on two threads at once.
        Assert.All(states, state => Assert.False(state.Overlapped));
        Assert.Equal(count, states.Sum(state => state.Mapped));
        Assert.InRange(states.Count, 1, Math.Max(1, degree));
    }

    [Fact]
    public void Several_threads_map_a_long_list_and_reuse_their_states_across_windows()
    {
        var items = Enumerable.Range(0, 50_000).ToArray();
        var states = new ConcurrentBag<State>();
        var made = 0;

        var sum = ParallelInOrder.Map(items, 2, states, () => { Interlocked.Increment(ref made); return new State(slow: true); }, static (state, item) => state.Map(item)).Sum(value => (long)value);

        Assert.Equal(items.Sum(item => item * 3L), sum);
        // At most one state per thread, kept from window to window (196 windows of 256 items).
        Assert.InRange(made, 1, 2);
        Assert.All(states, state => Assert.False(state.Overlapped));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public void Workers_map_beside_the_consumer_never_more_threads_at_once_than_the_degree(int degree)
    {
        // A worker maps beside the consumer, and the consumer's thread, the workers' and their states never exceed the
        // degree at any moment. The first thread to map waits for a second one (a pool thread may start late when the
        // test host's pool is busy: up to 30 s), so two map at once without depending on timing.
        var items = Enumerable.Range(0, 20_000).ToArray();
        var threads = new ConcurrentDictionary<int, bool>();
        using var second = new ManualResetEventSlim();
        var (inUse, most) = (0, 0);
        var results = ParallelInOrder.Map(items, degree, new ConcurrentBag<object>(), () => new object(), (_, item) =>
        {
            var now = Interlocked.Increment(ref inUse);
            for (var seen = Volatile.Read(ref most); now > seen && Interlocked.CompareExchange(ref most, now, seen) != seen; seen = Volatile.Read(ref most))
            {
            }

            threads.TryAdd(Environment.CurrentManagedThreadId, true);
            if (threads.Count >= 2)
            {
                second.Set();
            }
            else
            {
                second.Wait(TimeSpan.FromSeconds(30));
            }

            Thread.SpinWait(200);
            Interlocked.Decrement(ref inUse);
            return item;
        }).ToList();

        Assert.Equal(items, results);
        Assert.InRange(threads.Count, 2, int.MaxValue);
        Assert.InRange(most, 2, degree);
    }

    [Fact]
    public void A_result_is_let_go_once_taken_even_in_the_middle_of_a_window()
    {
        var items = Enumerable.Range(0, 4_000).ToArray();
        var taken = new List<WeakReference>();
        var stillHeld = new List<int>();
        foreach (var result in ParallelInOrder.Map(items, 2, new ConcurrentBag<object>(), () => new object(), static (_, item) => new byte[1000 + item]))
        {
            if (taken.Count is 1_000 or 2_000 or 3_000)
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
                GC.Collect();
                stillHeld.Add(taken.Count(reference => reference.IsAlive));
            }

            taken.Add(new WeakReference(result));
        }

        // The results the consumer took and dropped are garbage, whatever the window still maps.
        Assert.Equal([0, 0, 0], stillHeld);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public void A_failure_comes_out_as_thrown_and_the_state_goes_back(int degree)
    {
        var items = Enumerable.Range(0, 5_000).ToArray();
        var states = new ConcurrentBag<State>();

        var error = Assert.Throws<InvalidOperationException>(() =>
            ParallelInOrder.Map(items, degree, states, () => new State(), static (state, item) => item == 3_333 ? throw new InvalidOperationException("item 3333") : state.Map(item)).ToList());

        Assert.Equal("item 3333", error.Message);
        Assert.NotEmpty(states);
    }

    [Fact]
    public void A_consumer_stopping_early_stops_the_workers_and_gets_every_state_back()
    {
        var items = Enumerable.Range(0, 100_000).ToArray();
        var states = new ConcurrentBag<State>();
        var made = 0;

        var first = ParallelInOrder.Map(items, 3, states, () => { Interlocked.Increment(ref made); return new State(); }, static (state, item) => state.Map(item)).Take(1_000).ToList();

        Assert.Equal(items.Take(1_000).Select(item => item * 3), first);
        // Every state made is back once the enumeration was disposed (no worker still holds one), and the workers
        // stopped near the consumer: a few batches of 64 ahead, not the whole list.
        Assert.Equal(made, states.Count);
        Assert.InRange(states.Sum(state => state.Mapped), 1_000, 1_000 + (3 * 2 * 64));
        Assert.All(states, state => Assert.False(state.Overlapped));
    }

    [Fact]
    public void A_consumer_that_stops_without_disposing_leaves_no_worker_running()
    {
        var items = Enumerable.Range(0, 100_000).ToArray();
        var states = new ConcurrentBag<State>();
        var made = 0;
        var mapped = 0;

        var results = ParallelInOrder.Map(
            items,
            3,
            states,
            () => { Interlocked.Increment(ref made); return new State(); },
            (state, item) => { Interlocked.Increment(ref mapped); return state.Map(item); }).GetEnumerator();
        for (var i = 0; i < 500; i++)
        {
            Assert.True(results.MoveNext());
            Assert.Equal(i * 3, results.Current);
        }

        // Abandoned, not disposed: the workers end once the batches they may map ahead are done (no thread waits on the
        // consumer) and give their states back; the consumer's own is the one still out. Settled: the same counts in
        // three looks 50 ms apart.
        var deadline = DateTime.UtcNow.AddSeconds(30);
        var (seen, steady) = ((-1, -1, -1), 0);
        while (steady < 3 && DateTime.UtcNow < deadline)
        {
            Thread.Sleep(50);
            var now = (Volatile.Read(ref made), states.Count, Volatile.Read(ref mapped));
            steady = now == seen && now.Item2 == now.Item1 - 1 ? steady + 1 : 0;
            seen = now;
        }

        Assert.Equal(3, steady);
        Assert.InRange(Volatile.Read(ref mapped), 500, 500 + (3 * 2 * 64)); // no more than the ring ahead of the consumer
    }

    private sealed class State(bool slow = false)
    {
        private int _inUse;

        public bool Overlapped { get; private set; }

        public int Mapped { get; private set; }

        public int Map(int item)
        {
            if (Interlocked.Exchange(ref _inUse, 1) != 0)
            {
                Overlapped = true;
            }

            if (slow && item % 1000 == 0)
            {
                Thread.SpinWait(1000);
            }

            Mapped++;
            Volatile.Write(ref _inUse, 0);
            return item * 3;
        }
    }
}
