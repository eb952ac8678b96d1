using System.Diagnostics;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>
/// Runs an external process to the end (killed after a time limit) with standard input closed and both outputs
/// captured, and returns its exit code and output. The one place tests start processes.
/// </summary>
public static class ProcessRunner
{
    /// <summary>Runs <paramref name="file"/> and returns its exit code and output; a <see cref="TimeoutException"/> if it does not finish in time.</summary>
    public static (int ExitCode, string Stdout, string Stderr) Run(string file, IEnumerable<string> args, string? workingDirectory = null, int timeoutSeconds = 120)
    {
        using var process = Start(file, args, workingDirectory);
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(TimeSpan.FromSeconds(timeoutSeconds)))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{Describe(process)} did not finish in {timeoutSeconds} s.");
        }

        process.WaitForExit();
        return (process.ExitCode, stdout.GetAwaiter().GetResult(), stderr.GetAwaiter().GetResult());
    }

    /// <summary>Runs <paramref name="file"/> and returns its standard output; an <see cref="InvalidOperationException"/> (with the error output) if it exits non-zero.</summary>
    public static string RunChecked(string file, params string[] args)
    {
        var (exitCode, stdout, stderr) = Run(file, args);
        if (exitCode != 0)
        {
            throw new InvalidOperationException($"{file} {string.Join(' ', args)} exited {exitCode}: {stderr}");
        }

        return stdout;
    }

    /// <summary>The asynchronous <see cref="Run"/>.</summary>
    public static async Task<(int ExitCode, string Stdout, string Stderr)> RunAsync(string file, IEnumerable<string> args, int timeoutSeconds = 120, IReadOnlyDictionary<string, string>? environment = null, string? workingDirectory = null)
    {
        using var process = Start(file, args, workingDirectory, environment);
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(timeoutSeconds));
        try
        {
            await process.WaitForExitAsync(cts.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{Describe(process)} did not finish in {timeoutSeconds} s.");
        }

        return (process.ExitCode, await stdout, await stderr);
    }

    /// <summary>
    /// Runs <paramref name="file"/> with extra environment variables and kills it (SIGKILL, no chance to clean up)
    /// after <paramref name="killAfter"/> unless it exited by then; returns whether it was killed, and its exit code otherwise.
    /// </summary>
    public static async Task<(bool Killed, int ExitCode, string Stderr)> RunAndKillAsync(string file, IEnumerable<string> args, IReadOnlyDictionary<string, string> environment, TimeSpan killAfter)
    {
        using var process = Start(file, args, workingDirectory: null, environment);
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        // The kill is timed on a thread of its own: a thread-pool timer fires late when the pool is busy (the whole
        // suite runs in parallel), and the run would then finish before any kill.
        var killed = await Task.Factory.StartNew(
            () =>
            {
                if (process.WaitForExit(killAfter))
                {
                    return false;
                }

                process.Kill();
                return true;
            },
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);

        await process.WaitForExitAsync();
        await stdout;
        const int KilledBySigkill = 128 + 9; // an exit of its own just as the time ran out does not count as killed
        return (killed && process.ExitCode == KilledBySigkill, process.ExitCode, await stderr);
    }

    private static Process Start(string file, IEnumerable<string> args, string? workingDirectory, IReadOnlyDictionary<string, string>? environment = null)
    {
        var psi = new ProcessStartInfo(file) { RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true };
        foreach (var (name, value) in environment ?? new Dictionary<string, string>())
        {
            psi.Environment[name] = value;
        }

        foreach (var arg in args)
        {
            psi.ArgumentList.Add(arg);
        }

        if (workingDirectory is not null)
        {
            psi.WorkingDirectory = workingDirectory;
        }

        var process = Process.Start(psi) ?? throw new InvalidOperationException($"could not start {file}");
        process.StandardInput.Close();
        return process;
    }

    private static string Describe(Process process) => $"{process.StartInfo.FileName} {string.Join(' ', process.StartInfo.ArgumentList)}";
}
