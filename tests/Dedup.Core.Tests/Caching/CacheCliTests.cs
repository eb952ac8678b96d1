using System.Text.Json;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Caching;

/// <summary><c>dedup find --cache FILE</c>, run as a real process.</summary>
public sealed class CacheCliTests : IDisposable
{
    private readonly CacheFixture _fixture = new();

    public void Dispose() => _fixture.Dispose();

    private static JsonElement CacheSummary(string stdout) =>
        JsonDocument.Parse(stdout).RootElement.GetProperty("summary").GetProperty("cache");

    [LinuxFact]
    public async Task The_json_summary_reports_hits_misses_and_pruned_entries()
    {
        var content = TempTree.RandomBytes(20_000, 1);
        _fixture.Tree.Write("a", content);
        _fixture.Tree.Write("b", content);
        _fixture.Tree.Write("c", TempTree.RandomBytes(20_000, 2));
        await CacheFixture.LetSettleAsync();
        string[] args = ["find", _fixture.Tree.Root, "--format", "json", "--stats", "--cache", _fixture.CachePath];

        var first = await CliProcess.RunAsync(args);
        Assert.Equal(0, first.ExitCode);
        Assert.Equal("", first.Stderr);
        Assert.Equal(0, CacheSummary(first.Stdout).GetProperty("hits").GetInt64());
        Assert.Equal(3, CacheSummary(first.Stdout).GetProperty("misses").GetInt64());

        // d is made before c is deleted: made after, it may get c's inode, and once the racy window is past (a slow
        // start under load) its entry replaces c's instead of c's being pruned.
        _fixture.Tree.Write("d", TempTree.RandomBytes(20_000, 3));
        File.Delete(_fixture.Tree.PathOf("c"));
        var second = await CliProcess.RunAsync(args);
        Assert.Equal(0, second.ExitCode);
        var cache = CacheSummary(second.Stdout);
        Assert.Equal(2, cache.GetProperty("hits").GetInt64());
        Assert.Equal(1, cache.GetProperty("misses").GetInt64());
        Assert.Equal(1, cache.GetProperty("pruned").GetInt64());
        // Only the new file's probe was read: a and b were settled from the cache.
        Assert.InRange(JsonDocument.Parse(second.Stdout).RootElement.GetProperty("summary").GetProperty("bytesRead").GetInt64(), 1, 19_999);
        Assert.Single(JsonDocument.Parse(second.Stdout).RootElement.GetProperty("groups").EnumerateArray());
    }

    /// <summary>
    /// A first run that has nothing to cache (files of sizes no other file has, never read; likewise files all changed
    /// within the racy window) still creates the cache file: a missing file after <c>--cache FILE</c> looks like a cache
    /// that was lost or a path that cannot be written.
    /// </summary>
    [LinuxFact]
    public async Task A_first_run_with_nothing_to_cache_still_creates_the_cache_file()
    {
        _fixture.Tree.Write("a", TempTree.RandomBytes(20_000, 1));
        _fixture.Tree.Write("b", TempTree.RandomBytes(30_000, 2));

        var result = await CliProcess.RunAsync(["find", _fixture.Tree.Root, "--format", "json", "--stats", "--cache", _fixture.CachePath]);

        Assert.True(result.ExitCode == 0, result.Stderr);
        Assert.Equal("", result.Stderr);
        Assert.Equal(0, CacheSummary(result.Stdout).GetProperty("hits").GetInt64());
        Assert.True(File.Exists(_fixture.CachePath), "no cache file");
        var again = await CliProcess.RunAsync(["find", _fixture.Tree.Root, "--format", "json", "--stats", "--cache", _fixture.CachePath]);
        Assert.True(again.ExitCode == 0, again.Stderr);
        Assert.Equal("", again.Stderr); // the file made is a cache file the next run reads without a warning
    }

    [LinuxFact]
    public async Task A_bad_cache_file_is_one_warning_line_and_the_exit_code_of_the_scan()
    {
        var content = TempTree.RandomBytes(20_000, 1);
        _fixture.Tree.Write("a", content);
        _fixture.Tree.Write("b", content);
        File.WriteAllText(_fixture.CachePath, "not a database, but someone's notes\n");

        var result = await CliProcess.RunAsync(["find", _fixture.Tree.Root, "--format", "json", "--cache", _fixture.CachePath]);
        Assert.Equal(0, result.ExitCode);
        var line = Assert.Single(result.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("dedup: warning: cache '", line, StringComparison.Ordinal);
        Assert.Single(JsonDocument.Parse(result.Stdout).RootElement.GetProperty("groups").EnumerateArray());
        Assert.Equal("not a database, but someone's notes\n", File.ReadAllText(_fixture.CachePath));
    }
}

/// <summary>A cache the user may read but not write: as user nobody (root writes anything).</summary>
public sealed class ReadOnlyCacheTests : IDisposable
{
    private readonly CacheFixture _fixture = new();

    public void Dispose() => _fixture.Dispose();

    [LinuxFact(RequiresRoot = true, Tool = "setpriv")] // root hands the tree to nobody (root writes anything)
    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    public async Task A_read_only_cache_is_one_warning_and_exact_results()
    {
        var content = TempTree.RandomBytes(20_000, 1);
        _fixture.Tree.Write("a", content);
        _fixture.Tree.Write("b", content);
        _fixture.Tree.Write("c", TempTree.RandomBytes(20_000, 2));

        // Readable by nobody before the files settle: chmod changes the ctime, and so would make every entry a miss.
        TempTree.Run("chmod", "-R", "a+rX", _fixture.Tree.Root);
        await CacheFixture.LetSettleAsync();
        await _fixture.ScanAsync(); // written by root; nobody may read it, not write it nor its folder
        _fixture.Tree.Write("d", content); // something new to save
        TempTree.Run("chmod", "-R", "a+rX", _fixture.Tree.PathOf("d"), _fixture.CacheFolder.Root);
        CliAsNobody.MakeTraversable(_fixture.Tree.Root);
        CliAsNobody.MakeTraversable(_fixture.CacheFolder.Root);
        await CacheFixture.LetSettleAsync();
        var before = File.ReadAllBytes(_fixture.CachePath);

        using var nobody = new CliAsNobody();
        var result = await nobody.RunAsync(["find", _fixture.Tree.Root, "--format", "json", "--stats", "--cache", _fixture.CachePath]);
        Assert.True(result.ExitCode == 0, result.Stderr);
        var line = Assert.Single(result.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Equal($"dedup: warning: cache '{_fixture.CachePath}' is read-only: used, not updated", line);
        Assert.Equal(3, JsonDocument.Parse(result.Stdout).RootElement.GetProperty("summary").GetProperty("cache").GetProperty("hits").GetInt64());
        var group = Assert.Single(JsonDocument.Parse(result.Stdout).RootElement.GetProperty("groups").EnumerateArray());
        Assert.Equal(3, group.GetProperty("files").GetArrayLength());
        Assert.Equal(before, File.ReadAllBytes(_fixture.CachePath));
    }
}
