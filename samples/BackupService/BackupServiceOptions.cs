namespace BackupService;

/// <summary>
/// The service's own settings, read from the "BackupService" section: the "Dedup" section holds scan options only
/// (a key the library does not know there stops the host at start).
/// </summary>
internal sealed class BackupServiceOptions
{
    /// <summary>What to do with duplicates: <c>none</c> (report only) or <c>hardlink</c> (log a dry-run plan).</summary>
    public string Action { get; set; } = "none";

    /// <summary>Time between two scans.</summary>
    public TimeSpan Interval { get; set; } = TimeSpan.FromHours(6);

    /// <summary>Least time between two progress lines in the log.</summary>
    public TimeSpan ProgressInterval { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>Run one scan and stop (also the <c>--once</c> switch); the exit code tells how it went.</summary>
    public bool Once { get; set; }
}
