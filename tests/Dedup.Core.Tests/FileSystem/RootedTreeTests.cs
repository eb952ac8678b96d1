using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Xunit;
using static Dedup.Core.Tests.FileSystem.KernelNumbers;

namespace Dedup.Core.Tests.FileSystem;

/// <summary>
/// The one walk from a root (issue #35 step 3), attacked at every step: between the listing and the walk, each folder on
/// the way (and the file at its end) is swapped for a symbolic link to a copy of the tree outside the root, for a file,
/// for a FIFO or for another folder. A walk must never reach outside its root through a link it did not list, never
/// take a file or a FIFO for a folder (nor wait on one), and the identity check between two steps must see a folder
/// swapped in. Each test first shows the unswapped walk succeeds, so a refusal is the swap's.
/// </summary>
public sealed class RootedTreeTests
{
    /// <summary>The folders of the walk, outermost first: step 1 is <c>a</c>, step 3 is <c>a/b/c</c>, which holds <c>f</c>.</summary>
    private static readonly string[] Steps = ["a", "a/b", "a/b/c"];

    public enum Swap
    {
        Link,
        File,
        Fifo,
    }

    [LinuxTheory]
    [MemberData(nameof(EveryStepAndSwap))]
    public void A_walk_from_a_root_refuses_a_folder_swapped_at_any_step(int step, Swap swap, bool followLinks)
    {
        using var tree = Tree(out var outside);
        var roots = new HashSet<AbsolutePath> { AbsolutePath.Parse(tree.Root) };
        var folder = AbsolutePath.Parse(tree.PathOf("a/b/c"));
        using (var before = new FolderCursor(roots, TreeWalkPolicy.ForScan(followLinks)))
        {
            Assert.True(before.Open(folder) >= 0);
        }

        SwapStep(tree, outside, Steps[step - 1], swap);

        // Neither the folder swapped nor any below it: a folder listed as a folder is never reached through a link,
        // following links or not, nor is a file or a FIFO taken for one.
        using var after = new FolderCursor(roots, TreeWalkPolicy.ForScan(followLinks));
        Assert.Equal(-1, after.Open(AbsolutePath.Parse(tree.PathOf(Steps[step - 1]))));
        using var deeper = new FolderCursor(roots, TreeWalkPolicy.ForScan(followLinks));
        Assert.Equal(-1, deeper.Open(folder));
        outside.Dispose();
    }

    [LinuxTheory]
    [MemberData(nameof(EveryStepAndSwap))]
    public void A_folder_opened_for_listing_by_its_name_refuses_a_link_a_file_or_a_fifo_in_its_place(int step, Swap swap, bool followLinks)
    {
        using var tree = Tree(out var outside);
        var node = AbsolutePath.Parse(tree.PathOf(Steps[step - 1]));
        var parentFd = RootedTree.OpenByPath(node.Parent!, RootedTree.Walked, followLast: false, out _);
        try
        {
            var fd = RootedTree.OpenChild(parentFd, node, TreeWalkPolicy.ForScan(followLinks), RootedTree.Listed, out _);
            Assert.True(fd >= 0);
            _ = Libc.Close(fd);

            SwapStep(tree, outside, Steps[step - 1], swap);

            Assert.Equal(-1, RootedTree.OpenChild(parentFd, node, TreeWalkPolicy.ForScan(followLinks), RootedTree.Listed, out var errno));
            Assert.Contains(errno, new[] { ELOOP, ENOTDIR });
        }
        finally
        {
            _ = Libc.Close(parentFd);
            outside.Dispose();
        }
    }

