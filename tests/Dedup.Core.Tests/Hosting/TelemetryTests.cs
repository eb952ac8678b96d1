using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using Dedup.Core.Diagnostics;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Hosting;

/// <summary>The meter and the activity source are process-wide: these tests run alone, so every scan seen is theirs.</summary>
[CollectionDefinition(nameof(TelemetryTests), DisableParallelization = true)]
public sealed class TelemetryCollection;

[Collection(nameof(TelemetryTests))]
public sealed class TelemetryTests
{
    [Fact]
    public async Task A_scan_is_one_activity_and_its_totals_are_counted_once_when_it_ends()
    {
        using var tree = new TempTree();
        tree.Write("a", "same");
        tree.Write("b", "same");
        tree.Write("c", "other");
        var stopped = new ConcurrentQueue<Activity>();
        using var activities = new ActivityListener
        {
            ShouldListenTo = source => source.Name == DedupDiagnostics.ActivitySourceName,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = stopped.Enqueue,
        };
        ActivitySource.AddActivityListener(activities);
        var measurements = new ConcurrentQueue<(string Instrument, double Value, object? Outcome)>();
        using var meters = new MeterListener
        {
            InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == DedupDiagnostics.MeterName)
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            },
        };
        meters.SetMeasurementEventCallback<long>((instrument, value, tags, _) => measurements.Enqueue((instrument.Name, value, Outcome(tags))));
        meters.SetMeasurementEventCallback<double>((instrument, value, tags, _) => measurements.Enqueue((instrument.Name, value, Outcome(tags))));
        meters.Start();

        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync();
        await foreach (var unused in scan)
        {
        }

        var activity = Assert.Single(stopped, a => a.OperationName == DedupDiagnostics.ScanActivityName);
        Assert.Equal("completed", activity.GetTagItem("dedup.outcome"));
        Assert.Equal(3L, activity.GetTagItem("dedup.files"));
        Assert.Equal(1, activity.GetTagItem("dedup.groups"));
        Assert.Equal(1, activity.GetTagItem("dedup.roots"));
        Assert.Equal("whole-file", activity.GetTagItem("dedup.mode"));
        Assert.Equal(0, activity.GetTagItem("dedup.errors"));
        Assert.Equal(ActivityStatusCode.Ok, activity.Status);
        Assert.Equal((1.0, "completed"), Single(measurements, "dedup.scan.groups"));
        Assert.Equal((3.0, "completed"), Single(measurements, "dedup.scan.files"));
        Assert.Equal(((double)scan.Summary.BytesRead, "completed"), Single(measurements, "dedup.scan.bytes_read"));
        Assert.Equal((0.0, "completed"), Single(measurements, "dedup.scan.errors"));
        Assert.Single(measurements, m => m.Instrument == "dedup.scan.duration");
    }

    [Fact]
    public async Task A_failed_scan_is_an_error_activity_and_a_logged_failure_and_media_mode_says_so()
    {
        using var tree = new TempTree();
        tree.Write("a", "same");
        var stopped = new ConcurrentQueue<Activity>();
        using var activities = new ActivityListener
        {
            ShouldListenTo = source => source.Name == DedupDiagnostics.ActivitySourceName,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = stopped.Enqueue,
        };
        ActivitySource.AddActivityListener(activities);
        var logger = new CollectingLogger();

        var failing = new DuplicateFinderBuilder().AddRoot(tree.Root).UseFileEnumerator(new FailingEnumerator()).UseMediaMode().UseLogger(logger).Build();
        var error = await Assert.ThrowsAsync<IOException>(async () =>
        {
            await foreach (var unused in failing.FindAsync())
            {
            }
        });

        Assert.Equal("the snapshot is gone", error.Message);
        var activity = Assert.Single(stopped);
        Assert.Equal("failed", activity.GetTagItem("dedup.outcome"));
        Assert.Equal("media", activity.GetTagItem("dedup.mode"));
        Assert.Equal(ActivityStatusCode.Error, activity.Status);
        Assert.Contains("media mode", logger.Entries.First().Message, StringComparison.Ordinal);
        var failed = logger.Entries.Last();
        Assert.Equal((103, Microsoft.Extensions.Logging.LogLevel.Error), (failed.Id.Id, failed.Level));
        Assert.Same(error, failed.Exception);
    }

    private sealed class FailingEnumerator : Dedup.Core.Enumeration.IFileEnumerator
    {
        public async IAsyncEnumerable<Dedup.Core.Enumeration.ScannedFile> EnumerateAsync(
            Dedup.Core.Enumeration.FileEnumerationContext context,
            [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken = default)
        {
            await Task.Yield();
            throw new IOException("the snapshot is gone");
#pragma warning disable CS0162 // an iterator needs a yield
            yield break;
#pragma warning restore CS0162
        }
    }

    private static (double Value, object? Outcome) Single(IEnumerable<(string Instrument, double Value, object? Outcome)> measurements, string instrument)
    {
        var only = Assert.Single(measurements, m => m.Instrument == instrument);
        return (only.Value, only.Outcome);
    }

    private static object? Outcome(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        foreach (var tag in tags)
        {
            if (tag.Key == "dedup.outcome")
            {
                return tag.Value;
            }
        }

        return null;
    }
}
