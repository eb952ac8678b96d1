using Dedup.Core.Tests.Infrastructure;
using static Dedup.Core.Tests.Infrastructure.ReferenceRecipe;

namespace Dedup.Cli.Tests.Acting;

/// <summary>
/// <c>dedup delete B --reference A</c> end to end (issue #37 point 3): "delete from B whatever exists in A, never touch A,
/// ignore duplicates inside B", rmlint's <c>rmlint B // A -k -m</c>, on the trees of <see cref="ReferenceRecipe"/>. Only
/// B/copy goes; when rmlint is installed, it is run on the same tree and leaves the same files.
/// </summary>
public sealed class ReferenceFolderTests
{
    private static Task<(int ExitCode, string Stdout, string Stderr)> RunAsync(TempTree tree, params string[] options) =>
        CliProcess.RunAsync(["delete", tree.PathOf("B"), .. options, "--yes"]);

    [LinuxFact]
    public async Task Delete_with_a_reference_folder_removes_only_the_copy_in_B()
    {
        using var tree = Files();

        // A is not under the PATH B: it is scanned too.
        var (exit, stdout, stderr) = await RunAsync(tree, "--reference", tree.PathOf("A"));

        Assert.True(exit == 0, stderr);
        Assert.Contains("1 group left alone: no copy under a --reference folder", stdout, StringComparison.Ordinal);
        Assert.Contains("1 done, 0 skipped, 0 failed", stdout, StringComparison.Ordinal);
        Assert.Equal(["A/one", "A/two", "B/x1", "B/x2"], Remaining(tree));
    }

    [RequiresToolFact("rmlint")]
    public async Task Rmlint_leaves_the_same_files()
    {
        using var ours = Files();
        using var theirs = Files();

        var (exit, _, stderr) = await RunAsync(ours, "--reference", ours.PathOf("A"));

        Assert.True(exit == 0, stderr);
        Assert.Equal(["A/one", "A/two", "B/x1", "B/x2"], await RmlintAsync(theirs));
        Assert.Equal(Remaining(theirs), Remaining(ours));
    }

    /// <summary>
    /// Folder mode: B/d1 and B/d2 are equal folders with no folder under A, so they are not acted on whole; their files
    /// still are, as files: both copies of A/one go, u (in B only) stays in both.
    /// </summary>
    [LinuxFact]
    public async Task With_folders_a_copy_of_a_reference_file_inside_a_duplicate_folder_pair_is_deleted()
    {
        using var tree = FolderPairs();

        var (exit, stdout, stderr) = await RunAsync(tree, "--reference", tree.PathOf("A"), "--folders");

        Assert.True(exit == 0, stderr);
        Assert.Contains("2 done, 0 skipped, 0 failed", stdout, StringComparison.Ordinal);
        Assert.Equal(["A/one", "B/d1/u", "B/d2/u"], Remaining(tree));
    }

    [RequiresToolFact("rmlint")]
    public async Task With_folders_rmlint_leaves_the_same_files()
    {
        using var ours = FolderPairs();
        using var theirs = FolderPairs();

        var (exit, _, stderr) = await RunAsync(ours, "--reference", ours.PathOf("A"), "--folders");

        Assert.True(exit == 0, stderr);
        Assert.Equal(["A/one", "B/d1/u", "B/d2/u"], await RmlintAsync(theirs, folders: true));
        Assert.Equal(Remaining(theirs), Remaining(ours));
    }

    [LinuxFact]
    public async Task Protect_keeps_every_copy_in_A_and_still_removes_duplicates_inside_B()
    {
        using var tree = Files();

        var (exit, stdout, stderr) = await RunAsync(tree, "--protect", tree.PathOf("A"));

        Assert.True(exit == 0, stderr);
        Assert.Contains("2 done, 0 skipped, 0 failed", stdout, StringComparison.Ordinal);
        Assert.Equal(["A/one", "A/two", "B/x1"], Remaining(tree));
    }

    [LinuxFact]
    public async Task A_protected_folder_that_does_not_exist_is_a_usage_error()
    {
        using var tree = Files();

        var (exit, _, stderr) = await RunAsync(tree, "--protect", tree.PathOf("nothing"));

        Assert.Equal(2, exit);
        Assert.Contains($"The protected folder '{tree.PathOf("nothing")}' does not exist.", stderr, StringComparison.Ordinal);
        Assert.Equal(5, Remaining(tree).Count);
    }
}
