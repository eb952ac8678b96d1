using System.Runtime.Versioning;

namespace Dedup.Core.Tests.Infrastructure;

/// <summary>
/// Runs the sample CLI as user nobody (<c>setpriv</c>), for tests that need real permission errors (root reads
/// chmod-000 files) or an unprivileged process. The CLI runs from a copy of the test output in a folder nobody
/// can reach; the tests make their own data folders reachable with <see cref="MakeTraversable"/>.
/// </summary>
[SupportedOSPlatform("linux")]
public sealed class CliAsNobody : IDisposable
{
    private readonly TempTree _copy = new();

    public CliAsNobody()
    {
        foreach (var file in Directory.EnumerateFiles(AppContext.BaseDirectory).Where(f => f.EndsWith(".dll", StringComparison.Ordinal) || Path.GetFileName(f).StartsWith("dedup.", StringComparison.Ordinal)))
        {
            File.Copy(file, _copy.PathOf(Path.GetFileName(file)));
        }

        // The native SQLite of --cache (Dedup.Core.Sqlite), found by the runtime under runtimes/RID/native.
        var native = Path.Combine(AppContext.BaseDirectory, "runtimes", "linux-x64", "native");
        if (Directory.Exists(native))
        {
            Directory.CreateDirectory(_copy.PathOf("runtimes/linux-x64/native"));
            foreach (var file in Directory.EnumerateFiles(native))
            {
                File.Copy(file, _copy.PathOf(Path.Combine("runtimes/linux-x64/native", Path.GetFileName(file))));
            }
        }

        MakeTraversable(_copy.Root);
    }

    /// <summary>Runs <c>dedup ARGS</c> as nobody; with <paramref name="straceLog"/>, under <c>strace -f</c> (as root, tracing the unprivileged CLI).</summary>
    public Task<(int ExitCode, string Stdout, string Stderr)> RunAsync(IEnumerable<string> args, string? straceLog = null)
    {
        var dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? RequiresToolFactAttribute.FindOnPath("dotnet") ?? "dotnet";
        string[] asNobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", dotnet, _copy.PathOf("dedup.dll"), .. args];
        return straceLog is null
            ? ProcessRunner.RunAsync(asNobody[0], asNobody[1..])
            : ProcessRunner.RunAsync("strace", ["-f", "-qq", "-e", "trace=openat,openat2", "-o", straceLog, .. asNobody]);
    }

    /// <summary>Opens a folder and its ancestors up to the temp folder for others (755), so nobody can reach it.</summary>
    public static void MakeTraversable(string folder)
    {
        var stop = Path.TrimEndingDirectorySeparator(Path.GetTempPath());
        for (var dir = new DirectoryInfo(folder); dir is not null && dir.FullName != stop && dir.FullName != "/"; dir = dir.Parent)
        {
            dir.UnixFileMode |= UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute
                | UnixFileMode.GroupRead | UnixFileMode.GroupExecute | UnixFileMode.OtherRead | UnixFileMode.OtherExecute;
        }
    }

    public void Dispose() => _copy.Dispose();
}
