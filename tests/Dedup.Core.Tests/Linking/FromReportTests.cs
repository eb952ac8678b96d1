using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Media.Fixtures;
using Xunit;

namespace Dedup.Core.Tests.Linking;

/// <summary><c>dedup delete --from-report</c>, run through the CLI on a report written by <c>dedup find --format json</c>.</summary>
public sealed class FromReportTests
{
    [LinuxFact]
    public async Task A_whole_file_report_is_planned_again_from_the_files()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(20_000, seed: 1);
        tree.Write("a/one.bin", content);
        tree.Write("b/one.bin", content);

        await RunCliAsync("find", tree.Root, "--format", "json", "-o", tree.PathOf("report.json"));
        var (_, stdout, _) = await RunCliAsync("delete", "--from-report", tree.PathOf("report.json"), "--dry-run");

        Assert.Contains("1 actions, 19.5 KiB (20000 bytes) to reclaim", stdout, StringComparison.Ordinal);
        Assert.Equal(content, File.ReadAllBytes(tree.PathOf("a/one.bin")));
        Assert.Equal(content, File.ReadAllBytes(tree.PathOf("b/one.bin")));
    }

    [LinuxFact]
    public async Task A_media_payload_group_in_a_report_is_left_out_with_its_reason()
    {
        // The same audio under two different tags: one media-payload group whose "size" is the payload length.
        using var tree = new TempTree();
        var audio = Mp3Fixture.Audio(7);
        var first = ByteWriter.Concat(Mp3Fixture.Id3v2(3, "first title", padding: 10), audio);
        var second = ByteWriter.Concat(Mp3Fixture.Id3v2(4, "another, longer title", padding: 300), audio);
        tree.Write("a/song.mp3", first);
        tree.Write("b/song.mp3", second);

        await RunCliAsync("find", tree.Root, "--media", "--format", "json", "-o", tree.PathOf("report.json"));
        Assert.Contains("mediaPayload", File.ReadAllText(tree.PathOf("report.json")), StringComparison.Ordinal);
        var (_, _, stderr) = await RunCliAsync("delete", "--from-report", tree.PathOf("report.json"), "--yes");

        Assert.Contains("media-payload group (2 files)", stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("size is now", stderr, StringComparison.Ordinal);
        Assert.Equal(first, File.ReadAllBytes(tree.PathOf("a/song.mp3")));
        Assert.Equal(second, File.ReadAllBytes(tree.PathOf("b/song.mp3")));
    }

    private static async Task<(int ExitCode, string Stdout, string Stderr)> RunCliAsync(params string[] args)
    {
        var dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? RequiresToolFactAttribute.FindOnPath("dotnet") ?? "dotnet";
        var result = await ProcessRunner.RunAsync(dotnet, [Path.Combine(AppContext.BaseDirectory, "dedup.dll"), .. args]);
        Assert.True(result.ExitCode is 0 or 1, $"dedup {string.Join(' ', args)}: exit code {result.ExitCode}; stderr: {result.Stderr}");
        return result;
    }
}
