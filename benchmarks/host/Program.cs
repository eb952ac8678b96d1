// A host that stays responsive while it scans (#13): a 50 ms Task.Delay heartbeat runs on the shared thread pool
// during a scan at default settings, and a scan cancelled after 300 ms must end promptly and yield nothing more.
// Usage: dotnet run -c Release --project benchmarks/host -- <root> [heartbeat|cancel] [runs]
using System.Diagnostics;
using Dedup.Core;

var root = args.Length > 0 ? args[0] : "/usr";
var mode = args.Length > 1 ? args[1] : "heartbeat";
var runs = args.Length > 2 ? int.Parse(args[2], System.Globalization.CultureInfo.InvariantCulture) : 3;

// One warm-up scan (JIT, page cache, dentries) that is not measured.
await ScanAsync(root, CancellationToken.None, () => { });

for (var run = 1; run <= runs; run++)
{
    if (mode == "cancel")
    {
        await CancelAsync(root, run);
    }
    else
    {
        await HeartbeatAsync(root, run);
    }
}

static async Task HeartbeatAsync(string root, int run)
{
    var lateness = new List<double>();
    var trace = Environment.GetEnvironmentVariable("HOSTBENCH_TRACE") == "1";
    var origin = Stopwatch.GetTimestamp();
    using var stop = new CancellationTokenSource();
    var heartbeat = Task.Run(async () =>
    {
        while (!stop.IsCancellationRequested)
        {
            var started = Stopwatch.GetTimestamp();
            await Task.Delay(50);
            var late = Stopwatch.GetElapsedTime(started).TotalMilliseconds - 50;
            lateness.Add(late);
            if (trace && late > 15)
            {
                Console.WriteLine($"  late {late:F1} ms at {Stopwatch.GetElapsedTime(origin).TotalMilliseconds:F0} ms, gen0={GC.CollectionCount(0)} gen2={GC.CollectionCount(2)} pool={ThreadPool.ThreadCount}");
            }
        }
    });

    double threadMax = 0;
    var probe = new Thread(() =>
    {
        while (!stop.IsCancellationRequested)
        {
            var t0 = Stopwatch.GetTimestamp();
            Thread.Sleep(10);
            threadMax = Math.Max(threadMax, Stopwatch.GetElapsedTime(t0).TotalMilliseconds - 10);
        }
    }) { IsBackground = true };
    probe.Start(); // the machine's floor: a plain thread's lateness, from CPU load and GC pauses alone

    await Task.Delay(200); // the heartbeat is running before the scan starts
    var scanStarted = Stopwatch.GetTimestamp();
    if (trace)
    {
        Console.WriteLine($"  scan starts at {Stopwatch.GetElapsedTime(origin).TotalMilliseconds:F0} ms");
    }

    var first = true;
    var groups = await ScanAsync(root, CancellationToken.None, () =>
    {
        if (trace && first)
        {
            first = false;
            Console.WriteLine($"  first group at {Stopwatch.GetElapsedTime(origin).TotalMilliseconds:F0} ms");
        }
    });
    var scanTime = Stopwatch.GetElapsedTime(scanStarted);
    await stop.CancelAsync();
    await heartbeat;

    lateness.Sort();

    Console.WriteLine(
        $"heartbeat run={run} scan_s={scanTime.TotalSeconds:F2} groups={groups} beats={lateness.Count} " +
        $"late_p50_ms={Percentile(lateness, 0.50):F1} late_p99_ms={Percentile(lateness, 0.99):F1} late_max_ms={lateness[^1]:F1} floor_max_ms={threadMax:F1}");
}

static async Task CancelAsync(string root, int run)
{
    using var cts = new CancellationTokenSource();
    var started = Stopwatch.GetTimestamp();
    long fired = 0;
    using var registration = cts.Token.Register(() => Interlocked.Exchange(ref fired, Stopwatch.GetTimestamp()));
    cts.CancelAfter(300);
    var after = 0;
    var outcome = "completed";
    try
    {
        await ScanAsync(root, cts.Token, () =>
        {
            if (Interlocked.Read(ref fired) != 0)
            {
                after++;
            }
        });
    }
    catch (OperationCanceledException)
    {
        outcome = "cancelled";
    }

    var ended = Stopwatch.GetTimestamp();
    var firedAt = Interlocked.Read(ref fired);
    var firedMs = firedAt == 0 ? double.NaN : Stopwatch.GetElapsedTime(started, firedAt).TotalMilliseconds;
    var stopMs = firedAt == 0 ? double.NaN : Stopwatch.GetElapsedTime(firedAt, ended).TotalMilliseconds;
    Console.WriteLine($"cancel run={run} outcome={outcome} fired_ms={firedMs:F0} cancel_to_end_ms={stopMs:F1} groups_after_cancel={after}");
}

static async Task<int> ScanAsync(string root, CancellationToken cancellationToken, Action onGroup)
{
    var finder = new DuplicateFinderBuilder().AddRoot(root).Build(); // default settings
    var groups = 0;
    await foreach (var group in finder.FindAsync(cancellationToken))
    {
        groups++;
        onGroup();
    }

    return groups;
}

static double Percentile(List<double> sorted, double p) =>
    sorted.Count == 0 ? double.NaN : sorted[Math.Min(sorted.Count - 1, (int)Math.Ceiling(p * sorted.Count) - 1)];
