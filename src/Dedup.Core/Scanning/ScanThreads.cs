namespace Dedup.Core.Scanning;

/// <summary>
/// The threads a scan compares on: <c>MaxDegreeOfParallelism</c> dedicated background threads, created when the
/// compare stage starts and ended with it. Everything that blocks (reads, device tokens, waits for helpers) runs
/// here, never on a thread-pool worker: blocked pool workers starved the host's timers and continuations (#13).
/// Plain work items, not a <see cref="TaskScheduler"/>: code run here sees the default scheduler as current, so an
/// <c>await</c> inside a user's strategy never queues its continuation behind our own blocked threads.
/// </summary>
internal sealed class ScanThreads : IAsyncDisposable
{
    [ThreadStatic]
    private static ScanThreads? t_current;

    private readonly Queue<Job> _queue = new(); // guards both queues and is pulsed on every change
    private readonly Queue<Job> _helpers = new();
    private readonly TaskCompletionSource<bool> _exited = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private bool _closed;
    private int _running;

    public ScanThreads(int count)
    {
        Count = Math.Max(1, count);
        _running = Count;
        for (var i = 0; i < Count; i++)
        {
            new Thread(Work) { IsBackground = true, Name = "dedup scan" }.Start();
        }
    }

    /// <summary>The scan threads the calling thread belongs to, or <see langword="null"/> off them.</summary>
    public static ScanThreads? Current => t_current;

    /// <summary>The scan threads a compare stage runs on (<see cref="DuplicateScanner"/> starts it there).</summary>
    public static ScanThreads Required => t_current ?? throw new InvalidOperationException("The compare stage runs on the scan's threads.");

    /// <summary>How many threads; the most work items that run at once.</summary>
    public int Count { get; }

    /// <summary>Runs <paramref name="action"/> on a scan thread; the task completes (off that thread) when it returns.</summary>
    public Task RunAsync(Action action)
    {
        var completion = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        Queue(new Job(this, () =>
        {
            try
            {
                action();
                completion.TrySetResult(true);
            }
            catch (OperationCanceledException ex)
            {
                completion.TrySetCanceled(ex.CancellationToken);
            }
            catch (Exception ex)
            {
                completion.TrySetException(ex);
            }
        }), helper: false);
        return completion.Task;
    }

    /// <summary>
    /// Queues a fan-out helper (<see cref="ReaderFanOut"/>) for a free scan thread, or for one waiting in
    /// <see cref="WithdrawOrWait"/>. A helper must not block on a device token (it takes one without waiting), so a
    /// waiting thread can run it without breaking the order tokens are taken in. The caller later calls
    /// <see cref="WithdrawOrWait"/>: it never waits for a job still queued, since every thread may be waiting too.
    /// </summary>
    public Job StartHelper(Action action)
    {
        var job = new Job(this, action);
        Queue(job, helper: true);
        return job;
    }

    /// <summary>
    /// Calls <paramref name="body"/> for each item, in order and one item at a time per thread (sets come longest
    /// first), on the calling thread and up to <see cref="Count"/> − 1 more. Like <c>Parallel.ForEach</c>: stops
    /// handing out items at the first failure or cancellation, then throws the failure (one exception, or the same one
    /// met by several workers) or an <see cref="AggregateException"/> of
    /// the failures, or <see cref="OperationCanceledException"/>.
    /// </summary>
    public void ForEach<T>(IReadOnlyList<T> items, Action<T> body, CancellationToken cancellationToken)
    {
        var loop = new Drainer<T>(items, body, cancellationToken);
        var others = new Job[Math.Max(0, Math.Min(Count, items.Count) - 1)];
        for (var i = 0; i < others.Length; i++)
        {
            others[i] = new Job(this, loop.Drain);
            Queue(others[i], helper: false);
        }

        loop.Drain();
        foreach (var other in others)
        {
            WithdrawOrWait(other);
        }

        loop.ThrowIfFailed();
    }

