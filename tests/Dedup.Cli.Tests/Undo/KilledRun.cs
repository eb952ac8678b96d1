using System.Diagnostics;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Undo;

/// <summary>How a run that was to be killed ended.</summary>
/// <param name="Killed">Whether SIGKILL ended it (not an exit of its own).</param>
/// <param name="ExitCode">The exit code (137 when killed).</param>
/// <param name="Output">Its standard output and error, for messages.</param>
/// <param name="Moment">Where it was killed, in words.</param>
internal sealed record KillOutcome(bool Killed, int ExitCode, string Output, string Moment);

/// <summary>
/// Runs the dedup CLI and kills it with SIGKILL (no chance to clean up) at a chosen moment: when the journal has grown to
/// a given number of lines (plus a spin of some microseconds, so the kill lands anywhere between two lines), or, under
/// <c>strace</c>, on entry to the Nth call of a system call (the step is then exactly not made).
/// </summary>
internal static class KilledRun
{
    private const int KilledBySigkill = 128 + 9;

    /// <summary>Kills the run once <paramref name="journal"/> holds <paramref name="lines"/> lines and <paramref name="spinMicroseconds"/> more have passed.</summary>
    public static async Task<KillOutcome> AtJournalLineAsync(string[] args, IReadOnlyDictionary<string, string> environment, string journal, int lines, int spinMicroseconds)
    {
        using var process = Start(CliProcess.Dotnet, [CliProcess.Dll, .. args], environment);
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        var seen = await Task.Factory.StartNew(
            () =>
            {
                // Its own thread, polling without sleeps: a thread-pool timer would fire late on a busy machine.
                var count = 0;
                long read = 0;
                var buffer = new byte[65536];
                while (!process.HasExited)
                {
                    if (File.Exists(journal))
                    {
                        using var file = new FileStream(journal, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
                        file.Position = read;
                        for (int n; (n = file.Read(buffer)) > 0; read += n)
                        {
                            count += buffer.AsSpan(0, n).Count((byte)'\n');
                        }
                    }

                    if (count >= lines)
                    {
                        var spin = Stopwatch.StartNew();
                        while (spin.Elapsed.TotalMicroseconds < spinMicroseconds)
                        {
                            Thread.SpinWait(20);
                        }

                        try
                        {
                            process.Kill();
                        }
                        catch (InvalidOperationException)
                        {
                        }

                        return count;
                    }

                    Thread.Yield();
                }

                return -1;
            },
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);

        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(3));
        await process.WaitForExitAsync(timeout.Token);
        var output = await stdout + await stderr;
        var killed = seen >= 0 && process.ExitCode == KilledBySigkill;
        return new KillOutcome(killed, process.ExitCode, output, $"after journal line {lines} (+{spinMicroseconds} µs)");
    }

    /// <summary>
    /// Runs under <c>strace</c> and kills the run on entry to the <paramref name="n"/>th call of <paramref name="syscall"/>
    /// (renameat2, unlinkat, fdatasync...), before the kernel makes it.
    /// </summary>
    public static async Task<KillOutcome> AtSyscallAsync(string[] args, IReadOnlyDictionary<string, string> environment, string syscall, int n)
    {
        var strace = RequiresToolFactAttribute.FindOnPath("strace") ?? throw new InvalidOperationException("strace is not installed: .ci/run installs it");
        string[] traced = ["-f", "-qq", "-o", "/dev/null", "-e", "trace=" + syscall, "-e", $"inject={syscall}:signal=KILL:when={n}", CliProcess.Dotnet, CliProcess.Dll, .. args];
        var (exit, stdout, stderr) = await ProcessRunner.RunAsync(strace, traced, timeoutSeconds: 180, environment: environment);

        // strace exits as its tracee did: killed by SIGKILL shows as 128 + 9.
        return new KillOutcome(exit == KilledBySigkill, exit, stdout + stderr, $"on entry to {syscall} #{n}");
    }

    private static Process Start(string file, IEnumerable<string> args, IReadOnlyDictionary<string, string> environment)
    {
        var psi = new ProcessStartInfo(file) { RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true };
        foreach (var (name, value) in environment)
        {
            psi.Environment[name] = value;
        }

        foreach (var arg in args)
        {
            psi.ArgumentList.Add(arg);
        }

        var process = Process.Start(psi) ?? throw new InvalidOperationException($"could not start {file}");
        process.StandardInput.Close();
        return process;
    }
}
