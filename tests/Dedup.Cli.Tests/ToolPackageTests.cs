using System.IO.Compression;
using System.Text.Json;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests;

/// <summary>
/// What a user installs: the CLI as a .NET tool (NativeAOT on linux-x64; the library packages are LibraryPackageTests').
/// The test packs into its own artifacts folder, so it never touches the build the other tests run.
/// </summary>
public sealed class ToolPackageTests
{
    [LinuxFact]
    public void The_installed_dedup_tool_is_NativeAOT_and_finds_the_exact_groups()
    {
        using var work = new TempTree();
        var feed = work.PathOf("feed");
        var artifacts = work.PathOf("artifacts");
        var project = Path.Combine(RepositoryFiles.Root, "src", "Dedup.Cli");

        // The pointer package, the NativeAOT linux-x64 package and the framework-dependent one for other platforms.
        foreach (var rid in new[] { null, "linux-x64", "any" })
        {
            string[] args = ["pack", project, "-c", "Release", "-o", feed, "--artifacts-path", artifacts, .. rid is null ? Array.Empty<string>() : ["-r", rid]];
            var (exit, stdout, stderr) = ProcessRunner.Run("dotnet", args, timeoutSeconds: 600);
            Assert.True(exit == 0, $"dotnet {string.Join(' ', args)} failed:\n{stdout}\n{stderr}");
        }

        // The version is version.txt's, the one dotnet tool update compares.
        var version = File.ReadAllText(Path.Combine(RepositoryFiles.Root, "version.txt")).Trim();
        Assert.Equal(
            [$"Dedup.Cli.{version}.nupkg", $"Dedup.Cli.any.{version}.nupkg", $"Dedup.Cli.linux-x64.{version}.nupkg"],
            Directory.GetFiles(feed, "*.nupkg").Select(Path.GetFileName).Order(StringComparer.Ordinal));

        // Stripped: the program and SQLite (and the tool's settings); no NativeAOT .dbg (28 MB), no .pdb, no XML documentation.
        using (var native = ZipFile.OpenRead(Path.Combine(feed, $"Dedup.Cli.linux-x64.{version}.nupkg")))
        {
            var tool = native.Entries.Where(e => e.FullName.StartsWith("tools/", StringComparison.Ordinal)).Select(e => Path.GetFileName(e.FullName));
            Assert.Equal(["DotnetToolSettings.xml", "dedup", "libe_sqlite3.so"], tool.Order(StringComparer.Ordinal));
        }

        var tools = work.PathOf("tools");
        var install = ProcessRunner.Run("dotnet", ["tool", "install", "Dedup.Cli", "--add-source", feed, "--tool-path", tools], timeoutSeconds: 300);
        Assert.True(install.ExitCode == 0, install.Stdout + install.Stderr);

        // NativeAOT: the command is the ELF executable itself, with no managed dedup.dll beside it.
        var command = new FileInfo(Path.Combine(tools, "dedup")).ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? Path.Combine(tools, "dedup");
        Assert.Contains("linux-x64", command, StringComparison.Ordinal);
        Assert.Equal("\u007fELF"u8.ToArray(), File.ReadAllBytes(command).AsSpan(0, 4).ToArray());
        Assert.False(File.Exists(Path.Combine(Path.GetDirectoryName(command)!, "dedup.dll")));

        var tree = work.PathOf("tree");
        var content = TempTree.RandomBytes(20_000, 9);
        work.Write("tree/a.bin", content);
        work.Write("tree/sub/b.bin", content);
        work.Write("tree/c.bin", TempTree.RandomBytes(20_000, 10));
        var run = ProcessRunner.Run(Path.Combine(tools, "dedup"), ["find", tree, "--format", "json"]);
        Assert.True(run.ExitCode == 0, run.Stderr);
        using var report = JsonDocument.Parse(run.Stdout);
        var group = Assert.Single(report.RootElement.GetProperty("groups").EnumerateArray());
        Assert.Equal(
            [Path.Combine(tree, "a.bin"), Path.Combine(tree, "sub", "b.bin")],
            group.GetProperty("files").EnumerateArray().Select(f => f.GetProperty("path").GetString()));

        // The cache works where the tool is installed (SQLite beside the program: no warning, --stats counts it)...
        var cached = ProcessRunner.Run(Path.Combine(tools, "dedup"), ["find", tree, "--cache", work.PathOf("cache.db"), "--stats"]);
        Assert.True(cached.ExitCode == 0 && cached.Stderr.Length == 0, cached.Stderr);
        Assert.Matches(@"; cache: 0 hits, [1-9][0-9]* misses", cached.Stdout);

        // ...and the program copied alone says which library it misses and where it looked, in one line, then scans.
        var alone = work.PathOf("alone/dedup");
        Directory.CreateDirectory(Path.GetDirectoryName(alone)!);
        File.Copy(command, alone);
        var lost = ProcessRunner.Run(alone, ["find", tree, "--cache", work.PathOf("other.db")]);
        Assert.True(lost.ExitCode == 0, lost.Stderr);
        var warning = Assert.Single(lost.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith($"dedup: warning: --cache not used: SQLite's native library libe_sqlite3.so is neither in {Path.GetDirectoryName(alone)}/", warning, StringComparison.Ordinal);
        Assert.Contains("2 files", lost.Stdout, StringComparison.Ordinal);
    }
}
