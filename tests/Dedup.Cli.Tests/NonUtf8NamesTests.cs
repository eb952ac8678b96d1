using System.Runtime.InteropServices;
using System.Text;
using System.Text.Json;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Cli.Tests;

/// <summary>
/// A Linux name that is not valid UTF-8 (<c>a\xFF.bin</c>) is found, acted on and reported like any other, while a
/// decoy literally named <c>a\uFFFD.bin</c> (what a lossy conversion would turn the name into) is never touched.
/// Files with such names are made and inspected through libc with the exact bytes, not through the code under test.
/// </summary>
public sealed class NonUtf8NamesTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(5000, seed: 23);
    private static readonly byte[] DecoyContent = TempTree.RandomBytes(5000, seed: 24);
    private static readonly byte[] RawName = [(byte)'a', 0xFF, (byte)'.', (byte)'b', (byte)'i', (byte)'n'];

    [LinuxFact]
    public async Task The_library_groups_a_non_utf8_name_with_its_copy()
    {
        using var tree = MakeTree(out var raw, out var copy, out _);

        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.PathOf("d")));

        Assert.Empty(summary.Errors);
        var group = Assert.Single(groups);
        Assert.Equal([copy, KernelNames.GetString(raw)], group.Files.Select(f => f.Path.ToString()).Order(StringComparer.Ordinal));
    }

    [LinuxFact]
    public async Task Find_shows_the_byte_escaped_in_text_and_exact_in_json_and_csv()
    {
        using var tree = MakeTree(out var raw, out var copy, out var decoy);
        var folder = tree.PathOf("d");

        var (exit, text, stderr) = await RunCliAsync("find", folder);
        Assert.Equal(0, exit);
        Assert.Equal(string.Empty, stderr);
        Assert.Contains("  " + folder + @"/a\xFF.bin", text.Split('\n'));
        Assert.Contains("  " + copy, text.Split('\n'));

        (exit, _, _) = await RunCliAsync("find", folder, "--format", "json", "-o", tree.PathOf("r.json"));
        Assert.Equal(0, exit);
        using var json = JsonDocument.Parse(File.ReadAllBytes(tree.PathOf("r.json")));
        var files = json.RootElement.GetProperty("groups")[0].GetProperty("files").EnumerateArray().ToList();
        var rawEntry = Assert.Single(files, f => f.TryGetProperty("pathBytes", out _));
        Assert.Equal(raw, rawEntry.GetProperty("pathBytes").GetBytesFromBase64());
        Assert.Equal(folder + "/a\uFFFD.bin", rawEntry.GetProperty("path").GetString());
        var copyEntry = Assert.Single(files, f => !f.TryGetProperty("pathBytes", out _));
        Assert.Equal(copy, copyEntry.GetProperty("path").GetString());
        Assert.All(json.RootElement.GetProperty("roots").EnumerateArray(), r => Assert.False(r.TryGetProperty("pathBytes", out _)));

        (exit, _, _) = await RunCliAsync("find", folder, "--format", "csv", "-o", tree.PathOf("r.csv"));
        Assert.Equal(0, exit);
        var csv = File.ReadAllBytes(tree.PathOf("r.csv"));
        Assert.True(csv.AsSpan().IndexOf([(byte)',', .. raw, (byte)',']) >= 0);
        Assert.True(csv.AsSpan().IndexOf(Encoding.UTF8.GetBytes("," + copy + ",")) >= 0);
        AssertDecoyUntouched(decoy);
    }

    [LinuxFact]
    public async Task Delete_removes_the_non_utf8_name_and_never_the_decoy()
    {
        using var tree = MakeTree(out var raw, out var copy, out var decoy);

        var (exit, stdout, stderr) = await RunCliAsync("delete", "--keep", "path-order", "--yes", tree.PathOf("d"));

        Assert.True(exit == 0, stdout + stderr);
        Assert.Contains("1 done, 0 skipped, 0 failed", stdout, StringComparison.Ordinal);
        Assert.Null(Inode(raw));
        Assert.Equal(Content, File.ReadAllBytes(copy));
        AssertDecoyUntouched(decoy);
    }

    [LinuxFact]
    public async Task Hard_link_replaces_the_non_utf8_name_and_never_the_decoy()
    {
        using var tree = MakeTree(out var raw, out var copy, out var decoy);

        var (exit, stdout, stderr) = await RunCliAsync("link", "--mode", "hard", "--keep", "path-order", "--yes", tree.PathOf("d"));

        Assert.True(exit == 0, stdout + stderr);
        Assert.Contains("1 done, 0 skipped, 0 failed", stdout, StringComparison.Ordinal);
        Assert.Equal(Inode(Encoding.UTF8.GetBytes(copy)), Inode(raw));
        Assert.Equal(Content, ReadExact(raw));
        AssertDecoyUntouched(decoy);
    }

    [LinuxFact]
    public async Task From_report_acts_on_the_exact_name_even_when_the_decoy_now_has_the_same_content()
    {
        using var tree = MakeTree(out var raw, out var copy, out var decoy);
        var (exit, _, _) = await RunCliAsync("find", tree.PathOf("d"), "--format", "json", "-o", tree.PathOf("r.json"));
        Assert.Equal(0, exit);

        // The decoy now holds the very same bytes: a lossy lookup of the reported name would find a duplicate there.
        File.WriteAllBytes(decoy.Path, Content);
        decoy = (decoy.Path, Inode(Encoding.UTF8.GetBytes(decoy.Path))!.Value, Content);

        var (code, stdout, stderr) = await RunCliAsync("delete", "--from-report", tree.PathOf("r.json"), "--keep", "path-order", "--yes");

        Assert.True(code == 0, stdout + stderr);
        Assert.Contains("1 done, 0 skipped, 0 failed", stdout, StringComparison.Ordinal);
        Assert.Null(Inode(raw));
        Assert.Equal(Content, File.ReadAllBytes(copy));
        AssertDecoyUntouched(decoy);
    }

    [LinuxFact]
    public async Task Trash_moves_the_non_utf8_name_whole_and_never_the_decoy()
    {
        using var tree = MakeTree(out var raw, out var copy, out var decoy);
        var environment = new Dictionary<string, string> { ["XDG_DATA_HOME"] = tree.PathOf("xdg") };

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--trash", "--keep", "path-order", "--yes", tree.PathOf("d")], environment: environment);

        Assert.True(exit == 0, stdout + stderr);
        Assert.Contains("1 done, 0 skipped, 0 failed", stdout, StringComparison.Ordinal);
        Assert.Null(Inode(raw));
        Assert.Equal(Content, File.ReadAllBytes(copy));
        AssertDecoyUntouched(decoy);

        // The trash keeps the exact name (read back through libc: the BCL cannot name it), holds the file's bytes, and
        // its .trashinfo names the original with the byte percent-encoded.
        byte[] Under(string folder, params byte[][] tail) => [.. Encoding.UTF8.GetBytes(tree.PathOf(folder) + "/"), .. tail.SelectMany(t => t)];
        var info = ReadExact(Under("xdg/Trash/info", RawName, ".trashinfo"u8.ToArray()));
        Assert.Contains("/d/a%FF.bin", Encoding.UTF8.GetString(info), StringComparison.Ordinal);
        Assert.Equal(Content, ReadExact(Under("xdg/Trash/files", RawName)));
    }

    [LinuxFact]
    public async Task A_forged_pathBytes_naming_another_file_touches_nothing_there()
    {
        using var tree = MakeTree(out _, out _, out var decoy);
        var (exit, _, _) = await RunCliAsync("find", tree.PathOf("d"), "--format", "json", "-o", tree.PathOf("r.json"));
        Assert.Equal(0, exit);

        // The decoy gets the same bytes, and the report's pathBytes is rewritten to name it: its lossy form is the same
        // "a\uFFFD.bin", so only the recorded identity tells the two apart.
        File.WriteAllBytes(decoy.Path, Content);
        decoy = (decoy.Path, Inode(Encoding.UTF8.GetBytes(decoy.Path))!.Value, Content);
        var report = File.ReadAllText(tree.PathOf("r.json"));
        var forged = Convert.ToBase64String(Encoding.UTF8.GetBytes(decoy.Path));
        var original = System.Text.RegularExpressions.Regex.Match(report, "\"pathBytes\":\"([^\"]+)\"").Groups[1].Value;
        Assert.NotEmpty(original);
        File.WriteAllText(tree.PathOf("forged.json"), report.Replace(original, forged, StringComparison.Ordinal));

        var (code, stdout, stderr) = await RunCliAsync("delete", "--from-report", tree.PathOf("forged.json"), "--keep", "path-order", "--yes");

        Assert.NotEqual(0, code);
        Assert.DoesNotContain("1 done", stdout, StringComparison.Ordinal);
        AssertDecoyUntouched(decoy);
        Assert.False(string.IsNullOrWhiteSpace(stderr));
    }

    [LinuxFact]
    public async Task A_report_whose_pathBytes_is_not_base64_is_refused_with_a_clear_error()
    {
        using var tree = MakeTree(out var raw, out _, out var decoy);
        var (exit, _, _) = await RunCliAsync("find", tree.PathOf("d"), "--format", "json", "-o", tree.PathOf("r.json"));
        Assert.Equal(0, exit);
        var report = File.ReadAllText(tree.PathOf("r.json"));
        File.WriteAllText(tree.PathOf("bad.json"), System.Text.RegularExpressions.Regex.Replace(report, "\"pathBytes\":\"[^\"]+\"", "\"pathBytes\":\"%%%not base64\""));

        var (code, stdout, stderr) = await RunCliAsync("delete", "--from-report", tree.PathOf("bad.json"), "--keep", "path-order", "--yes");

        Assert.NotEqual(0, code);
        Assert.Contains(".path: its bytes", stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("1 done", stdout, StringComparison.Ordinal);
        Assert.NotNull(Inode(raw));
        AssertDecoyUntouched(decoy);
    }

    [LinuxFact]
    public async Task A_root_named_with_a_non_utf8_byte_is_scanned_and_the_lossy_name_is_not()
    {
        // .NET hands the program U+FFFD for the byte; the CLI takes the exact bytes from /proc/self/cmdline, and the
        // root check uses them too. Run again with a decoy folder carrying the lossy name and duplicates of its own:
        // scanning it instead would report them.
        using var tree = new TempTree();
        const string Script = """root="$1/r$(printf '\377')"; mkdir -p "$root" && printf abc > "$root/one" && printf abc > "$root/two" && exec "$2" "$3" find --format json "$root" """;
        byte[] root = [.. Encoding.UTF8.GetBytes(tree.Root + "/r"), 0xFF];
        for (var run = 0; run < 2; run++)
        {
            var (exit, stdout, stderr) = await ProcessRunner.RunAsync("bash", ["-c", Script, "bash", tree.Root, CliProcess.Dotnet, CliProcess.Dll]);

            Assert.True(exit == 0, stderr);
            using var json = JsonDocument.Parse(stdout);
            Assert.Equal(root, Assert.Single(json.RootElement.GetProperty("roots").EnumerateArray()).GetProperty("pathBytes").GetBytesFromBase64());
            var files = Assert.Single(json.RootElement.GetProperty("groups").EnumerateArray()).GetProperty("files").EnumerateArray()
                .Select(f => f.GetProperty("pathBytes").GetBytesFromBase64()).ToArray();
            Assert.Equal([[.. root, .. "/one"u8], [.. root, .. "/two"u8]], files);
            tree.Write("r\uFFFD/x", DecoyContent);
            tree.Write("r\uFFFD/y", DecoyContent);
        }
    }

    [LinuxFact]
    public async Task The_action_log_records_acted_and_kept_non_utf8_names_exactly_in_path_bytes()
    {
        // Group 1 keeps 0.bin and deletes a\xFF.bin (an acted name); group 2 keeps b\xFE.bin (a kept name) and deletes c.bin.
        using var tree = MakeTree(out var raw, out var copy, out var decoy);
        var other = TempTree.RandomBytes(3000, seed: 25);
        byte[] kept = [.. Encoding.UTF8.GetBytes(tree.PathOf("d") + "/b"), 0xFE, .. ".bin"u8];
        ExactNames.WriteFile(kept, other);
        var deleted = tree.Write("d/c.bin", other);
        var log = tree.PathOf("actions.jsonl");

        var (exit, stdout, stderr) = await RunCliAsync("delete", "--keep", "path-order", "--yes", "--log", log, tree.PathOf("d"));

        Assert.True(exit == 0, stdout + stderr);
        var all = File.ReadAllLines(log).Select(l => JsonDocument.Parse(l).RootElement).ToList();
        Assert.All(all, l => Assert.Equal(2, l.GetProperty("version").GetInt32()));
        var lines = all.Where(l => l.GetProperty("status").GetString() == "done").ToList();
        Assert.Equal(2, lines.Count);
        Assert.All(lines, l => Assert.Equal("done", l.GetProperty("status").GetString()));

        var acted = Assert.Single(lines, l => l.TryGetProperty("pathBytes", out _));
        Assert.Equal(raw, acted.GetProperty("pathBytes").GetBytesFromBase64());
        Assert.Equal(tree.PathOf("d") + "/a\uFFFD.bin", acted.GetProperty("path").GetString());
        Assert.Equal(copy, acted.GetProperty("kept").GetString());
        Assert.False(acted.TryGetProperty("keptBytes", out _));

        var keptLine = Assert.Single(lines, l => l.TryGetProperty("keptBytes", out _));
        Assert.Equal(kept, keptLine.GetProperty("keptBytes").GetBytesFromBase64());
        Assert.Equal(tree.PathOf("d") + "/b\uFFFD.bin", keptLine.GetProperty("kept").GetString());
        Assert.Equal(deleted, keptLine.GetProperty("path").GetString());
        Assert.False(keptLine.TryGetProperty("pathBytes", out _));
        AssertDecoyUntouched(decoy);
    }

    [LinuxTheory]
    [InlineData("find", "-o")]
    [InlineData("find", "--cache")]
    [InlineData("delete", "--log")]
    [InlineData("delete", "--from-report")]
    public async Task A_file_option_named_with_a_non_utf8_byte_is_refused_and_no_lossy_twin_is_written(string command, string option)
    {
        // .NET's file APIs would open "x\uFFFD" for the name "x\xFF": another file. The scan's own names may be anything.
        using var tree = new TempTree();
        tree.Write("d/a", DecoyContent);
        tree.Write("d/b", DecoyContent);
        const string Script = """exec "$2" "$3" "$4" "$5" "$1/x$(printf '\377')" --yes "$1/d" """;
        var args = command == "find" ? new[] { "-c", Script.Replace(" --yes", string.Empty, StringComparison.Ordinal) } : new[] { "-c", Script };
        var (exit, stdout, stderr) = await ProcessRunner.RunAsync("bash", [.. args, "bash", tree.Root, CliProcess.Dotnet, CliProcess.Dll, command, option]);

        Assert.True(exit == 2, $"exit {exit}; stderr: {stderr}");
        Assert.Contains("not UTF-8", stderr, StringComparison.Ordinal);
        Assert.Equal(string.Empty, stdout.Trim());
        Assert.Equal(["a", "b"], Directory.GetFiles(tree.PathOf("d")).Select(Path.GetFileName).Order(StringComparer.Ordinal));
        Assert.Equal(["d"], Directory.GetFileSystemEntries(tree.Root).Select(Path.GetFileName));
    }

    [LinuxFact]
    public async Task An_argument_starting_with_an_at_sign_is_a_folder_name_not_a_response_file()
    {
        // A response file's text is decoded lossily and could carry other roots and --yes: the CLI reads none.
        using var tree = new TempTree();
        tree.Write("d/a", DecoyContent);
        tree.Write("d/b", DecoyContent);
        File.WriteAllText(tree.PathOf("args"), tree.PathOf("d"));

        var (exit, stdout, stderr) = await ProcessRunner.RunAsync(CliProcess.Dotnet, [CliProcess.Dll, "find", "--format", "json", "@" + tree.PathOf("args")]);

        Assert.True(exit == 2, $"exit {exit}; stdout: {stdout}; stderr: {stderr}");
        Assert.Contains("@" + tree.PathOf("args"), stderr, StringComparison.Ordinal);
    }

    [LinuxFact]
    public void A_keep_rule_folder_named_with_a_non_utf8_byte_exists_and_its_lossy_twin_does_not_stand_in()
    {
        using var tree = new TempTree();
        byte[] folder = [.. Encoding.UTF8.GetBytes(tree.Root + "/k"), 0xFF];
        var name = KernelNames.GetString(folder);
        Directory.CreateDirectory(tree.PathOf("k\uFFFD")); // the lossy twin: Directory.Exists(name) finds this one

        Assert.NotNull(Dedup.Core.Linking.KeepRule.PreferUnder(name).Validate()); // not made yet: missing, whatever the twin
        ExactNames.CreateFolder(folder);
        Assert.Null(Dedup.Core.Linking.KeepRule.PreferUnder(name).Validate());
    }

    /// <summary>d/0.bin (the copy, first in path order), d/a\xFF.bin (same content), d/a\uFFFD.bin (the decoy, same size, other content).</summary>
    private static TempTree MakeTree(out byte[] raw, out string copy, out (string Path, ulong Inode, byte[] Content) decoy)
    {
        var tree = new TempTree();
        copy = tree.Write("d/0.bin", Content);
        var decoyPath = tree.Write("d/a\uFFFD.bin", DecoyContent);
        raw = [.. Encoding.UTF8.GetBytes(tree.PathOf("d") + "/"), .. RawName];
        ExactNames.WriteFile(raw, Content);
        decoy = (decoyPath, Inode(Encoding.UTF8.GetBytes(decoyPath))!.Value, DecoyContent);
        return tree;
    }

    private static void AssertDecoyUntouched((string Path, ulong Inode, byte[] Content) decoy)
    {
        Assert.Equal(decoy.Inode, Inode(Encoding.UTF8.GetBytes(decoy.Path)));
        Assert.Equal(decoy.Content, File.ReadAllBytes(decoy.Path));
    }

    private static byte[] ReadExact(byte[] path)
    {
        var fd = Open([.. path, 0], 0x80000, 0);
        Assert.True(fd >= 0, $"open: errno {Marshal.GetLastPInvokeError()}");
        try
        {
            var buffer = new byte[Content.Length + 1];
            var read = (int)Read(fd, buffer, buffer.Length);
            return buffer[..read];
        }
        finally
        {
            _ = Close(fd);
        }
    }

    /// <summary>The inode of the exact path (without following a link), or null when nothing has that name; through <c>stat</c>, not the code under test.</summary>
    private static ulong? Inode(byte[] path)
    {
        var fd = Open([.. path, 0], 0x200000 | 0x80000 | 0x20000, 0); // O_PATH | O_CLOEXEC | O_NOFOLLOW (x86-64 and other generic ports)
        if (fd < 0)
        {
            return null;
        }

        try
        {
            return InodeOfFd(fd);
        }
        finally
        {
            _ = Close(fd);
        }
    }

    private static ulong InodeOfFd(int fd)
    {
        var buffer = new byte[256];
        Assert.Equal(0, Statx(fd, [0], 0x1000, 0x7ff, buffer)); // AT_EMPTY_PATH, STATX_BASIC_STATS
        return BitConverter.ToUInt64(buffer, 32);
    }

    [DllImport("libc", EntryPoint = "open", SetLastError = true)]
    private static extern int Open(byte[] path, int flags, int mode);

    [DllImport("libc", EntryPoint = "read", SetLastError = true)]
    private static extern nint Read(int fd, byte[] buffer, nint count);

    [DllImport("libc", EntryPoint = "close")]
    private static extern int Close(int fd);

    [DllImport("libc", EntryPoint = "statx", SetLastError = true)]
    private static extern int Statx(int dirfd, byte[] path, int flags, uint mask, byte[] buffer);

    private static Task<(int ExitCode, string Stdout, string Stderr)> RunCliAsync(params string[] args) => CliProcess.RunAsync(args);
}
