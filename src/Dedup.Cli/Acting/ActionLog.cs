using System.Text;
using System.Text.Json;
using Dedup.Cli.Output;
using Dedup.Core.Linking;
using Dedup.Core.Paths;

namespace Dedup.Cli.Acting;

/// <summary>
/// What <c>link</c>/<c>delete</c> say about each action as it completes: <c>--log FILE</c> appends one JSON line per
/// action, flushed at once (an audit trail that survives an interrupted run, and enough to undo symbolic links:
/// <c>path</c> is the link, <c>kept</c> its target); <c>-v</c> prints each action; the terminal shows progress.
/// A line is <c>{"version":1,"time","status","kind","path","kept","bytes","reason"?}</c> (an interrupted run ends with
/// one <c>"status":"interrupted"</c> line instead of a line per action not started, see <see cref="Interrupted"/>), with <c>pathBytes</c> and
/// <c>keptBytes</c> (base64 of the exact bytes) beside a path that is not valid UTF-8, as in the JSON report
/// (docs/usage.md). Readers ignore fields they do not know; a change that old readers would misread raises the version.
/// </summary>
/// <param name="display">The terminal's progress line, if any.</param>
/// <param name="log">The <c>--log</c> file, if any.</param>
/// <param name="verbose">Where <c>-v</c> prints each action (standard output), or <see langword="null"/>.</param>
internal sealed class ActionLog(ApplyProgressDisplay? display, Stream? log, TextWriter? verbose) : IProgress<ApplyProgress>, IDisposable
{
    /// <summary>The version of a log line's format, its first field.</summary>
    public const int FormatVersion = 1;

    private readonly Utf8JsonWriter? _json = log is null ? null : new Utf8JsonWriter(log);

    public static FileStream OpenLog(FileInfo file) =>
        new(file.FullName, FileMode.Append, FileAccess.Write, FileShare.Read, 1, FileOptions.WriteThrough);

    public void Report(ApplyProgress value)
    {
        if (value.LastOutcome is { } outcome)
        {
            if (_json is not null)
            {
                WriteLine(outcome);
            }

            if (verbose is not null)
            {
                display?.Clear();
                verbose.WriteLine(outcome.ToString());
            }
        }

        display?.Report(value);
    }

    /// <summary>
    /// The one line for an interrupted run, in place of a line per action not started:
    /// <c>{"version":1,"time","status":"interrupted","done","notStarted","bytes":0,"reason"}</c>.
    /// </summary>
    public void Interrupted(Interruption interruption)
    {
        if (_json is null)
        {
            return;
        }

        var json = StartLine("interrupted");
        json.WriteNumber("done", interruption.Done);
        json.WriteNumber("notStarted", interruption.NotStarted);
        json.WriteNumber("bytes", 0);
        json.WriteString("reason", interruption.Message);
        EndLine();
    }

    private void WriteLine(DuplicateActionOutcome outcome)
    {
        var action = outcome.Action;
        var json = StartLine(outcome.Status.ToString().ToLowerInvariant());
        json.WriteString("kind", JsonNamingPolicy.CamelCase.ConvertName(action.Kind.ToString()));
        JsonPaths.WritePath(json, "path", action.Path.ToString());
        JsonPaths.WritePath(json, "kept", action.Kept.Path.ToString());
        json.WriteNumber("bytes", outcome.Status == DuplicateActionStatus.Done ? action.ReclaimableBytes : 0);
        if (outcome.Reason is not null)
        {
            json.WriteString("reason", outcome.Reason);
        }

        EndLine();
    }

    private Utf8JsonWriter StartLine(string status)
    {
        var json = _json!;
        json.Reset();
        json.WriteStartObject();
        json.WriteNumber("version", FormatVersion);
        json.WriteString("time", DateTime.UtcNow.ToString("O", System.Globalization.CultureInfo.InvariantCulture));
        json.WriteString("status", status);
        return json;
    }

    private void EndLine()
    {
        _json!.WriteEndObject();
        _json.Flush();
        log!.WriteByte((byte)'\n');
        log.Flush();
    }

    /// <summary>The first <paramref name="lines"/> lines of the plan, and where to see the rest.</summary>
    public static string Preview(DuplicateActionPlan plan, int lines)
    {
        using var writer = new StringWriter();
        plan.WriteTo(writer);
        var all = writer.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
        var preview = new StringBuilder();
        foreach (var line in all.Take(lines))
        {
            preview.Append("  ").AppendLine(line);
        }

        if (all.Length > lines)
        {
            preview.AppendLine($"  … {all.Length - lines} more lines: run the same command with --dry-run to see the whole plan");
        }

        return preview.ToString();
    }

    public void Dispose() => _json?.Dispose();
}
