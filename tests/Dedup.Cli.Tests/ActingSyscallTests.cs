using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;

namespace Dedup.Cli.Tests;

/// <summary>
/// Issue #37 point 8: acting opens each folder once per run, not once per action (the run keeps the folders it opened
/// below the roots), and a group's kept file once for its actions, counted with strace on the real CLI.
/// </summary>
public sealed class ActingSyscallTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(5_000, 381);

    [RequiresToolFact("strace")]
    public async Task Hard_linking_six_copies_in_one_folder_opens_that_folder_once()
    {
        using var tree = new LinkTree();
        for (var i = 0; i < 7; i++)
        {
            tree.Write($"root/deep/f{i}.bin", Content);
        }

        var trace = Path.GetTempFileName();
        try
        {
            var dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? RequiresToolFactAttribute.FindOnPath("dotnet") ?? "dotnet";
            var (exit, stdout, stderr) = await ProcessRunner.RunAsync(
                "strace",
                ["-f", "-e", "trace=openat", "-o", trace, dotnet, Path.Combine(AppContext.BaseDirectory, "dedup.dll"), "link", "--mode", "hard", "--yes", tree.PathOf("root")]);

            Assert.True(exit == 0, stderr);
            Assert.Contains("6 done, 0 skipped, 0 failed", stdout, StringComparison.Ordinal);
            // The actions' opens of the folder: O_PATH, one name at a time, after the run walked its root from "/".
            var lines = File.ReadAllLines(trace);
            var run = Array.FindIndex(lines, l => l.Contains("openat(AT_FDCWD, \"/\", O_RDONLY|O_CLOEXEC|O_PATH|O_DIRECTORY)", StringComparison.Ordinal));
            Assert.True(run >= 0, "the run's walk from / was not traced");
            var opens = lines.Skip(run).Count(l => l.Contains("\"deep\", O_RDONLY|O_NOFOLLOW|O_CLOEXEC|O_PATH|O_DIRECTORY)", StringComparison.Ordinal));
            Assert.Equal(1, opens);
            // The kept file (first in path order) is opened once for the group's six actions, and checked by fstat for each.
            Assert.Equal(1, lines.Skip(run).Count(l => l.Contains("\"f0.bin\", O_RDONLY|O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC)", StringComparison.Ordinal)));
        }
        finally
        {
            File.Delete(trace);
        }
    }
}
