using System.Collections.Concurrent;
using Dedup.Core.Reporting;
using Microsoft.Extensions.Logging;

namespace Dedup.Core.Diagnostics;

/// <summary>
/// One scan's errors: kept for the summary, and passed on at once to the caller's error callback and logger, so a
/// service sees a problem while a long scan runs, not only at its end.
/// </summary>
internal sealed class ScanErrorSink(IProgress<ScanError>? callback = null, ILogger? logger = null)
{
    private readonly ConcurrentQueue<ScanError> _errors = new();

    public int Count => _errors.Count;

    public void Report(string path, ScanErrorKind kind, string message) => Report(new ScanError(path, kind, message));

    public void Report(ScanError error)
    {
        _errors.Enqueue(error);
        if (logger is not null)
        {
            ScanLog.FileError(logger, error.Kind, error.Path, error.Message);
        }

        callback?.Report(error);
    }

    public ScanError[] ToArray() => _errors.ToArray();
}
