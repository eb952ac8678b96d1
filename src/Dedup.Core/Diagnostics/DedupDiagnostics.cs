namespace Dedup.Core.Diagnostics;

/// <summary>
/// The names under which the library publishes traces and metrics (System.Diagnostics), for an
/// OpenTelemetry set-up (<c>AddSource</c>, <c>AddMeter</c>) or an <see cref="System.Diagnostics.ActivityListener"/>.
/// </summary>
/// <remarks>
/// Each scan is one activity named <see cref="ScanActivityName"/>; each <c>ApplyAsync</c> of a plan one named
/// <see cref="ApplyActivityName"/>. The meter's instruments are counted once per scan, when it ends, so they cost
/// nothing per file: <c>dedup.scan.files</c>, <c>dedup.scan.bytes_read</c> (By), <c>dedup.scan.groups</c>,
/// <c>dedup.scan.errors</c> (counters) and <c>dedup.scan.duration</c> (s, histogram).
/// </remarks>
public static class DedupDiagnostics
{
    /// <summary>The <see cref="System.Diagnostics.ActivitySource"/> name: <c>Dedup.Core</c>.</summary>
    public const string ActivitySourceName = "Dedup.Core";

    /// <summary>The <see cref="System.Diagnostics.Metrics.Meter"/> name: <c>Dedup.Core</c>.</summary>
    public const string MeterName = "Dedup.Core";

    /// <summary>The activity of one scan: <c>dedup.scan</c>.</summary>
    public const string ScanActivityName = "dedup.scan";

    /// <summary>The activity of one plan's apply: <c>dedup.apply</c>.</summary>
    public const string ApplyActivityName = "dedup.apply";
}
