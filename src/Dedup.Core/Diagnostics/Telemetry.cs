using System.Diagnostics;
using System.Diagnostics.Metrics;
using Dedup.Core.Reporting;

namespace Dedup.Core.Diagnostics;

/// <summary>The library's one activity source and meter; instruments are recorded once per scan, never per file.</summary>
internal static class Telemetry
{
    public static readonly ActivitySource Source = new(DedupDiagnostics.ActivitySourceName);

    private static readonly Meter s_meter = new(DedupDiagnostics.MeterName);
    private static readonly Counter<long> s_files = s_meter.CreateCounter<long>("dedup.scan.files", "{file}", "Files enumerated by scans");
    private static readonly Counter<long> s_bytesRead = s_meter.CreateCounter<long>("dedup.scan.bytes_read", "By", "Bytes read by scans");
    private static readonly Counter<long> s_groups = s_meter.CreateCounter<long>("dedup.scan.groups", "{group}", "Duplicate groups found");
    private static readonly Counter<long> s_errors = s_meter.CreateCounter<long>("dedup.scan.errors", "{error}", "Per-path problems met by scans");
    private static readonly Histogram<double> s_duration = s_meter.CreateHistogram<double>("dedup.scan.duration", "s", "Scan duration");

    /// <summary>Counts a finished scan; <paramref name="outcome"/> is completed, cancelled or failed.</summary>
    public static void RecordScan(ScanSummary summary, string outcome)
    {
        var tag = new KeyValuePair<string, object?>("dedup.outcome", outcome);
        s_files.Add(summary.FilesScanned, tag);
        s_bytesRead.Add(summary.BytesRead, tag);
        s_groups.Add(summary.Groups, tag);
        s_errors.Add(summary.Errors.Count, tag);
        s_duration.Record(summary.Elapsed.TotalSeconds, tag);
    }
}
