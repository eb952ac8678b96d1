namespace Dedup.Core.Tests.Infrastructure;

/// <summary>Runs the real <c>dedup</c> CLI (the build copied beside the tests) as a separate process.</summary>
public static class CliProcess
{
    public static string Dll => Path.Combine(AppContext.BaseDirectory, "dedup.dll");

    public static string Dotnet => Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? RequiresToolFactAttribute.FindOnPath("dotnet") ?? "dotnet";

    public static Task<(int ExitCode, string Stdout, string Stderr)> RunAsync(string[] args, string? workingDirectory = null, IReadOnlyDictionary<string, string>? environment = null)
        => ProcessRunner.RunAsync(Dotnet, [Dll, .. args], environment: environment, workingDirectory: workingDirectory);
}
