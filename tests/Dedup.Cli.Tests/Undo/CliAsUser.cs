using System.Runtime.Versioning;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Undo;

/// <summary>
/// Runs the CLI as another user (<c>setpriv --reuid --regid --clear-groups</c>), as <see cref="CliAsNobody"/> does for
/// nobody, from a copy of the test output that user can reach; for undo run by the owner of some of the files.
/// </summary>
[SupportedOSPlatform("linux")]
internal sealed class CliAsUser : IDisposable
{
    private readonly uint _uid;
    private readonly TempTree _copy = new();

    public CliAsUser(uint uid)
    {
        _uid = uid;
        foreach (var file in Directory.EnumerateFiles(AppContext.BaseDirectory).Where(f => f.EndsWith(".dll", StringComparison.Ordinal) || Path.GetFileName(f).StartsWith("dedup.", StringComparison.Ordinal)))
        {
            File.Copy(file, _copy.PathOf(Path.GetFileName(file)));
        }

        CliAsNobody.MakeTraversable(_copy.Root);
    }

    public Task<(int ExitCode, string Stdout, string Stderr)> RunAsync(params string[] args)
    {
        string[] command = ["--reuid=" + _uid, "--regid=" + _uid, "--clear-groups", CliProcess.Dotnet, _copy.PathOf("dedup.dll"), .. args];
        return ProcessRunner.RunAsync("setpriv", command);
    }

    public void Dispose() => _copy.Dispose();
}
