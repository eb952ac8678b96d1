using System.Runtime.ExceptionServices;
using Dedup.Core.Topology;

namespace Dedup.Core.Scanning;

/// <summary>
/// Runs the independent pieces of one candidate set (files to probe, buckets to compare) on the thread that
/// holds the set's read token plus helpers, each of which first takes a further token of the same device
/// without waiting. The device's reader limit therefore holds across all sets together: a set read while
/// the others are busy runs on one thread, and the last big set of a scan spreads out as the others finish
/// (a helper is started whenever a token is free between two pieces). Sets spanning several devices are not
/// spread out. Helpers run on the scan's threads (<see cref="ScanThreads"/>), so they count against its
/// parallelism and never block a thread-pool worker; off those threads the set is read by the caller alone.
/// </summary>
internal readonly struct ReaderFanOut(DriveAccessSemaphore? device)
{
    /// <summary>One reader only: for sets on several devices and for tests.</summary>
    public static ReaderFanOut Single => default;

    /// <summary>Calls <paramref name="body"/> for 0 … <paramref name="count"/> − 1; rethrows the first failure, or cancellation.</summary>
    public void For(int count, Action<int> body, CancellationToken cancellationToken)
    {
        var threads = ScanThreads.Current;
        if (device is null || device.Readers <= 1 || count <= 1 || threads is null || threads.Count <= 1)
        {
            for (var i = 0; i < count; i++)
            {
                cancellationToken.ThrowIfCancellationRequested();
                body(i);
            }

            return;
        }

        new Run(threads, device, count, body, cancellationToken).Execute();
    }

    private sealed class Run(ScanThreads threads, DriveAccessSemaphore device, int count, Action<int> body, CancellationToken cancellationToken)
    {
        private int _next = -1;
        private int _helpers;
        private ExceptionDispatchInfo? _failure;

        public void Execute()
        {
            List<ScanThreads.Job>? helpers = null;
            while (true)
            {
                // A helper takes its token itself once it runs: a token taken here for a helper still queued behind
                // busy scan threads would sit idle while another set waits for it.
                // At most as many as tokens are free now: Available drops only once a helper has taken its token.
                for (var free = device.Available; free > 0 && Volatile.Read(ref _helpers) < device.Readers - 1 && Volatile.Read(ref _next) < count - 2; free--)
                {
                    Interlocked.Increment(ref _helpers);
                    (helpers ??= []).Add(threads.StartHelper(Help));
                }

                if (!TryRunNext())
                {
                    break;
                }
            }

            // A helper no thread has taken yet is withdrawn: every scan thread may be waiting like this one.
            // Helpers catch their own failures.
            foreach (var helper in helpers ?? [])
            {
                threads.WithdrawOrWait(helper);
            }

            _failure?.Throw();
            cancellationToken.ThrowIfCancellationRequested();
        }

        private void Help()
        {
            try
            {
                if (!device.TryEnter())
                {
                    return; // taken meanwhile; the owner may start another helper later
                }

                try
                {
                    while (TryRunNext())
                    {
                    }
                }
                finally
                {
                    device.Release();
                }
            }
            finally
            {
                Interlocked.Decrement(ref _helpers);
            }
        }

        private bool TryRunNext()
        {
            if (Volatile.Read(ref _failure) is not null || cancellationToken.IsCancellationRequested)
            {
                return false;
            }

            var index = Interlocked.Increment(ref _next);
            if (index >= count)
            {
                return false;
            }

            try
            {
                body(index);
            }
            catch (Exception ex)
            {
                Interlocked.CompareExchange(ref _failure, ExceptionDispatchInfo.Capture(ex), null);
                return false;
            }

            return true;
        }
    }
}
