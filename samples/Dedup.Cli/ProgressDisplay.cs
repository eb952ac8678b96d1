using System.Diagnostics;
using Dedup.Cli.Output;
using Dedup.Core.Reporting;
using Spectre.Console;

namespace Dedup.Cli;

/// <summary>A one-line live progress display on standard error, shown only when it is a terminal.</summary>
internal sealed class ProgressDisplay : IProgress<ScanProgress>, IDisposable
{
    private readonly IAnsiConsole _console;
    private readonly Stopwatch _stopwatch = Stopwatch.StartNew();
    private long _lastDraw;

    private ProgressDisplay(IAnsiConsole console)
    {
        _console = console;
    }

    public static ProgressDisplay? CreateIfTerminal()
    {
        if (Console.IsErrorRedirected)
        {
            return null;
        }

        var console = AnsiConsole.Create(new AnsiConsoleSettings { Out = new AnsiConsoleOutput(Console.Error) });
        return new ProgressDisplay(console);
    }

    public void Report(ScanProgress value)
    {
        var now = _stopwatch.ElapsedMilliseconds;
        if (value.Phase != ScanPhase.Completed && now - Interlocked.Read(ref _lastDraw) < 100)
        {
            return;
        }

        Interlocked.Exchange(ref _lastDraw, now);
        var seconds = Math.Max(0.001, _stopwatch.Elapsed.TotalSeconds);
        var rate = TextReportWriter.Format((long)(value.BytesRead / seconds)) + "/s";
        var line = $"[grey]{value.Phase,-11}[/] files [bold]{value.FilesScanned:N0}[/]  read [bold]{Markup.Escape(TextReportWriter.Format(value.BytesRead))}[/] ({Markup.Escape(rate)})  groups [bold]{value.GroupsFound:N0}[/]  errors {value.Errors}";
        lock (_console)
        {
            _console.Write(new ControlCode("\r\u001b[2K"));
            _console.Markup(line);
        }
    }

    public void Complete(ScanSummary summary)
    {
        lock (_console)
        {
            _console.Write(new ControlCode("\r\u001b[2K"));
            _console.MarkupLine($"[green]done[/] in {summary.Elapsed.TotalSeconds:0.00} s: {summary.FilesScanned:N0} files, {summary.Groups:N0} groups, {Markup.Escape(TextReportWriter.Format(summary.WastedBytes))} wasted");
        }
    }

    public void Dispose()
    {
    }
}
