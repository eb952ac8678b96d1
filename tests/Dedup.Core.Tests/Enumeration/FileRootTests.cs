using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.EnumerationTests;

/// <summary>
/// Files as roots (#37 point 6; jdupes, fdupes and rmlint accept them): a file root is compared with the other roots'
/// files, only that name in its folder is looked at, and one that is not a regular file is refused with a clear line.
/// </summary>
public sealed class FileRootTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, 37);

    [LinuxFact]
    public async Task A_file_root_is_found_duplicate_of_a_file_in_a_folder_root_and_nothing_beside_it_is_scanned()
    {
        using var tree = new TempTree();
        tree.Write("dir/x.bin", Content);
        var root = tree.Write("loose/a.bin", Content);
        tree.Write("loose/beside.bin", Content); // same bytes, but not a root nor in one

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(root).AddRoot(tree.PathOf("dir")));

        var group = Assert.Single(groups);
        Assert.Equal([tree.PathOf("dir/x.bin"), root], group.Files.Select(f => f.Path.ToString()).Order(StringComparer.Ordinal));
        Assert.Equal(2, summary.FilesScanned);
        var fileRoot = Assert.Single(group.Roots, r => r.Path.ToString() == root);
        Assert.Equal(group.Files.Single(f => f.Path.ToString() == root).Identity, fileRoot.Identity);
    }

    [LinuxFact]
    public async Task A_file_root_named_through_a_linked_folder_is_read_and_compared()
    {
        using var tree = new TempTree();
        tree.Write("dir/x.bin", Content);
        tree.Write("real/a.bin", Content);
        File.CreateSymbolicLink(tree.PathOf("alias"), tree.PathOf("real"));
        var root = tree.PathOf("alias/a.bin");

        var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(root).AddRoot(tree.PathOf("dir")));

        Assert.Empty(summary.Errors);
        Assert.Equal([tree.PathOf("alias/a.bin"), tree.PathOf("dir/x.bin")], Assert.Single(groups).Files.Select(f => f.Path.ToString()).Order(StringComparer.Ordinal));
    }

    [LinuxFact]
    public async Task A_hidden_file_named_as_a_root_is_scanned()
    {
        using var tree = new TempTree();
        tree.Write("dir/x.bin", Content);
        var root = tree.Write(".profile.bak", Content);

        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(root).AddRoot(tree.PathOf("dir")));

        Assert.Contains(root, Assert.Single(groups).Files.Select(f => f.Path.ToString()));
    }

    [LinuxFact]
    public async Task The_same_file_as_root_twice_and_inside_a_folder_root_is_one_file()
    {
        using var tree = new TempTree();
        var file = tree.Write("dir/x.bin", Content);
        tree.Write("dir/y.bin", Content);

        var (groups, _) = await Scan.RunAsync(b => b.AddRoot(file).AddRoot(tree.PathOf("dir/../dir/x.bin")).AddRoot(tree.PathOf("dir")).AddRoot(file));

        var group = Assert.Single(groups);
        Assert.Equal(2, group.Files.Count);
        Assert.All(group.Files, f => Assert.Empty(f.OtherLinks));
    }

    [LinuxFact]
    public async Task A_file_root_alone_with_no_other_copy_is_no_group_and_two_file_roots_are_compared()
    {
        using var tree = new TempTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("sub/b.bin", Content);
        tree.Write("sub/c.bin", Content);

        var (alone, _) = await Scan.RunAsync(x => x.AddRoot(a));
        var (pair, _) = await Scan.RunAsync(x => x.AddRoot(a).AddRoot(b));

        Assert.Empty(alone);
        Assert.Equal([a, b], Assert.Single(pair).Files.Select(f => f.Path.ToString()).Order(StringComparer.Ordinal));
    }

    [LinuxFact]
    public async Task A_fifo_root_is_refused_with_a_clear_line_and_never_opened()
    {
        using var tree = new TempTree();
        tree.Write("dir/x.bin", Content);
        var fifo = tree.PathOf("pipe");
        TempTree.Run("mkfifo", fifo);
        using var opens = new OpenEvents(tree.Root);

        var finder = new DuplicateFinderBuilder().AddRoot(fifo).AddRoot(tree.PathOf("dir")).Build();
        var refused = Assert.Throws<DirectoryNotFoundException>(finder.CheckRoots);
        var scan = await Assert.ThrowsAsync<DirectoryNotFoundException>(() => Scan.RunAsync(finder));

        Assert.Equal($"The root '{fifo}' is not a regular file or folder (a FIFO, socket or device is never opened).", refused.Message);
        Assert.Equal(refused.Message, scan.Message);
        Assert.False(opens.Counts().ContainsKey("pipe"));
    }

    [LinuxFact]
    public void A_device_root_is_refused_like_a_fifo()
    {
        var finder = new DuplicateFinderBuilder().AddRoot("/dev/null").Build();

        Assert.Contains("is not a regular file or folder", Assert.Throws<DirectoryNotFoundException>(finder.CheckRoots).Message, StringComparison.Ordinal);
    }

    [LinuxFact]
    public async Task A_root_that_is_a_link_to_a_file_is_refused_unless_links_are_followed()
    {
        using var tree = new TempTree();
        tree.Write("dir/x.bin", Content);
        var target = tree.Write("elsewhere/t.bin", Content);
        var link = tree.PathOf("link.bin");
        File.CreateSymbolicLink(link, target);

        var refused = Assert.Throws<DirectoryNotFoundException>(new DuplicateFinderBuilder().AddRoot(link).AddRoot(tree.PathOf("dir")).Build().CheckRoots);
        var (followed, _) = await Scan.RunAsync(b => b.AddRoot(link).AddRoot(tree.PathOf("dir")).FollowSymbolicLinks());

        Assert.Contains("is a symbolic link to a file, not followed", refused.Message, StringComparison.Ordinal);
        Assert.Equal([tree.PathOf("dir/x.bin"), link], Assert.Single(followed).Files.Select(f => f.Path.ToString()).Order(StringComparer.Ordinal));
    }

    [LinuxFact]
    public void Folder_mode_refuses_a_file_root()
    {
        using var tree = new TempTree();
        var file = tree.Write("a.bin", Content);

        var finder = new DuplicateFinderBuilder().AddRoot(file).UseFolderMode().Build();

        Assert.Contains("folder mode compares folders", Assert.Throws<DirectoryNotFoundException>(finder.CheckRoots).Message, StringComparison.Ordinal);
    }
}
