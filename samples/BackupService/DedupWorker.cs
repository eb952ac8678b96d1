using System.Diagnostics;
using Dedup.Core;
using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace BackupService;

/// <summary>How one run ended; with <c>--once</c> it is the process's exit code.</summary>
internal enum RunOutcome
{
    Completed = 0,
    CompletedWithErrors = 1,
    RootMissing = 2,
}

/// <summary>
/// Scans the configured roots with the application's one <see cref="DuplicateFinder"/>, each run with its own
/// progress and error sinks, and logs the groups, the bytes they waste and, if configured, a dry-run plan.
/// </summary>
internal sealed partial class DedupWorker(
    DuplicateFinder finder,
    IOptions<BackupServiceOptions> options,
    IHostApplicationLifetime lifetime,
    ILogger<DedupWorker> logger) : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        var settings = options.Value;
        while (!stoppingToken.IsCancellationRequested)
        {
            RunOutcome outcome;
            try
            {
                outcome = await RunOnceAsync(settings, stoppingToken);
            }
            catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
            {
                return;
            }

            if (settings.Once)
            {
                Environment.ExitCode = (int)outcome;
                lifetime.StopApplication();
                return;
            }

            LogNextRun(logger, DateTimeOffset.Now + settings.Interval);
            try
            {
                await Task.Delay(settings.Interval, stoppingToken);
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }

    private async Task<RunOutcome> RunOnceAsync(BackupServiceOptions settings, CancellationToken cancellationToken)
    {
        var errors = new LoggingErrorSink(logger);
        var callbacks = new ScanCallbacks { Progress = new ThrottledProgress(logger, settings.ProgressInterval), Errors = errors };
        var scan = finder.FindAsync(callbacks, cancellationToken);
        var groups = new List<DuplicateGroup>();
        try
        {
            await foreach (var group in scan)
            {
                groups.Add(group);
                LogGroup(logger, group.Files.Count, group.Size, string.Join(", ", group.Files.Select(f => f.Path.ToDisplayString())));
            }
        }
        catch (DirectoryNotFoundException e)
        {
            // The disk is not mounted (yet): nothing was read. Say so clearly and let the service live on.
            LogRootMissing(logger, PathText.EscapeMessage(e.Message), settings.Once ? "Exiting with code 2" : $"Retrying in {settings.Interval}");
            return RunOutcome.RootMissing;
        }

        var summary = scan.Summary;
        LogRunSummary(logger, groups.Count, summary.DuplicateFiles, summary.WastedBytes, summary.FilesScanned, summary.Errors.Count);
        if (summary.Cache is { } cache)
        {
            // Dedup:Cache:Path is set: the cache's use, and why it could not be used, if so.
            LogCache(logger, cache.Hits, cache.Misses, summary.BytesRead);
            foreach (var warning in cache.Warnings)
            {
                LogCacheWarning(logger, warning);
            }
        }

        if (settings.Action == "hardlink")
        {
            LogDryRun(groups);
        }

        return errors.Count == 0 ? RunOutcome.Completed : RunOutcome.CompletedWithErrors;
    }

    private void LogDryRun(List<DuplicateGroup> groups)
    {
        DuplicateActionPlan plan;
        try
        {
            plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.HardLink).Keep(KeepRule.PathOrder).Build().Plan(groups);
        }
        catch (NotSupportedException e)
        {
            LogPlanUnavailable(logger, e.Message);
            return;
        }

        // The plan's own dry-run text escapes every name; one log line per operation.
        var text = new StringWriter();
        plan.WriteTo(text);
        foreach (var line in text.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            LogPlanLine(logger, line);
        }

        LogPlanSummary(logger, plan.Actions.Count, plan.ReclaimableBytes);
    }

    [LoggerMessage(EventId = 1, Level = LogLevel.Information, Message = "Duplicates: {Count} copies of {Size} bytes: {Files}")]
    private static partial void LogGroup(ILogger logger, int count, long size, string files);

    [LoggerMessage(EventId = 2, Level = LogLevel.Information,
        Message = "Run finished: {Groups} groups, {DuplicateFiles} duplicate files, {WastedBytes} bytes reclaimable, {Files} files scanned, {Errors} errors")]
    private static partial void LogRunSummary(ILogger logger, int groups, long duplicateFiles, long wastedBytes, long files, int errors);

    [LoggerMessage(EventId = 8, Level = LogLevel.Information, Message = "Cache: {Hits} hits, {Misses} misses, {BytesRead} bytes read")]
    private static partial void LogCache(ILogger logger, long hits, long misses, long bytesRead);

    [LoggerMessage(EventId = 9, Level = LogLevel.Warning, Message = "Cache not used: {Reason}")]
    private static partial void LogCacheWarning(ILogger logger, string reason);

    [LoggerMessage(EventId = 3, Level = LogLevel.Error, Message = "Backup root not available: {Reason} {Next}.")]
    private static partial void LogRootMissing(ILogger logger, string reason, string next);

    [LoggerMessage(EventId = 4, Level = LogLevel.Information, Message = "Next run at {Next:u}")]
    private static partial void LogNextRun(ILogger logger, DateTimeOffset next);

    [LoggerMessage(EventId = 5, Level = LogLevel.Information, Message = "Dry run (hardlink): {Line}")]
    private static partial void LogPlanLine(ILogger logger, string line);

    [LoggerMessage(EventId = 6, Level = LogLevel.Information, Message = "Dry run (hardlink): {Actions} actions would reclaim {Bytes} bytes; nothing was changed")]
    private static partial void LogPlanSummary(ILogger logger, int actions, long bytes);

    [LoggerMessage(EventId = 7, Level = LogLevel.Warning, Message = "Dry run (hardlink) not possible here: {Reason}")]
    private static partial void LogPlanUnavailable(ILogger logger, string reason);

    /// <summary>Logs a progress line at most once per interval; the scan calls it about ten times a second.</summary>
    private sealed partial class ThrottledProgress(ILogger logger, TimeSpan interval) : IProgress<ScanProgress>
    {
        private readonly Stopwatch _clock = Stopwatch.StartNew();
        private long _nextTicks;

        public void Report(ScanProgress value)
        {
            var now = _clock.Elapsed.Ticks;
            var next = Interlocked.Read(ref _nextTicks);
            // Called on the scan's threads: only the caller that moves the deadline logs.
            if (now >= next && Interlocked.CompareExchange(ref _nextTicks, now + interval.Ticks, next) == next)
            {
                LogProgress(logger, value.Phase, value.FilesScanned, value.BytesRead, value.GroupsFound, value.Errors);
            }
        }

        [LoggerMessage(EventId = 10, Level = LogLevel.Information, Message = "Progress: {Phase}, {Files} files, {BytesRead} bytes read, {Groups} groups, {Errors} errors")]
        private static partial void LogProgress(ILogger logger, ScanPhase phase, long files, long bytesRead, int groups, int errors);
    }

    /// <summary>Logs each per-path error as the scan meets it and counts them for the run's outcome.</summary>
    private sealed partial class LoggingErrorSink(ILogger logger) : IProgress<ScanError>
    {
        private int _count;

        public int Count => Volatile.Read(ref _count);

        public void Report(ScanError value)
        {
            Interlocked.Increment(ref _count);
            LogScanError(logger, value.Kind, PathText.Escape(value.Path), PathText.EscapeMessage(value.Message));
        }

        [LoggerMessage(EventId = 11, Level = LogLevel.Warning, Message = "Scan error: {Kind}: {Path}: {Reason}")]
        private static partial void LogScanError(ILogger logger, ScanErrorKind kind, string path, string reason);
    }
}
