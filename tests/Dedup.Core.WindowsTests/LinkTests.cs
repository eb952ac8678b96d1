using Dedup.Core.Reporting;
using Dedup.Core.WindowsTests.Infrastructure;

namespace Dedup.Core.WindowsTests;

/// <summary>
/// Hard and symbolic links met by a scan on Windows. Hard-link folding waits for Windows file identities (issue #15
/// part 1: today every file gets a synthetic identity there); symbolic links need what Wine does not provide.
/// </summary>
public sealed class LinkTests
{
    [Fact]
    public void The_test_tree_makes_real_hard_links()
    {
        // The oracle the folding tests rely on: two names, one file index, two links (Wine reports these from the inode).
        using var tree = new TempTree();
        var original = tree.Write("x/original.txt", "same content");
        var link = tree.HardLink(original, "x/linked.txt");

        var (serial, index, links) = Win32.FileIdentity(original);
        Assert.Equal((serial, index, 2u), Win32.FileIdentity(link));
        Assert.Equal(2u, links);
    }

    [Fact]
    public async Task Hard_links_fold_into_one_file()
    {
        using var tree = new TempTree();
        var original = tree.Write("x/original.txt", "same content");
        tree.HardLink(original, "x/linked.txt");
        tree.Write("y/copy.txt", "same content");

        var only = Assert.Single(await Scans.RawGroupsAsync(tree.Root));

        Assert.Equal(2, only.Files.Count); // the two names of one file count once
        var linked = Assert.Single(only.Files, f => f.OtherLinks.Count == 1);
        Assert.Equal(2, linked.LinkCount);
        Assert.Equal(Win32.FileIdentity(original).Index, linked.Identity.FileId);
    }

    [Fact]
    public async Task Hard_links_alone_are_not_duplicates()
    {
        using var tree = new TempTree();
        tree.HardLink(tree.Write("original.txt", "one file, two names"), "second-name.txt");

        Assert.Empty(await Scans.GroupsAsync(tree));
    }

    [Fact]
    public async Task Symbolic_links_are_skipped_by_default()
    {
        using var tree = new TempTree();
        var target = tree.Write("real.txt", "content");
        CreateSymbolicLinkOrSkip(tree.PathOf("link.txt"), target);

        Assert.Empty(await Scans.GroupsAsync(tree));
    }

    [Fact]
    public async Task A_folder_symbolic_link_loop_is_reported_not_followed_forever()
    {
        using var tree = new TempTree();
        tree.Write("top/a.txt", "twin");
        tree.Write("top/sub/b.txt", "twin");
        var link = tree.PathOf("top/sub/back-to-top");
        Wine.SkipUnderWine("symbolic links (CreateSymbolicLinkW is not implemented, and Unix symlinks appear to Windows programs as plain files or folders)");
        try
        {
            Directory.CreateSymbolicLink(link, tree.PathOf("top"));
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            Assert.Skip("Creating a symbolic link needs SeCreateSymbolicLinkPrivilege or Developer Mode: " + ex.Message);
        }

        var errors = new List<ScanError>();
        var groups = await Scans.GroupsAsync(tree, b => b.FollowSymbolicLinks(), errors);

        Assert.Equal(["top/a.txt", "top/sub/b.txt"], Assert.Single(groups));
        Assert.Contains(errors, e => e.Kind == ScanErrorKind.SymbolicLinkLoop);
    }

    private static void CreateSymbolicLinkOrSkip(string link, string target)
    {
        Wine.SkipUnderWine("symbolic links (CreateSymbolicLinkW is not implemented, and Unix symlinks appear to Windows programs as plain files or folders)");
        try
        {
            File.CreateSymbolicLink(link, target);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            Assert.Skip("Creating a symbolic link needs SeCreateSymbolicLinkPrivilege or Developer Mode: " + ex.Message);
        }
    }
}
