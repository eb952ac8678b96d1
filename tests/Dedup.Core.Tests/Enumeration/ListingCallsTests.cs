using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.EnumerationTests;

/// <summary>
/// On a file system whose <c>getdents64</c> fills the buffer until it is full or the folder ends (ext4 here), a folder
/// whose listing came back short is not asked again for the empty answer that confirms its end: one call per small
/// folder. A folder larger than the buffer is still asked until it ends, and listed whole.
/// </summary>
public sealed class ListingCallsTests
{
    [LinuxFact(Tool = "strace", TempFileSystem = "ext4")]
    public async Task A_small_folder_is_listed_in_one_call_and_a_large_one_whole()
    {
        using var tree = new TempTree();
        for (var i = 0; i < 20; i++)
        {
            var content = TempTree.RandomBytes(100 + i, i);
            tree.Write($"small{i}/a", content);
            tree.Write($"small{i}/b", content);
        }

        // 3,000 names of ~120 bytes: over 300 KiB of records, several full buffers of 64 KiB.
        var longName = new string('n', 100);
        for (var i = 0; i < 1500; i++)
        {
            var content = TempTree.RandomBytes(200 + i, 1000 + i);
            tree.Write($"large/{longName}{i:D5}a", content);
            tree.Write($"large/{longName}{i:D5}b", content);
        }

        var log = Path.Combine(Path.GetTempPath(), $"getdents-{Guid.NewGuid():N}.log");
        try
        {
            var dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? RequiresToolFactAttribute.FindOnPath("dotnet") ?? "dotnet";
            var cli = Path.Combine(AppContext.BaseDirectory, "dedup.dll");
            var (exitCode, stdout, stderr) = await ProcessRunner.RunAsync(
                "strace", ["-f", "-y", "-e", "trace=getdents64", "-o", log, dotnet, cli, "find", tree.Root, "--format", "json"]);

            Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {stderr}");
            using var json = System.Text.Json.JsonDocument.Parse(stdout);
            Assert.Equal(20 + 1500, json.RootElement.GetProperty("groups").GetArrayLength());

            // "1234 getdents64(5</tmp/.../small3>, 0x7f..., 65536) = 96": calls per folder.
            var calls = File.ReadAllLines(log)
                .Select(l => System.Text.RegularExpressions.Regex.Match(l, @"getdents64\(\d+<([^>]*)>"))
                .Where(m => m.Success)
                .GroupBy(m => m.Groups[1].Value)
                .ToDictionary(g => g.Key, g => g.Count());
            var root = tree.Root.TrimEnd('/');
            for (var i = 0; i < 20; i++)
            {
                Assert.Equal(1, calls.GetValueOrDefault($"{root}/small{i}"));
            }

            Assert.True(calls.GetValueOrDefault($"{root}/large") >= 6, $"{calls.GetValueOrDefault($"{root}/large")} calls listed the large folder");
        }
        finally
        {
            File.Delete(log);
        }
    }
}