    [LinuxFact]
    public void A_link_the_listing_went_through_is_gone_through_again_only_when_the_scan_follows_links()
    {
        using var tree = Tree(out var outside);
        tree.Symlink(outside.PathOf("a"), "l");
        var root = AbsolutePath.Parse(tree.Root);
        var linked = AbsolutePathSymlinkPoint.Create(root, "l", outside.PathOf("a"));
        var roots = new HashSet<AbsolutePath> { root };

        using (var following = new FolderCursor(roots, TreeWalkPolicy.ForScan(followLinks: true)))
        {
            var fd = following.Open(linked);
            Assert.True(fd >= 0);
            Assert.Equal(0, Libc.FStat(fd, out var reached));
            Assert.Equal(0, Libc.LStat(outside.PathOf("a"), out var target));
            Assert.True(RootedTree.IsSame(reached, target));
        }

        using var notFollowing = new FolderCursor(roots, TreeWalkPolicy.ForScan(followLinks: false));
        Assert.Equal(-1, notFollowing.Open(linked));
        using var acting = new FolderCursor(roots, TreeWalkPolicy.ForActions);
        Assert.Equal(-1, acting.Open(linked));
        outside.Dispose();
    }

    [LinuxFact]
    public void A_walk_goes_no_deeper_than_its_policy_allows_nor_to_a_folder_outside_its_roots()
    {
        using var tree = Tree(out var outside);
        var roots = new HashSet<AbsolutePath> { AbsolutePath.Parse(tree.Root) };
        var folder = AbsolutePath.Parse(tree.PathOf("a/b/c"));

        using (var deep = new FolderCursor(roots, TreeWalkPolicy.ForScan(false, maxDepth: 3)))
        {
            Assert.True(deep.Open(folder) >= 0);
        }

        using var shallow = new FolderCursor(roots, TreeWalkPolicy.ForScan(false, maxDepth: 2));
        Assert.Equal(-1, shallow.Open(folder));
        Assert.Equal(-1, shallow.Open(AbsolutePath.Parse(outside.PathOf("a"))));
        outside.Dispose();
    }

    [LinuxTheory]
    [InlineData(0)] // a
    [InlineData(1)] // a/b
    [InlineData(2)] // a/b/c
    [InlineData(3)] // the file itself
    public unsafe void A_path_below_a_root_descriptor_is_opened_only_with_no_link_at_any_name(int swapped)
    {
        using var tree = Tree(out var outside);
        var rootFd = RootedTree.OpenByPath(AbsolutePath.Parse(tree.Root), RootedTree.Walked, followLast: true, out _);
        var flags = Libc.O_RDONLY | Libc.O_NOFOLLOW | Libc.O_NONBLOCK | Libc.O_CLOEXEC;
        var path = "a/b/c/f\0"u8.ToArray();
        try
        {
            fixed (byte* p = path)
            {
                var fd = RootedTree.OpenBeneath(rootFd, p, flags, noLinks: true);
                Assert.True(fd >= 0);
                _ = Libc.Close(fd);

                var name = swapped < 3 ? Steps[swapped] : "a/b/c/f";
                if (swapped < 3)
                {
                    SwapStep(tree, outside, name, Swap.Link);
                }
                else
                {
                    File.Move(tree.PathOf(name), tree.PathOf(name + ".moved"));
                    tree.Symlink(outside.PathOf(name), name);
                }

                Assert.Equal(-1, RootedTree.OpenBeneath(rootFd, p, flags, noLinks: true));
                Assert.Equal(ELOOP, Libc.LastErrno);
            }
        }
        finally
        {
            _ = Libc.Close(rootFd);
            outside.Dispose();
        }
    }

