using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Cli.Tests.Acting;

/// <summary>
/// <c>dedup delete B --reference A</c> end to end (issue #37 point 3): "delete from B whatever exists in A, never touch A,
/// ignore duplicates inside B", rmlint's <c>rmlint B // A -k -m</c>. The recipe: A/one, A/two and B/copy equal; B/x1
/// and B/x2 equal. Only B/copy goes; when rmlint is installed, it is run on the same recipe and leaves the same files.
/// </summary>
public sealed class ReferenceFolderTests
{
    private static readonly byte[] Same = TempTree.RandomBytes(5000, 391);
    private static readonly byte[] Other = TempTree.RandomBytes(6000, 392);

    private static TempTree Recipe()
    {
        var tree = new TempTree();
        tree.Write("A/one", Same);
        tree.Write("A/two", Same);
        tree.Write("B/copy", Same);
        tree.Write("B/x1", Other);
        tree.Write("B/x2", Other);
        return tree;
    }

    private static List<string> Remaining(TempTree tree, string? except = null) =>
        Directory.EnumerateFiles(tree.Root, "*", SearchOption.AllDirectories)
            .Select(f => Path.GetRelativePath(tree.Root, f))
            .Where(f => except is null || !f.StartsWith(except, StringComparison.Ordinal))
            .Order(StringComparer.Ordinal).ToList();

    [LinuxFact]
    public async Task Delete_with_a_reference_folder_removes_only_the_copy_in_B()
    {
        using var tree = Recipe();

        // A is not under the PATH B: it is scanned too.
        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", tree.PathOf("B"), "--reference", tree.PathOf("A"), "--yes"]);

        Assert.True(exit == 0, stderr);
        Assert.Contains("1 group left alone: no copy under a --reference folder", stdout, StringComparison.Ordinal);
        Assert.Contains("1 done, 0 skipped, 0 failed", stdout, StringComparison.Ordinal);
        Assert.Equal(["A/one", "A/two", "B/x1", "B/x2"], Remaining(tree));
    }

    [RequiresToolFact("rmlint")]
    public async Task Rmlint_leaves_the_same_files()
    {
        using var ours = Recipe();
        using var theirs = Recipe();
        using var work = new TempTree(); // rmlint writes its script and a stamp file where it runs

        var (exit, _, stderr) = await CliProcess.RunAsync(["delete", ours.PathOf("B"), "--reference", ours.PathOf("A"), "--yes"]);
        var script = work.PathOf("rmlint.sh");
        await ProcessRunner.RunAsync("rmlint", ["-o", "sh:" + script, theirs.PathOf("B"), "//", theirs.PathOf("A"), "-k", "-m"], workingDirectory: work.Root);
        await ProcessRunner.RunAsync("sh", [script, "-d"], workingDirectory: work.Root);

        Assert.True(exit == 0, stderr);
        Assert.Equal(["A/one", "A/two", "B/x1", "B/x2"], Remaining(theirs));
        Assert.Equal(Remaining(theirs), Remaining(ours));
    }

    [LinuxFact]
    public async Task Protect_keeps_every_copy_in_A_and_still_removes_duplicates_inside_B()
    {
        using var tree = Recipe();

        var (exit, stdout, stderr) = await CliProcess.RunAsync(["delete", tree.PathOf("B"), "--protect", tree.PathOf("A"), "--yes"]);

        Assert.True(exit == 0, stderr);
        Assert.Contains("2 done, 0 skipped, 0 failed", stdout, StringComparison.Ordinal);
        Assert.Equal(["A/one", "A/two", "B/x1"], Remaining(tree));
    }

    [LinuxFact]
    public async Task A_protected_folder_that_does_not_exist_is_a_usage_error()
    {
        using var tree = Recipe();

        var (exit, _, stderr) = await CliProcess.RunAsync(["delete", tree.PathOf("B"), "--protect", tree.PathOf("nothing"), "--yes"]);

        Assert.Equal(2, exit);
        Assert.Contains($"The protected folder '{tree.PathOf("nothing")}' does not exist.", stderr, StringComparison.Ordinal);
        Assert.Equal(5, Remaining(tree).Count);
    }
}
