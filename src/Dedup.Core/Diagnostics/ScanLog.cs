using Dedup.Core.Reporting;
using Microsoft.Extensions.Logging;

namespace Dedup.Core.Diagnostics;

/// <summary>
/// The scan's log events (source-generated: no formatting unless the level is on). Event ids are stable and unique in the library: 1xx scans;
/// 2xx applying and 3xx planning (Linking/LinkingLog).
/// </summary>
internal static partial class ScanLog
{
    [LoggerMessage(EventId = 100, EventName = "ScanStarted", Level = LogLevel.Information, Message = "Scan started: {RootCount} root(s) ({Roots}), {Mode}")]
    public static partial void ScanStarted(ILogger logger, int rootCount, string roots, string mode);

    [LoggerMessage(EventId = 101, EventName = "ScanCompleted", Level = LogLevel.Information,
        Message = "Scan completed in {ElapsedMs} ms: {Files} files, {Groups} groups, {WastedBytes} bytes in duplicates, {BytesRead} bytes read, {Errors} errors")]
    public static partial void ScanCompleted(ILogger logger, long elapsedMs, long files, int groups, long wastedBytes, long bytesRead, int errors);

    [LoggerMessage(EventId = 102, EventName = "ScanCancelled", Level = LogLevel.Information, Message = "Scan cancelled after {ElapsedMs} ms: {Files} files, {Groups} groups so far")]
    public static partial void ScanCancelled(ILogger logger, long elapsedMs, long files, int groups);

    [LoggerMessage(EventId = 103, EventName = "ScanFailed", Level = LogLevel.Error, Message = "Scan failed after {ElapsedMs} ms")]
    public static partial void ScanFailed(ILogger logger, Exception? exception, long elapsedMs);

    [LoggerMessage(EventId = 104, EventName = "FileError", Level = LogLevel.Warning, Message = "{Kind}: {Path}: {Reason}")]
    public static partial void FileError(ILogger logger, ScanErrorKind kind, string path, string reason);

    [LoggerMessage(EventId = 105, EventName = "RootMissing", Level = LogLevel.Error, Message = "{Reason}")]
    public static partial void RootMissing(ILogger logger, string reason);

    [LoggerMessage(EventId = 106, EventName = "CacheWarning", Level = LogLevel.Warning, Message = "{Reason}")]
    public static partial void CacheWarning(ILogger logger, string reason, Exception? exception);

    [LoggerMessage(EventId = 107, EventName = "CatalogFailed", Level = LogLevel.Warning, Message = "{Reason}")]
    public static partial void CatalogFailed(ILogger logger, string reason);
}
