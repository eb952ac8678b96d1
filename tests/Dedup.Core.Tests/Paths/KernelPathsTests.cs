using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Paths;

/// <summary>
/// <see cref="AbsolutePath.Resolve"/>: a <c>..</c> means what it means to the kernel. With <c>lx/l -> real/deep</c>,
/// <c>lx/l/..</c> is <c>lx/real</c>; <see cref="AbsolutePath.Parse"/> reads it as <c>lx</c> (#34).
/// </summary>
public sealed class KernelPathsTests
{
    [LinuxFact]
    public void A_parent_step_after_a_link_climbs_out_of_the_link_target()
    {
        using var tree = LinkTree();

        Assert.Equal(tree.PathOf("lx/real"), AbsolutePath.Resolve(tree.PathOf("lx/l/..")).ToString());
        Assert.Equal(tree.PathOf("lx/real"), AbsolutePath.Resolve(tree.PathOf("lx/l/../")).ToString());
        Assert.Equal(tree.PathOf("lx/real"), AbsolutePath.Resolve(tree.PathOf("lx/l/deeper/../..")).ToString());
        Assert.Equal(tree.PathOf("lx"), AbsolutePath.Resolve(tree.PathOf("lx/l/../..")).ToString());
    }

    [LinuxFact]
    public void What_follows_the_last_parent_step_is_kept_as_spelled()
    {
        using var tree = LinkTree();

        // Neither "sub" nor "new" exists: only the part up to the last ".." has to.
        Assert.Equal(tree.PathOf("lx/real/sub/new"), AbsolutePath.Resolve(tree.PathOf("lx/l/../sub/./new")).ToString());
        Assert.Equal(tree.PathOf("lx/real/deep/l2"), AbsolutePath.Resolve(tree.PathOf("lx/l/../deep//l2")).ToString());
    }

    [LinuxFact]
    public void A_parent_step_that_leads_where_it_reads_keeps_the_spelling()
    {
        using var tree = LinkTree();

        // "alias" leads to lx: "alias/real/deep/.." is lx/real to the kernel too, so the name typed stays.
        tree.Symlink(tree.PathOf("lx"), "alias");
        Assert.Equal(tree.PathOf("alias/real"), AbsolutePath.Resolve(tree.PathOf("alias/real/deep/..")).ToString());
        Assert.Equal(tree.PathOf("alias/real"), AbsolutePath.Resolve(tree.PathOf("alias/real/./deep//..")).ToString());
    }

    [LinuxFact]
    public void Without_a_parent_step_nothing_is_read_and_the_path_is_only_tidied()
    {
        using var tree = LinkTree();

        Assert.Equal(tree.PathOf("lx/l/x"), AbsolutePath.Resolve(tree.PathOf("lx/./l//x/")).ToString());
        Assert.Equal("/nonexistent-" + Guid.Empty + "/a", AbsolutePath.Resolve("/nonexistent-" + Guid.Empty + "/./a").ToString());
        Assert.Equal(Path.Combine(Environment.CurrentDirectory, "x", "y"), AbsolutePath.Resolve("x/y").ToString());
        Assert.Equal("/", AbsolutePath.Resolve("/..").ToString());
    }

    [LinuxFact]
    public void A_parent_step_out_of_what_does_not_exist_is_refused_even_where_the_lexical_path_exists()
    {
        using var tree = LinkTree();
        tree.Write("lx/file", "x");

        var missing = Assert.Throws<DirectoryNotFoundException>(() => AbsolutePath.Resolve(tree.PathOf("lx/missing/../real")));
        Assert.Contains(tree.PathOf("lx/missing/.."), missing.Message, StringComparison.Ordinal);
        Assert.Throws<DirectoryNotFoundException>(() => AbsolutePath.Resolve(tree.PathOf("lx/file/../real")));
        Assert.Throws<ArgumentNullException>(() => AbsolutePath.Resolve(null!));
        Assert.Throws<ArgumentException>(() => AbsolutePath.Resolve(string.Empty));
    }

    [Theory]
    [InlineData("/a/b", -1)]
    [InlineData("/a/..b/c..", -1)]
    [InlineData("/a/...", -1)]
    [InlineData("/..", 3)]
    [InlineData("..", 2)]
    [InlineData("../a", 2)]
    [InlineData("/a/../b", 5)]
    [InlineData("/a/../b/../", 10)]
    [InlineData("/a/..//", 5)]
    public void The_last_parent_step_is_found_by_whole_names(string path, int end)
    {
        Assert.Equal(end, KernelPaths.EndOfLastParentStep(path));
    }

    /// <summary><c>lx/l -> real/deep</c>, <c>lx/real/deep/deeper</c>, <c>lx/other</c>.</summary>
    internal static TempTree LinkTree()
    {
        var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("lx/real/deep/deeper"));
        Directory.CreateDirectory(tree.PathOf("lx/other"));
        tree.Symlink("real/deep", "lx/l");
        return tree;
    }
}