    [LinuxTheory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void A_resolved_path_walked_from_slash_refuses_a_folder_swapped_for_a_link_at_any_step(int step)
    {
        using var tree = Tree(out var outside);
        var resolved = Libc.RealPathOf(tree.PathOf("a/b/c"), out _)!;
        var fd = RootedTree.OpenResolved(resolved, out _);
        Assert.True(fd >= 0);
        _ = Libc.Close(fd);

        SwapStep(tree, outside, Steps[step - 1], Swap.Link);

        Assert.Equal(-1, RootedTree.OpenResolved(resolved, out var errno));
        Assert.Contains(errno, new[] { ELOOP, ENOTDIR });
        outside.Dispose();
    }

    [LinuxTheory]
    [InlineData(false)]
    [InlineData(true)]
    public void A_folder_swapped_for_another_folder_or_a_link_between_two_steps_fails_the_identity_check(bool byLink)
    {
        using var tree = Tree(out var outside);
        var path = tree.PathOf("a/b");
        var fd = RootedTree.OpenResolved(Libc.RealPathOf(path, out _)!, out _);
        try
        {
            Assert.Equal(0, RootedTree.IsAtPath(fd, path, followLast: false, out _));
            Directory.Move(path, path + ".moved");
            if (byLink)
            {
                Directory.CreateSymbolicLink(path, path + ".moved"); // the very folder, now through a link

                Assert.Equal(0, RootedTree.IsAtPath(fd, path, followLast: true, out _));
                Assert.Equal(-1, RootedTree.IsAtPath(fd, path, followLast: false, out _));
            }
            else
            {
                Directory.CreateDirectory(path); // another folder by the same name

                Assert.Equal(-1, RootedTree.IsAtPath(fd, path, followLast: true, out _));
                Assert.Equal(-1, RootedTree.IsAtPath(fd, path, followLast: false, out _));
            }
        }
        finally
        {
            _ = Libc.Close(fd);
            outside.Dispose();
        }
    }

    [LinuxTheory]
    [InlineData(Swap.Link)]
    [InlineData(Swap.File)]
    [InlineData(Swap.Fifo)]
    public void An_actions_step_down_refuses_a_link_a_file_or_a_fifo_and_says_when_it_is_a_link(Swap swap)
    {
        using var tree = Tree(out var outside);
        var rootFd = RootedTree.OpenResolved(Libc.RealPathOf(tree.Root, out _)!, out _);
        try
        {
            var fd = RootedTree.OpenChild(rootFd, "a", out _);
            Assert.True(fd >= 0);
            _ = Libc.Close(fd);
            Assert.False(RootedTree.IsLinkAt(rootFd, "a"));

            SwapStep(tree, outside, "a", swap);

            Assert.Equal(-1, RootedTree.OpenChild(rootFd, "a", out var errno));
            Assert.Contains(errno, new[] { ELOOP, ENOTDIR });
            Assert.Equal(swap == Swap.Link, RootedTree.IsLinkAt(rootFd, "a"));
        }
        finally
        {
            _ = Libc.Close(rootFd);
            outside.Dispose();
        }
    }

    public static TheoryData<int, Swap, bool> EveryStepAndSwap()
    {
        var data = new TheoryData<int, Swap, bool>();
        for (var step = 1; step <= Steps.Length; step++)
        {
            foreach (var swap in Enum.GetValues<Swap>())
            {
                data.Add(step, swap, false);
                data.Add(step, swap, true);
            }
        }

        return data;
    }

    /// <summary>A root holding <c>a/b/c/f</c>, and outside it a copy of the same folders and file for a link to lead to.</summary>
    private static TempTree Tree(out TempTree outside)
    {
        var tree = new TempTree();
        tree.Write("a/b/c/f", "inside");
        outside = new TempTree();
        outside.Write("a/b/c/f", "outside");
        return tree;
    }

    /// <summary>Moves the folder <paramref name="relative"/> aside and puts <paramref name="swap"/> in its place.</summary>
    private static void SwapStep(TempTree tree, TempTree outside, string relative, Swap swap)
    {
        var path = tree.PathOf(relative);
        Directory.Move(path, path + ".moved");
        switch (swap)
        {
            case Swap.Link:
                Directory.CreateSymbolicLink(path, outside.PathOf(relative));
                break;
            case Swap.File:
                File.WriteAllText(path, "a file now");
                break;
            default:
                TempTree.Run("mkfifo", path);
                break;
        }
    }
}
