using System.Text.Json;
using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;
using static Dedup.Core.Tests.Media.MediaTestSupport;

namespace Dedup.Core.Tests.Media;

/// <summary>
/// Media mode never hides an exact copy (#34): with <c>p.mp3</c> and its byte-identical copy <c>q.mp3</c> beside a
/// retagged <c>r.mp3</c> (same audio, other tags), {p, q} is a whole-file group that actions act on, and the payload
/// group relates r to one copy of the pair. Real MP3s: encoded by ffmpeg, retagged by id3v2.
/// </summary>
public sealed class ExactCopiesInMediaModeTests : IDisposable
{
    private readonly TempTree _tree = new();
    private readonly string _p;
    private readonly string _q;
    private readonly string _r;

    public ExactCopiesInMediaModeTests()
    {
        _p = _tree.PathOf("songs/p.mp3");
        _q = _tree.PathOf("songs/q.mp3");
        _r = _tree.PathOf("songs/r.mp3");
    }

    public void Dispose() => _tree.Dispose();

    [MediaToolFact("ffmpeg", "id3v2")]
    public async Task The_exact_pair_is_a_whole_file_group_and_the_payload_group_holds_one_copy_of_it()
    {
        var (p, q, r) = MakeSongs();

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(_tree.Root).UseMediaMode());

        Assert.Empty(summary.Errors);
        Assert.Equal(2, groups.Count);
        var exact = Assert.Single(groups, g => g.Match == ContentMatch.WholeFile);
        Assert.Equal([_p, _q], Paths(exact));
        Assert.Equal(p.Length, exact.Size);
        Assert.True(exact.VerifiedByBytes);
        var payload = Assert.Single(groups, g => g.Match == ContentMatch.MediaPayload);
        Assert.Equal([_p, _r], Paths(payload)); // the pair's first copy by path stands for it
        Assert.True(payload.Size < Math.Min(p.Length, r.Length));

        // q and r are the duplicates, each counted once: the files' total less the largest one.
        Assert.Equal(2, summary.Groups);
        Assert.Equal(2, summary.DuplicateFiles);
        Assert.Equal((long)p.Length + q.Length + r.Length - Math.Max(p.Length, r.Length), summary.WastedBytes);
        Assert.Equal(groups.Sum(g => g.WastedBytes), summary.WastedBytes);