    /// <summary>
    /// Withdraws <paramref name="job"/> if no thread took it yet; otherwise waits until it has run, running queued
    /// helpers meanwhile: the last big set of a scan spreads out over threads that would otherwise only wait.
    /// </summary>
    public void WithdrawOrWait(Job job)
    {
        if (job.TryWithdraw())
        {
            return;
        }

        while (true)
        {
            Job? helper = null;
            lock (_queue)
            {
                if (job.IsDone)
                {
                    return;
                }

                if (_helpers.Count > 0)
                {
                    helper = _helpers.Dequeue();
                }
                else
                {
                    Monitor.Wait(_queue); // pulsed when a job is queued or done
                }
            }

            helper?.TryRun();
        }
    }

    /// <summary>Lets the threads finish what is queued and exit; completes once all have exited.</summary>
    public ValueTask DisposeAsync()
    {
        lock (_queue)
        {
            _closed = true;
            Monitor.PulseAll(_queue);
        }

        return new ValueTask(_exited.Task);
    }

    private void Queue(Job job, bool helper)
    {
        lock (_queue)
        {
            if (!_closed)
            {
                (helper ? _helpers : _queue).Enqueue(job);
                Monitor.PulseAll(_queue); // idle threads and waiting ones: either may take it
                return;
            }
        }

        // Only after the scan ended, which its code never does; running late beats a waiter hanging.
        ThreadPool.UnsafeQueueUserWorkItem(static j => ((Job)j!).TryRun(), job);
    }

    private void Work()
    {
        t_current = this;
        try
        {
            while (true)
            {
                Job job;
                lock (_queue)
                {
                    while (_queue.Count == 0 && _helpers.Count == 0)
                    {
                        if (_closed)
                        {
                            return;
                        }

                        Monitor.Wait(_queue);
                    }

                    job = _helpers.Count > 0 ? _helpers.Dequeue() : _queue.Dequeue();
                }

                job.TryRun();
            }
        }
        finally
        {
            if (Interlocked.Decrement(ref _running) == 0)
            {
                _exited.TrySetResult(true);
            }
        }
    }

    private void Signal()
    {
        lock (_queue)
        {
            Monitor.PulseAll(_queue);
        }
    }

    /// <summary>A queued work item: runs once, unless withdrawn first. Its action catches its own failures.</summary>
    internal sealed class Job(ScanThreads owner, Action action)
    {
        private const int Queued = 0, Running = 1, Done = 2, Withdrawn = 3;
        private int _state;

        // Let go once run or withdrawn: a withdrawn job stays in the queue until a thread passes it, and its closure
        // holds a whole candidate set (nodes, handles); on a busy scan thousands piled up (#17, 3 M files: 357k nodes).
        private Action? _action = action;

        public bool IsDone => Volatile.Read(ref _state) == Done;

        public bool TryWithdraw()
        {
            if (Interlocked.CompareExchange(ref _state, Withdrawn, Queued) != Queued)
            {
                return false;
            }

            _action = null;
            return true;
        }

        public void TryRun()
        {
            if (Interlocked.CompareExchange(ref _state, Running, Queued) != Queued)
            {
                return; // withdrawn
            }

            try
            {
                _action!();
            }
            finally
            {
                _action = null;
                Volatile.Write(ref _state, Done);
                owner.Signal();
            }
        }
    }

    /// <summary>One <see cref="ForEach{T}"/>: items handed out one at a time by an interlocked index.</summary>
    private sealed class Drainer<T>(IReadOnlyList<T> items, Action<T> body, CancellationToken cancellationToken)
    {
        private readonly List<Exception> _failures = [];
        private int _next = -1;
        private volatile bool _stopped;

        public void Drain()
        {
            while (!_stopped && !cancellationToken.IsCancellationRequested)
            {
                var index = Interlocked.Increment(ref _next);
                if (index >= items.Count)
                {
                    return;
                }

                try
                {
                    body(items[index]);
                }
                catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
                {
                    return; // reported once, below
                }
                catch (Exception ex)
                {
                    _stopped = true;
                    lock (_failures)
                    {
                        _failures.Add(ex);
                    }
                }
            }
        }

        public void ThrowIfFailed()
        {
            if (_failures.Count > 0)
            {
                // One failure, or one shared by every worker that met it (a required cache that could not be read): thrown
                // as itself, as a caller expects; several different ones together.
                if (_failures.TrueForAll(f => ReferenceEquals(f, _failures[0])))
                {
                    System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(_failures[0]).Throw();
                }

                throw new AggregateException(_failures);
            }

            cancellationToken.ThrowIfCancellationRequested();
        }
    }
}
