using System.Diagnostics;
using Dedup.Cli.Output;
using Dedup.Core.Linking;
using Spectre.Console;

namespace Dedup.Cli.Acting;

/// <summary>
/// The live one-line progress of <c>dedup link</c> and <c>dedup delete</c> on standard error, in the style of the
/// scan's <see cref="ProgressDisplay"/>: shown only when standard error is a terminal, plain under <c>NO_COLOR</c>,
/// counts only (never a name, so no file name can reach the terminal unescaped).
/// </summary>
internal sealed class ApplyProgressDisplay : IProgress<ApplyProgress>
{
    private readonly IAnsiConsole _console;
    private readonly bool _plain = !string.IsNullOrEmpty(Environment.GetEnvironmentVariable("NO_COLOR"));
    private readonly Stopwatch _stopwatch = Stopwatch.StartNew();
    private long _lastDraw = -1000;

    /// <param name="console">Standard error's console (tests: one writing to a string).</param>
    internal ApplyProgressDisplay(IAnsiConsole console)
    {
        _console = console;
    }

    /// <summary>A display when standard error is a terminal that can redraw a line (not TERM=dumb), else <see langword="null"/>.</summary>
    public static ApplyProgressDisplay? CreateIfTerminal()
    {
        if (Console.IsErrorRedirected)
        {
            return null;
        }

        var console = AnsiConsole.Create(new AnsiConsoleSettings { Out = new AnsiConsoleOutput(Console.Error) });
        return console.Profile.Capabilities.Ansi ? new ApplyProgressDisplay(console) : null;
    }

    public void Report(ApplyProgress value)
    {
        // Reported on the applying thread after every action: draw at most every 100 ms, and the last one always.
        var now = _stopwatch.ElapsedMilliseconds;
        if (value.Completed < value.Total && now - _lastDraw < 100)
        {
            return;
        }

        _lastDraw = now;
        var line = $"[grey]applying[/] [bold]{value.Completed:N0}[/]/{value.Total:N0}  done [bold]{value.Done:N0}[/]  skipped {value.Skipped:N0}  failed {value.Failed:N0}  reclaimed [bold]{Markup.Escape(TextReportWriter.Format(value.ReclaimedBytes))}[/]";
        _console.Write(new ControlCode("\r\u001b[2K"));
        Write(line);
    }

    /// <summary>Clears the line, so the command's own lines start at the left margin.</summary>
    public void Clear() => _console.Write(new ControlCode("\r\u001b[2K"));

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
}
