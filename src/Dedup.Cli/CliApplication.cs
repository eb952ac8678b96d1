using System.CommandLine;
using System.CommandLine.Invocation;
using System.CommandLine.Parsing;
using System.Runtime.InteropServices;

namespace Dedup.Cli;

/// <summary>Defines the <c>dedup</c> command line and maps parse failures to exit code 2.</summary>
internal static class CliApplication
{
    public static async Task<int> RunAsync(string[] args)
    {
        var root = new RootCommand("dedup: find duplicate files, exactly and fast, and replace them safely (hard links, reflinks, deletion); see man dedup.");
        root.Subcommands.Add(FindCommand.Create());
        root.Subcommands.Add(LinkCommand.Create());
        root.Subcommands.Add(DeleteCommand.Create());
        root.Subcommands.Add(UndoCommand.Create());
        root.Subcommands.Add(ReportCommand.Create());
        root.Subcommands.Add(CatalogCommand.Create());
        root.Subcommands.Add(CompletionCommand.Create(root));
        foreach (var version in root.Options.OfType<VersionOption>())
        {
            version.Action = new PrintVersion();
            version.Aliases.Add("-v"); // as most tools; link's and delete's -v (--verbose) is theirs, after the command
        }
        // No @response files: their text would be decoded by .NET, lossily for names that are not UTF-8, and an argument
        // naming one would be opened by such a lossy name (a different file's arguments, --yes included).
        var result = root.Parse(args, new ParserConfiguration { ResponseFileTokenReplacer = null });
        if (Selection.UsageCheck.Find(root, result) is { } mistake)
        {
            await Console.Error.WriteLineAsync($"dedup: {mistake} (see 'dedup --help')").ConfigureAwait(false);
            return ExitCodes.BadUsage;
        }

        if (result.Errors.Count > 0)
        {
            var reason = string.Join(' ', result.Errors[0].Message.Split((char[])['\n', '\r', '\t'], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
            await Console.Error.WriteLineAsync($"dedup: {reason} (see 'dedup --help')").ConfigureAwait(false);
            return ExitCodes.BadUsage;
        }

        // Ctrl-C and SIGTERM cancel the command, which then finishes on its own: it says what it had done in one line,
        // leaves an existing report as it was, and exits as a shell reports the signal: 130 (SIGINT) or 143 (SIGTERM),
        // whichever came first. (The parser's own handling would exit at once, while the command is still running, so
        // nothing would be said.)
        using var interrupted = new CancellationTokenSource();
        var signalExitCode = 0;
        using var sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, Interrupt);
        using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, Interrupt);
        var exitCode = await result.InvokeAsync(new InvocationConfiguration { ProcessTerminationTimeout = null }, interrupted.Token).ConfigureAwait(false);
        return interrupted.IsCancellationRequested && exitCode != ExitCodes.BadUsage ? Volatile.Read(ref signalExitCode) : exitCode;

        void Interrupt(PosixSignalContext context)
        {
            // A second signal ends the process at once (the default), for a command that does not stop.
            context.Cancel = !interrupted.IsCancellationRequested;
            Interlocked.CompareExchange(ref signalExitCode, context.Signal == PosixSignal.SIGTERM ? ExitCodes.Terminated : ExitCodes.Cancelled, 0);
            interrupted.Cancel();
        }
    }

    /// <summary>
    /// An exception's message as a user of the CLI should read it: without the parameter name and actual value that
    /// <see cref="ArgumentException"/> appends for programmers.
    /// </summary>
    public static string UsageMessage(Exception exception)
    {
        var message = exception.Message;
        if (exception is ArgumentException { ParamName: { } name })
        {
            message = message.Replace($" (Parameter '{name}')", string.Empty, StringComparison.Ordinal);
        }

        var actual = message.IndexOf("\nActual value was", StringComparison.Ordinal);
        return (actual >= 0 ? message[..actual] : message).Trim();
    }

    /// <summary>The program's name and version (<c>dedup 1.0.0 (commit)</c>, the version from version.txt), not only the assembly's version string.</summary>
    private sealed class PrintVersion : SynchronousCommandLineAction
    {
        public override int Invoke(ParseResult parseResult)
        {
            var informational = typeof(CliApplication).Assembly
                .GetCustomAttributes(typeof(System.Reflection.AssemblyInformationalVersionAttribute), false)
                .OfType<System.Reflection.AssemblyInformationalVersionAttribute>().FirstOrDefault()?.InformationalVersion ?? "unknown";
            var plus = informational.IndexOf('+', StringComparison.Ordinal);
            var version = plus < 0 ? informational : $"{informational[..plus]} ({informational[(plus + 1)..Math.Min(informational.Length, plus + 13)]})";
            parseResult.InvocationConfiguration.Output.WriteLine($"dedup {version}");
            return ExitCodes.Success;
        }
    }
}
