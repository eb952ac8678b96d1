using Dedup.Core.Tests.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests;

/// <summary>
/// The holes an adversarial run found in <c>dedup link</c>/<c>delete</c> (issue #11), replayed through the CLI on real
/// files: a report acted on after a folder was swapped for a link, a user's file named like a temporary file, a keep
/// rule naming no folder, malformed reports, and a scan with errors.
/// </summary>
public sealed class ActingSafetyTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, seed: 41);

    public static TheoryData<string[]> Actions => new()
    {
        new[] { "delete" },
        new[] { "delete", "--trash" },
        new[] { "link", "--mode", "hard" },
    };

    [LinuxTheory]
    [MemberData(nameof(Actions))]
    public async Task A_report_acted_on_after_a_folder_became_a_link_out_of_the_roots_touches_nothing_there(string[] action)
    {
        // The recipe: t/sub is swapped for a link to a folder that was never scanned, holding a copy.
        using var tree = new TempTree();
        tree.Write("t/keep/k", Content);
        tree.Write("t/sub/d", Content);
        var victim = tree.Write("victim/d", Content);
        await RunCliAsync("find", tree.PathOf("t"), "--format", "json", "-o", tree.PathOf("r.json"));
        Directory.Move(tree.PathOf("t/sub"), tree.PathOf("t/sub.real"));
        tree.Symlink(tree.PathOf("victim"), "t/sub");

        var (exit, _, stderr) = await RunCliAsync([.. action, "--from-report", tree.PathOf("r.json"), "--yes"], environment: TrashHome(tree));

        Assert.Equal(1, exit);
        Assert.Contains("t/sub: is a symbolic link", stderr, StringComparison.Ordinal);
        Assert.Equal(Content, File.ReadAllBytes(victim));
        Assert.Equal(1u, TestNative.LinkCount(victim));
        Assert.Equal(Content, File.ReadAllBytes(tree.PathOf("t/sub.real/d")));
        Assert.Equal(Content, File.ReadAllBytes(tree.PathOf("t/keep/k")));
    }

    [LinuxTheory]
    [MemberData(nameof(Actions))]
    public async Task A_report_acted_on_after_the_kept_folder_became_a_link_touches_nothing(string[] action)
    {
        using var tree = new TempTree();
        tree.Write("t/keep/k", Content);
        var duplicate = tree.Write("t/sub/d", Content);
        tree.Write("victim/k", Content);
        await RunCliAsync("find", tree.PathOf("t"), "--format", "json", "-o", tree.PathOf("r.json"));
        Directory.Move(tree.PathOf("t/keep"), tree.PathOf("t/keep.real"));
        tree.Symlink(tree.PathOf("victim"), "t/keep");

        var (exit, _, stderr) = await RunCliAsync([.. action, "--from-report", tree.PathOf("r.json"), "--yes"], environment: TrashHome(tree));

        Assert.Equal(1, exit);
        Assert.Contains("is a symbolic link", stderr, StringComparison.Ordinal);
        Assert.Equal(Content, File.ReadAllBytes(duplicate));
        Assert.Equal(1u, TestNative.LinkCount(duplicate));
        Assert.Equal(1u, TestNative.LinkCount(tree.PathOf("victim/k")));
    }

    [LinuxFact]
    public async Task A_report_whose_file_was_replaced_by_a_copy_is_left_out()
    {
        using var tree = new TempTree();
        tree.Write("t/a", Content);
        var b = tree.Write("t/b", Content);
        await RunCliAsync("find", tree.PathOf("t"), "--format", "json", "-o", tree.PathOf("r.json"));
        File.Move(b, tree.PathOf("aside")); // kept alive, so the new file cannot reuse its inode
        File.WriteAllBytes(b, Content);

        var (exit, stdout, stderr) = await RunCliAsync("delete", "--from-report", tree.PathOf("r.json"), "--yes");

        Assert.Equal(1, exit);
        Assert.Contains("t/b: is now another file", stderr, StringComparison.Ordinal);
        Assert.Contains("0 actions", stdout, StringComparison.Ordinal);
        Assert.True(File.Exists(b));
    }

    [LinuxFact]
    public async Task A_users_file_named_like_a_temporary_file_is_kept_and_reported()
    {
        // The recipe: echo "UNIQUE" > b/.dedup-tmp-<32 hex>; dedup link --mode hard a b --yes
        using var tree = new TempTree();
        tree.Write("a/x.bin", Content);
        tree.Write("b/x.bin", Content);
        var users = tree.Write("b/.dedup-tmp-0123456789abcdef0123456789abcdef", "UNIQUE\n");

        var (exit, _, stderr) = await RunCliAsync("link", "--mode", "hard", tree.PathOf("a"), tree.PathOf("b"), "--yes");

        Assert.Equal(0, exit);
        Assert.Equal("UNIQUE\n", File.ReadAllText(users));
        Assert.Contains(".dedup-tmp-0123456789abcdef0123456789abcdef: not provably a replacement", stderr, StringComparison.Ordinal);
        Assert.Equal(TestNative.Inode(tree.PathOf("a/x.bin")), TestNative.Inode(tree.PathOf("b/x.bin")));
    }

    [LinuxFact]
    public async Task Leftovers_that_are_ours_are_removed_and_a_same_size_stranger_is_not()
    {
        using var tree = new TempTree();
        tree.Write("a/x.bin", Content);
        tree.Write("b/x.bin", Content);
        var clone = tree.Write("b/.dedup-tmp-" + new string('1', 32), Content); // a finished clone: the kept file's bytes
        var hardLink = tree.PathOf("b/.dedup-tmp-" + new string('2', 32));
        TempTree.Run("ln", tree.PathOf("a/x.bin"), hardLink);
        var symbolic = tree.Symlink(tree.PathOf("a/x.bin"), "b/.dedup-tmp-" + new string('3', 32));
        var other = (byte[])Content.Clone();
        other[^1] ^= 1;
        var stranger = tree.Write("b/.dedup-tmp-" + new string('4', 32), other); // same size, other bytes: not ours

        var (exit, stdout, stderr) = await RunCliAsync("link", "--mode", "hard", tree.PathOf("a"), tree.PathOf("b"), "--yes");

        Assert.Equal(0, exit);
        Assert.Contains("3 leftover temporary files removed", stdout, StringComparison.Ordinal);
        Assert.False(File.Exists(clone));
        Assert.False(File.Exists(hardLink));
        Assert.False(Path.Exists(symbolic));
        Assert.Equal(other, File.ReadAllBytes(stranger));
        Assert.Contains(new string('4', 32) + ": not provably a replacement", stderr, StringComparison.Ordinal);
    }

    [LinuxFact]
    public async Task A_keep_prefix_that_names_no_folder_is_a_usage_error()
    {
        using var tree = new TempTree();
        tree.Write("t/a/x.bin", Content);
        var copy = tree.Write("t/b/x.bin", Content);

        var (exit, stdout, stderr) = await RunCliAsync("delete", "--keep", "prefix:/nonexistent-" + Guid.NewGuid().ToString("N"), "--yes", tree.PathOf("t/a"), tree.PathOf("t/b"));

        Assert.Equal(2, exit);
        Assert.Contains("no folder", stderr, StringComparison.Ordinal);
        Assert.Single(stderr.Trim().Split('\n'));
        Assert.Equal(string.Empty, stdout);
        Assert.True(File.Exists(copy));
    }

    [LinuxFact]
    public async Task A_group_no_keep_rule_decides_is_left_alone_unless_a_fallback_is_asked_for()
    {
        using var tree = new TempTree();
        var a = tree.Write("t/a/x.bin", Content);
        var b = tree.Write("t/b/x.bin", Content);
        var time = new DateTime(2024, 5, 1, 0, 0, 0, DateTimeKind.Utc);
        File.SetLastWriteTimeUtc(a, time);
        File.SetLastWriteTimeUtc(b, time); // equally old: "oldest" cannot decide

        var (exit, stdout, stderr) = await RunCliAsync("delete", "--keep", "oldest", "--yes", tree.PathOf("t"));

        Assert.Equal(3, exit); // undecided groups: not a file error (1)
        Assert.Contains("left alone 1 group where no --keep rule decides", stderr, StringComparison.Ordinal);
        Assert.Contains("0 actions", stdout, StringComparison.Ordinal);
        Assert.True(File.Exists(a) && File.Exists(b));

        (exit, _, _) = await RunCliAsync("delete", "--keep", "oldest", "--keep", "path-order", "--yes", tree.PathOf("t"));

        Assert.Equal(0, exit);
        Assert.True(File.Exists(a));
        Assert.False(File.Exists(b));
    }

    [LinuxFact]
    public async Task Delete_exits_1_when_the_scan_had_errors()
    {
        using var tree = new TempTree();
        tree.Write("t/a.bin", Content);
        tree.Write("t/b.bin", Content);
        // A folder deeper than PATH_MAX (4096 bytes) cannot be listed: a scan error even for root.
        const string Deep = "cd \"$1\" && n=$(printf '%0200d' 0) && for i in $(seq 22); do mkdir $n && cd -P $n; done && printf data > f";
        TempTree.Run("sh", "-c", Deep, "sh", tree.PathOf("t"));
        try
        {
            var (exit, stdout, stderr) = await RunCliAsync("delete", "--yes", tree.PathOf("t"));

            Assert.Equal(1, exit);
            Assert.Contains("Path too long", stderr, StringComparison.Ordinal);
            Assert.Contains("1 done, 0 skipped, 0 failed", stdout, StringComparison.Ordinal);
        }
        finally
        {
            TempTree.Run("rm", "-rf", "--", tree.PathOf("t"));
        }
    }

    public static TheoryData<string, string> MalformedReports => new()
    {
        { "not json", "is not valid JSON" },
        { "[]", "no \"groups\" array" },
        { """{"groups":[]}""", "records no \"roots\"" },
        { """{"groups":[{"files":[{"path":"/a"}]}],"roots":[]}""", "groups[0] has no \"size\"" },
        { """{"groups":[{"size":5,"files":[{"device":1,"inode":2,"mtime":"2024-01-01T00:00:00.0000000Z"}]}],"roots":[]}""", "groups[0].files[0] has no \"path\"" },
        { """{"groups":[{"size":5,"files":[{"path":"rel/x","device":1,"inode":2,"mtime":"2024-01-01T00:00:00.0000000Z"}]}],"roots":[]}""", "groups[0].files[0].path is not an absolute path" },
        { """{"groups":[{"size":5,"files":[{"path":"/a/../b","device":1,"inode":2,"mtime":"2024-01-01T00:00:00.0000000Z"}]}],"roots":[]}""", "is not a normalized path" },
        { """{"groups":[{"size":-5,"files":[]}],"roots":[]}""", "groups[0].size is not a non-negative integer" },
        { """{"groups":[{"size":5,"files":[{"path":"/a","device":1,"inode":2}]}],"roots":[]}""", "groups[0].files[0] has no \"mtime\"" },
        { """{"groups":[{"size":5,"files":[{"path":"/a","device":"x","inode":2,"mtime":"2024-01-01T00:00:00.0000000Z"}]}],"roots":[]}""", "groups[0].files[0].device is not a non-negative integer" },
        { """{"groups":[{"size":5,"files":[{"path":"/a","device":1,"inode":2,"mtime":"yesterday"}]}],"roots":[]}""", "mtime is not a UTC time" },
        { """{"groups":[{"size":5,"files":"x"}],"roots":[]}""", "groups[0].files is not an array" },
        { """{"groups":[7],"roots":[]}""", "groups[0] is not an object" },
        { """{"groups":[],"roots":[{"path":"/"}]}""", "roots[0] has no \"device\"" },
    };

    [LinuxTheory]
    [MemberData(nameof(MalformedReports))]
    public async Task A_malformed_report_is_a_usage_error_with_one_line(string report, string expected)
    {
        using var tree = new TempTree();
        var file = tree.Write("r.json", report);

        var (exit, stdout, stderr) = await RunCliAsync("delete", "--from-report", file, "--yes");

        Assert.Equal(2, exit);
        Assert.Equal(string.Empty, stdout);
        var line = Assert.Single(stderr.TrimEnd('\n').Split('\n'));
        Assert.StartsWith("dedup: ", line, StringComparison.Ordinal);
        Assert.Contains(expected, line, StringComparison.Ordinal);
        Assert.DoesNotContain("Exception", line, StringComparison.Ordinal);
    }

    private static Dictionary<string, string> TrashHome(TempTree tree) => new() { ["XDG_DATA_HOME"] = tree.PathOf("xdg") };

    private static async Task<(int ExitCode, string Stdout, string Stderr)> RunCliAsync(string[] args, Dictionary<string, string>? environment = null)
    {
        var dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? RequiresToolFactAttribute.FindOnPath("dotnet") ?? "dotnet";
        return await ProcessRunner.RunAsync(dotnet, [Path.Combine(AppContext.BaseDirectory, "dedup.dll"), .. args], environment: environment);
    }

    private static Task<(int ExitCode, string Stdout, string Stderr)> RunCliAsync(params string[] args) => RunCliAsync(args, null);
}
