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
        Assert.Equal((1.0, "completed"), Single(measurements, "dedup.scan.groups"));
        Assert.Equal((3.0, "completed"), Single(measurements, "dedup.scan.files"));
        Assert.Equal(((double)scan.Summary.BytesRead, "completed"), Single(measurements, "dedup.scan.bytes_read"));
        Assert.Equal((0.0, "completed"), Single(measurements, "dedup.scan.errors"));
        Assert.Single(measurements, m => m.Instrument == "dedup.scan.duration");
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
