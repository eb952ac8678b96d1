using System.Diagnostics;
using Dedup.Cli.Output;
using Dedup.Core.Reporting;
using Spectre.Console;

namespace Dedup.Cli;

/// <summary>
/// A one-line live progress display on standard error, shown only when it is a terminal; plain (no bold or colour)
/// when the <c>NO_COLOR</c> environment variable is set and not empty (https://no-color.org). It shows counts only, never a name, and once the files are listed how much of the comparing is done, in per cent.
/// </summary>
internal sealed class ProgressDisplay : IProgress<ScanProgress>, IDisposable
{
    private readonly IAnsiConsole _console;
    private readonly bool _plain = !string.IsNullOrEmpty(Environment.GetEnvironmentVariable("NO_COLOR"));
    private readonly Stopwatch _stopwatch = Stopwatch.StartNew();
    private readonly bool _live;
    private long _lastDraw;

    private ProgressDisplay(IAnsiConsole console)
    {
        _console = console;

        // A terminal that cannot move the cursor (TERM=dumb) gets no live line, only the final one: redrawn lines
        // would run together there.
        _live = console.Profile.Capabilities.Ansi;
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
        if (!_live)
        {
            return;
        }

        var now = _stopwatch.ElapsedMilliseconds;
        if (value.Phase != ScanPhase.Completed && now - Interlocked.Read(ref _lastDraw) < 100)
        {
            return;
        }

        Interlocked.Exchange(ref _lastDraw, now);
        var seconds = Math.Max(0.001, _stopwatch.Elapsed.TotalSeconds);
        var rate = TextReportWriter.Format((long)(value.BytesRead / seconds)) + "/s";
        var percent = Percent(value) is { } known ? $"{known,3}%" : "    ";
        var line = $"[grey]{value.Phase,-11}[/] {percent}  files [bold]{value.FilesScanned:N0}[/]  read [bold]{Markup.Escape(TextReportWriter.Format(value.BytesRead))}[/] ({Markup.Escape(rate)})  groups [bold]{value.GroupsFound:N0}[/]  errors {value.Errors}";
        lock (_console)
        {
            _console.Write(new ControlCode("\r\u001b[2K"));
            Write(line);
        }
    }

    /// <summary>
    /// How much of the compare stage is done, by the size of the settled sets (by files when they are all empty), rounded
    /// down so 100 means done; <see langword="null"/> while the totals are unknown (listing).
    /// </summary>
    internal static int? Percent(ScanProgress value) =>
        value.BytesToCompare is not { } bytes || value.FilesToCompare is not { } files ? null
        : bytes > 0 ? (int)(value.BytesCompared * 100 / bytes)
        : files > 0 ? (int)(value.FilesCompared * 100 / files)
        : 100;

    public void Complete(ScanSummary summary)
    {
        lock (_console)
        {
            if (_live)
            {
                _console.Write(new ControlCode("\r\u001b[2K"));
            }

            Write($"[green]done[/] in {summary.Elapsed.TotalSeconds:0.00} s: {summary.FilesScanned:N0} files, {summary.Groups:N0} groups, {Markup.Escape(TextReportWriter.Format(summary.WastedBytes))} wasted{Environment.NewLine}");
        }
    }

    /// <summary>Writes <paramref name="markup"/> styled, or as plain text under <c>NO_COLOR</c>.</summary>
    private void Write(string markup)
    {
        if (_plain)
        {
            _console.Write(new Text(Markup.Remove(markup)));
        }
        else
        {
            _console.Markup(markup);
        }
    }

    public void Dispose()
    {
    }
}
