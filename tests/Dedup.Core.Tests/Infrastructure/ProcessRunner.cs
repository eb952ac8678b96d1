using System.Diagnostics;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>Runs a process to the end (killed after a time limit) and returns its exit code and output.</summary>
public static class ProcessRunner
{
    public static async Task<(int ExitCode, string Stdout, string Stderr)> RunAsync(string file, IEnumerable<string> args, int timeoutSeconds = 120)
    {
        var psi = new ProcessStartInfo(file) { RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true };
        foreach (var arg in args)
        {
            psi.ArgumentList.Add(arg);
        }

        using var process = Process.Start(psi)!;
        process.StandardInput.Close();
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
            throw new TimeoutException($"{file} {string.Join(' ', psi.ArgumentList)} did not finish in {timeoutSeconds} s.");
        }

        return (process.ExitCode, await stdout, await stderr);
    }
}
