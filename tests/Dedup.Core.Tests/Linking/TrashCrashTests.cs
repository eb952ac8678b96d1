using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// <c>dedup delete --trash</c> killed with SIGKILL at growing moments, for real, then run again: nothing is lost,
/// every duplicate is either in place or in <c>files/</c> with its info file, and the info files the killed runs
/// left without a file are removed by the next run once they are older than the grace period.
/// </summary>
[Collection(ProcessEnvironmentCollection.Name)] // runs alone: its kill times mean something only on an idle machine
public sealed class TrashCrashTests
{
    private const int Pairs = 600;

    [LinuxFact]
    public async Task Killed_trash_runs_lose_nothing_and_the_next_run_removes_their_orphaned_info_files()
    {
        using var tree = new LinkTree();
        var keep = tree.PathOf("data/keep");
        var trash = tree.PathOf("xdg/Trash");
        var originals = new Dictionary<string, byte[]>(StringComparer.Ordinal);
        for (var i = 0; i < Pairs; i++)
        {
            var content = TempTree.RandomBytes(4096, 1000 + i);
            var name = $"{i:D4}.bin";
            tree.Write("data/keep/" + name, content);
            originals[tree.Write("data/dup/" + name, content)] = content;
        }

        var dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? RequiresToolFactAttribute.FindOnPath("dotnet") ?? "dotnet";
        string[] args = [Path.Combine(AppContext.BaseDirectory, "dedup.dll"), "delete", "--trash", "--yes", "--keep", "prefix:" + keep, tree.PathOf("data")];
        var environment = new Dictionary<string, string> { ["XDG_DATA_HOME"] = tree.PathOf("xdg") };

        // Growing delays: the first kills land in start-up or the scan, later ones among the moves, until a run finishes.
        var kills = 0;
        var orphansSeen = 0;
        for (var delay = 80.0; kills < 12; delay *= 1.4)
        {
            var (killed, exitCode, stderr) = await ProcessRunner.RunAndKillAsync(dotnet, args, environment, TimeSpan.FromMilliseconds(delay));
            if (!killed)
            {
                Assert.True(exitCode == 0, $"exit code {exitCode}: {stderr}");
                break;
            }

            kills++;

            // The next run comes later: the orphans are past the grace period by then.
            foreach (var orphan in AssertNothingLost(originals, trash, keep))
            {
                File.SetLastWriteTimeUtc(orphan, DateTime.UtcNow.AddMinutes(-3));
                orphansSeen++;
            }
        }

        Assert.True(kills > 0, "no run was killed");

        // The repair runs when a run uses the trash: one more duplicate makes sure the last run does.
        var extra = TempTree.RandomBytes(4096, 999);
        tree.Write("data/keep/extra.bin", extra);
        originals[tree.Write("data/dup/extra.bin", extra)] = extra;

        var (finalKilled, finalExit, finalStderr) = await ProcessRunner.RunAndKillAsync(dotnet, args, environment, TimeSpan.FromMinutes(2));

        Assert.False(finalKilled, "the last run did not finish in 2 minutes");

        Assert.True(finalExit == 0, $"exit code {finalExit}: {finalStderr} ({kills} runs killed, {orphansSeen} orphaned info files seen)");
        Assert.Empty(AssertNothingLost(originals, trash, keep));
        Assert.All(originals.Keys, path => Assert.False(File.Exists(path), path + " was not trashed"));
        Assert.Equal(Pairs + 1, Directory.GetFiles(Path.Combine(trash, "files")).Length);
        Assert.Equal(Pairs + 1, Directory.GetFiles(Path.Combine(trash, "info")).Length);
    }

    /// <summary>
    /// Every duplicate is in place with its bytes, or in files/ with its bytes and an info file naming it; every
    /// kept file is intact. Returns the info files that have no file in files/.
    /// </summary>
    private static List<string> AssertNothingLost(Dictionary<string, byte[]> originals, string trash, string keep)
    {
        var files = Path.Combine(trash, "files");
        var info = Path.Combine(trash, "info");
        var trashed = Directory.Exists(files) ? Directory.GetFiles(files).ToDictionary(f => Path.GetFileName(f), f => f, StringComparer.Ordinal) : [];
        foreach (var (path, bytes) in originals)
        {
            Assert.Equal(bytes, File.ReadAllBytes(Path.Combine(keep, Path.GetFileName(path))));
            if (File.Exists(path))
            {
                Assert.Equal(bytes, File.ReadAllBytes(path));
                continue;
            }

            // A trashed copy of this file: its own name, or a numbered one whose info file names this path.
            var match = trashed.Values.FirstOrDefault(f =>
                File.Exists(Path.Combine(info, Path.GetFileName(f) + ".trashinfo"))
                && File.ReadAllText(Path.Combine(info, Path.GetFileName(f) + ".trashinfo")).Contains("\nPath=" + path + "\n", StringComparison.Ordinal));
            Assert.True(match is not null, $"{path} is neither in place nor in the trash with its info file");
            Assert.Equal(bytes, File.ReadAllBytes(match));
        }

        Assert.All(trashed.Keys, name => Assert.True(File.Exists(Path.Combine(info, name + ".trashinfo")), $"files/{name} has no info file"));
        return Directory.Exists(info)
            ? Directory.GetFiles(info).Where(i => !trashed.ContainsKey(Path.GetFileName(i)[..^".trashinfo".Length])).ToList()
            : [];
    }
}
