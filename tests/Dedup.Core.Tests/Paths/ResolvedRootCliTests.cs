using System.Text.Json;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;
using Dedup.Core.Tests.Paths;
using Xunit;

namespace Dedup.Core.Tests.Paths;

/// <summary>
/// The CLI's folders mean what the kernel means (#34): with <c>lx/l -> real/deep</c>, <c>dedup delete --yes lx/l/..</c>
/// scanned all of <c>lx</c> and deleted <c>lx/other/b</c>. Run as typed, relative to the current folder.
/// </summary>
public sealed class ResolvedRootCliTests
{
    [LinuxFact]
    public async Task Delete_with_a_root_climbing_out_of_a_link_acts_inside_the_link_targets_parent_only()
    {
        using var tree = ResolvedRootTests.CopiesTree();
        var sibling = Snapshot(tree.PathOf("lx/other/b.bin"));

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--yes", "lx/l/.."], tree.Root);

        Assert.True(exit == 0, stderr);
        Assert.Contains("1 done", stdout, StringComparison.Ordinal);
        Assert.Equal(sibling, Snapshot(tree.PathOf("lx/other/b.bin")));
        Assert.Single(Directory.GetFiles(tree.PathOf("lx/real")));
    }

    [LinuxFact]
    public async Task A_keep_prefix_climbing_out_of_a_link_keeps_the_copy_in_the_link_targets_parent()
    {
        using var tree = ResolvedRootTests.CopiesTree();
        var kept = Snapshot(tree.PathOf("lx/real/a.bin"));

        // Read lexically, prefix:lx/l/.. is lx, which holds every copy: path order would keep lx/other/b.bin.
        var (exit, _, stderr) = await CliProcess.RunAsync(["delete", "--yes", "--keep", "prefix:lx/l/..", "--keep", "path-order", "lx"], tree.Root);

        Assert.True(exit == 0, stderr);
        Assert.Equal(kept, Snapshot(tree.PathOf("lx/real/a.bin")));
        Assert.False(File.Exists(tree.PathOf("lx/real/c.bin")));
        Assert.False(File.Exists(tree.PathOf("lx/other/b.bin")));
    }

    [LinuxFact]
    public async Task A_keep_prefix_climbing_out_of_what_does_not_exist_is_a_usage_error()
    {
        using var tree = ResolvedRootTests.CopiesTree();

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--yes", "--keep", "prefix:lx/missing/..", "lx"], tree.Root);

        Assert.Equal(2, exit);
        Assert.Contains("'--keep prefix:lx/missing/..': no folder", stderr, StringComparison.Ordinal);
        Assert.Contains($"climbs out of '{tree.PathOf("lx/missing/..")}'", stderr, StringComparison.Ordinal);
        Assert.Equal(string.Empty, stdout);
        Assert.Equal(3, Directory.GetFiles(tree.PathOf("lx"), "*.bin", SearchOption.AllDirectories).Length);
    }

    [LinuxFact]
    public async Task A_report_of_a_root_climbing_out_of_a_link_records_and_acts_on_the_link_targets_parent_only()
    {
        using var tree = ResolvedRootTests.CopiesTree();
        var sibling = Snapshot(tree.PathOf("lx/other/b.bin"));
        var report = tree.PathOf("report.json");

        var (found, _, findErrors) = await CliProcess.RunAsync(["find", "--format", "json", "-o", report, "lx/l/.."], tree.Root);
        Assert.True(found == 0, findErrors);
        using (var json = JsonDocument.Parse(File.ReadAllText(report)))
        {
            Assert.Equal(tree.PathOf("lx/real"), Assert.Single(json.RootElement.GetProperty("roots").EnumerateArray()).GetProperty("path").GetString());
            var files = json.RootElement.GetProperty("groups").EnumerateArray().SelectMany(g => g.GetProperty("files").EnumerateArray()).Select(f => f.GetProperty("path").GetString()).ToArray();
            Assert.Equal([tree.PathOf("lx/real/a.bin"), tree.PathOf("lx/real/c.bin")], files.Order(StringComparer.Ordinal));
        }

        // A report whose root is spelled with ".." is not one dedup wrote: refused, whatever it would mean.
        var spelled = tree.PathOf("spelled.json");
        File.WriteAllText(spelled, File.ReadAllText(report).Replace($"\"path\":\"{tree.PathOf("lx/real")}\"", $"\"path\":\"{tree.PathOf("lx/l/..")}\"", StringComparison.Ordinal));
        var (refused, _, refusal) = await CliProcess.RunAsync(["delete", "--yes", "--from-report", spelled], tree.Root);
        Assert.Equal(2, refused);
        Assert.Contains("roots[0].path is not a normalized path", refusal, StringComparison.Ordinal);

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", "--yes", "--from-report", report], tree.Root);

        Assert.True(exit == 0, stderr);
        Assert.Contains("1 done", stdout, StringComparison.Ordinal);
        Assert.Equal(sibling, Snapshot(tree.PathOf("lx/other/b.bin")));
        Assert.Single(Directory.GetFiles(tree.PathOf("lx/real")));
    }

    [LinuxFact]
    public async Task A_root_that_is_a_file_or_missing_is_named_as_a_root_not_as_the_keep_rules_folder()
    {
        using var tree = ResolvedRootTests.CopiesTree();

        // Without --keep, first-root names the roots too: it used to be blamed ("the keep rule's folder").
        // (A file is a root of its own, except with --folders, which compares folders.)
        string[][] commands = [["delete", "--folders", "--yes", "lx/real/a.bin", "lx"], ["delete", "--folders", "--yes", "--keep", "first-root", "lx", "lx/real/a.bin"]];
        foreach (var args in commands)
        {
            var (exit, stdout, stderr) = await CliProcess.RunAsync(args, tree.Root);

            Assert.Equal(2, exit);
            Assert.Equal($"dedup: The root '{tree.PathOf("lx/real/a.bin")}' is a file: folder mode compares folders, so its roots must be folders.\n", stderr);
            Assert.Equal(string.Empty, stdout);
        }

        var (missingExit, _, missing) = await CliProcess.RunAsync(["link", "--mode", "hard", "--yes", "lx", "gone"], tree.Root);
        Assert.Equal(2, missingExit);
        Assert.Equal($"dedup: The root folder '{tree.PathOf("gone")}' does not exist (is its disk mounted?).\n", missing);
        Assert.Equal(3, Directory.GetFiles(tree.PathOf("lx"), "*.bin", SearchOption.AllDirectories).Length);
    }

    /// <summary>What must not change about a file: its inode and its bytes.</summary>
    private static (ulong Inode, string Bytes) Snapshot(string path) => (TestNative.Inode(path), Convert.ToBase64String(File.ReadAllBytes(path)));
}