        // Without media mode: the exact pair alone, as before.
        var (plain, plainSummary) = await Scan.RunAsync(b => b.AddRoot(_tree.Root));
        Assert.Equal(Expect.Groups([_p, _q]), Scan.Canonical(plain));
        Assert.Equal(ContentMatch.WholeFile, Assert.Single(plain).Match);
        Assert.Equal(p.Length, plainSummary.WastedBytes);
    }

    [MediaToolFact("ffmpeg", "id3v2")]
    public async Task The_planner_deletes_the_exact_copy_and_refuses_only_the_retagged_file()
    {
        var (p, _, r) = MakeSongs();
        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(_tree.Root).UseMediaMode());

        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Keep(KeepRule.PathOrder).Build().Plan(groups);

        var acted = Assert.Single(plan.Actions, a => a.Refusal is null);
        Assert.Equal((_p, _q), (acted.Kept.Path.ToString(), acted.Path.ToString()));
        var refused = Assert.Single(plan.Actions, a => a.Refusal is not null);
        Assert.Equal(_r, refused.Path.ToString());
        Assert.Contains("media-payload", refused.Refusal, StringComparison.Ordinal);
        Assert.Equal(p.Length, plan.ReclaimableBytes);

        await plan.ApplyAsync();
        AssertOnlyTheCopyIsGone(p, r);
    }

    [MediaToolFact("ffmpeg", "id3v2")]
    public async Task Find_media_reports_the_exact_pair_as_a_whole_file_group_in_json()
    {
        var (p, q, r) = MakeSongs();

        var (exitCode, stdout, stderr) = await CliProcess.RunAsync(["find", _tree.PathOf("songs"), "--media", "--format", "json"]);

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {stderr}");
        using var json = JsonDocument.Parse(stdout);
        var groups = json.RootElement.GetProperty("groups").EnumerateArray().ToList();
        Assert.Equal(2, groups.Count);
        var exact = Assert.Single(groups, g => !g.TryGetProperty("match", out _));
        Assert.Equal([_p, _q], JsonPaths(exact));
        Assert.Equal(p.Length, exact.GetProperty("size").GetInt64());
        var payload = Assert.Single(groups, g => g.TryGetProperty("match", out var m) && m.GetString() == "mediaPayload");
        Assert.Equal([_p, _r], JsonPaths(payload));
        var summary = json.RootElement.GetProperty("summary");
        Assert.Equal((long)p.Length + q.Length + r.Length - Math.Max(p.Length, r.Length), summary.GetProperty("wastedBytes").GetInt64());
    }

    [MediaToolFact("ffmpeg", "id3v2")]
    public async Task Delete_media_removes_the_exact_copy_and_keeps_the_retagged_file()
    {
        var (p, _, r) = MakeSongs();

        var (exitCode, stdout, stderr) = await CliProcess.RunAsync(["delete", _tree.PathOf("songs"), "--media", "--yes"]);

        // Exit code 1: the retagged file's action is refused (a media-payload match), and that is reported.
        Assert.True(exitCode == 1, $"exit code {exitCode}; stdout: {stdout}; stderr: {stderr}");
        Assert.Contains("2 actions (permanent delete), 1 of them refused", stdout, StringComparison.Ordinal);
        AssertOnlyTheCopyIsGone(p, r);
    }

    [MediaToolFact("ffmpeg", "id3v2")]
    public async Task Delete_from_a_media_report_removes_the_exact_copy_and_leaves_out_the_payload_group()
    {
        var (p, _, r) = MakeSongs();
        var report = _tree.PathOf("report.json");
        var (findExit, _, findError) = await CliProcess.RunAsync(["find", _tree.PathOf("songs"), "--media", "--format", "json", "-o", report]);
        Assert.True(findExit == 0, $"find exit code {findExit}; stderr: {findError}");

        var (exitCode, stdout, stderr) = await CliProcess.RunAsync(["delete", "--from-report", report, "--yes"]);

        // The payload group is left out with its reason (exit code 1: files were left out), the whole-file one acted on.
        Assert.True(exitCode == 1, $"exit code {exitCode}; stdout: {stdout}; stderr: {stderr}");
        Assert.Contains("left out a media-payload group (2 files)", stderr, StringComparison.Ordinal);
        Assert.StartsWith("1 action (permanent delete), ", stdout, StringComparison.Ordinal);
        Assert.DoesNotContain("refused", stdout, StringComparison.Ordinal);
        AssertOnlyTheCopyIsGone(p, r);
    }

    /// <summary>p (ffmpeg's MP3 with its own ID3v2 tag), q a copy of p, r a copy of p retagged by id3v2.</summary>
    private (byte[] P, byte[] Q, byte[] R) MakeSongs()
    {
        Directory.CreateDirectory(_tree.PathOf("songs"));
        Run("ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
            "-c:a", "libmp3lame", "-b:a", "128k", _p);
        File.Copy(_p, _q);
        File.Copy(_p, _r);
        Run("id3v2", "-a", "Another Artist", "-t", "Another title", _r);
        var (p, q, r) = (File.ReadAllBytes(_p), File.ReadAllBytes(_q), File.ReadAllBytes(_r));
        Assert.False(p.AsSpan().SequenceEqual(r), "id3v2 left r byte-identical to p");
        Assert.Equal(PayloadOfFile(_p, out _), PayloadOfFile(_r, out _));
        return (p, q, r);
    }

    private void AssertOnlyTheCopyIsGone(byte[] p, byte[] r)
    {
        Assert.False(File.Exists(_q), "the exact copy q.mp3 was not removed");
        Assert.Equal(p, File.ReadAllBytes(_p));
        Assert.Equal(r, File.ReadAllBytes(_r));
    }

    private static string[] Paths(DuplicateGroup group) => [.. group.Files.Select(f => f.Path.ToString())];

    private static string[] JsonPaths(JsonElement group) => [.. group.GetProperty("files").EnumerateArray().Select(f => f.GetProperty("path").GetString()!)];
}
