using System.Diagnostics;

namespace Dedup.Core.ExternalTests;

/// <summary>
/// Runs samples/BackupService as its users do (<c>dotnet BackupService.dll --once</c>) on a real tree: this is how CI
/// runs the sample, through the DI package, the host's configuration and its console logging.
/// </summary>
public sealed class BackupServiceSampleTests
{
    [LinuxFact]
    public void Once_scans_a_real_tree_logs_the_groups_and_exits_0()
    {
        using var tree = new TempFolder();
        var big = TempFolder.RandomBytes(50_000, 11);
        tree.Write("photos/a.jpg", big);
        tree.Write("backup/photos/a.jpg", big);
        tree.Write("docs/x.txt", TempFolder.RandomBytes(8_000, 12));
        tree.Write("docs/copy of x.txt", TempFolder.RandomBytes(8_000, 12));
        tree.Write("docs/unique.txt", TempFolder.RandomBytes(8_000, 13));

        var (exitCode, output) = RunSample("--once", $"--Dedup:Roots:0={tree.Root}", "--BackupService:Action=hardlink", "--Dedup:MinSize=1");

        Assert.True(exitCode == 0, $"exit code {exitCode}:\n{output}");
        Assert.Contains($"2 copies of 50000 bytes: {Path.Combine(tree.Root, "backup/photos/a.jpg")}, {Path.Combine(tree.Root, "photos/a.jpg")}", output, StringComparison.Ordinal);
        Assert.Contains($"2 copies of 8000 bytes: {Path.Combine(tree.Root, "docs/copy of x.txt")}, {Path.Combine(tree.Root, "docs/x.txt")}", output, StringComparison.Ordinal);
        Assert.Contains("Run finished: 2 groups, 2 duplicate files, 58000 bytes reclaimable, 5 files scanned, 0 errors", output, StringComparison.Ordinal);
        Assert.Contains("Dry run (hardlink): 2 actions would reclaim 58000 bytes", output, StringComparison.Ordinal);
        Assert.DoesNotContain("unique.txt", output, StringComparison.Ordinal);
        Assert.Equal(5, Directory.GetFiles(tree.Root, "*", SearchOption.AllDirectories).Length); // a dry run: nothing touched
        Assert.NotEqual(Tools.Stat(Path.Combine(tree.Root, "photos/a.jpg")).Inode, Tools.Stat(Path.Combine(tree.Root, "backup/photos/a.jpg")).Inode);
    }

    [LinuxFact]
    public void Dedup_Cache_Path_gives_the_service_a_sqlite_cache_and_the_second_run_reads_nothing()
    {
        using var tree = new TempFolder();
        using var state = new TempFolder();
        tree.Write("a.bin", TempFolder.RandomBytes(20_000, 14));
        tree.Write("b.bin", TempFolder.RandomBytes(20_000, 14));
        var cache = Path.Combine(state.Root, "dedup.db");
        Thread.Sleep(1200); // the cache keeps no file changed within a second of the scan

        var first = RunSample("--once", $"--Dedup:Roots:0={tree.Root}", $"--Dedup:Cache:Path={cache}", "--Dedup:Cache:Required=true");
        var second = RunSample("--once", $"--Dedup:Roots:0={tree.Root}", $"--Dedup:Cache:Path={cache}", "--Dedup:Cache:Required=true");

        Assert.True(first.ExitCode == 0, $"exit code {first.ExitCode}:\n{first.Output}");
        Assert.True(second.ExitCode == 0, $"exit code {second.ExitCode}:\n{second.Output}");
        Assert.True(File.Exists(cache), "no cache file");
        Assert.Contains("Cache: 0 hits, ", first.Output, StringComparison.Ordinal);
        Assert.Contains("Cache: 2 hits, 0 misses, 0 bytes read", second.Output, StringComparison.Ordinal);
        Assert.Contains("Run finished: 1 groups, 1 duplicate files, 20000 bytes reclaimable, 2 files scanned, 0 errors", second.Output, StringComparison.Ordinal);
    }

    [LinuxFact]
    public void Once_with_a_missing_root_exits_2_naming_the_root()
    {
        using var parent = new TempFolder();
        var root = Path.Combine(parent.Root, "not-mounted");

        var (exitCode, output) = RunSample("--once", $"--Dedup:Roots:0={root}");

        Assert.True(exitCode == 2, $"exit code {exitCode}:\n{output}");
        Assert.Contains($"Backup root not available: The root folder '{root}' does not exist", output, StringComparison.Ordinal);
    }

    [LinuxFact]
    public void Invalid_settings_stop_the_service_at_start_with_exit_code_3() =>
        AssertStopsAtStart("--Dedup:Comparer=fastest", "BackupService: invalid settings: ScanOptions.Comparer is 'fastest': expected hybrid, hash, vectorized or bytewise.");

    [LinuxFact]
    public void An_unknown_key_in_the_Dedup_section_stops_the_service_at_start_with_exit_code_3() =>
        AssertStopsAtStart("--Dedup:MinSzie=1", "BackupService: invalid settings: 'ErrorOnUnknownConfiguration' was set on the provided BinderOptions, but the following properties were not found on the instance of Dedup.Core.ScanOptions: 'MinSzie'");

    /// <summary>One bad setting: exit code 3 and the one line naming it, not an unhandled exception (exit code 134).</summary>
    private static void AssertStopsAtStart(string setting, string line)
    {
        using var tree = new TempFolder();

        var (exitCode, output) = RunSample("--once", $"--Dedup:Roots:0={tree.Root}", setting);

        Assert.True(exitCode == 3, $"exit code {exitCode}:\n{output}");
        Assert.Contains(line, output, StringComparison.Ordinal);
        Assert.DoesNotContain("Unhandled exception", output, StringComparison.Ordinal);
    }

    /// <summary>Runs the sample's build that matches this test build's configuration; stdout and stderr together.</summary>
    private static (int ExitCode, string Output) RunSample(params string[] arguments)
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, WorkingDirectory = Path.GetTempPath() };
        start.ArgumentList.Add(SampleDll());
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["DOTNET_NOLOGO"] = "1";
        using var process = Process.Start(start)!;
        var stderr = process.StandardError.ReadToEndAsync();
        var stdout = process.StandardOutput.ReadToEnd();
        if (!process.WaitForExit(TimeSpan.FromMinutes(1)))
        {
            process.Kill(entireProcessTree: true);
            Assert.Fail("BackupService --once did not exit within a minute:\n" + stdout);
        }

        return (process.ExitCode, stdout + stderr.Result);
    }

    private static string SampleDll()
    {
        // tests/Dedup.Core.ExternalTests/bin/<Configuration>/net10.0/ → samples/BackupService/bin/<Configuration>/net10.0/
        var output = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar));
        var configuration = output.Parent!.Name;
        var repository = output.Parent.Parent!.Parent!.Parent!.Parent!.FullName;
        var dll = Path.Combine(repository, "samples", "BackupService", "bin", configuration, output.Name, "BackupService.dll");
        Assert.True(File.Exists(dll), $"The sample is not built: {dll} (the test project references it so that it is).");
        return dll;
    }
}
