using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Xunit;
using static Dedup.Core.Tests.FileSystem.KernelNumbers;

namespace Dedup.Core.Tests.FileSystem;

/// <summary>
/// The details of <see cref="RootedTree"/>'s opens that the swap tests do not reach (found by Stryker): the flags each
/// descriptor carries (read back from /proc/self/fdinfo), the errno it reports, a link or a FIFO at a file's name, and
/// that no walk leaves a descriptor behind.
/// </summary>
public sealed class RootedTreeDetailTests
{
    [LinuxFact]
    public void A_path_is_opened_through_a_link_at_its_last_name_only_when_asked_and_never_a_file_for_a_folder()
    {
        using var tree = new TempTree();
        tree.Write("a/f", "x");
        tree.Symlink(tree.PathOf("a"), "l");

        var fd = RootedTree.OpenByPath(AbsolutePath.Parse(tree.PathOf("l")), RootedTree.Walked, followLast: true, out var errno);
        Assert.True(fd >= 0);
        Assert.Equal(0, errno);
        Assert.Equal(Libc.RealPathOf(tree.PathOf("a"), out _), Target(fd));
        Assert.Equal(O_PATH | O_CLOEXEC, Flags(fd) & (O_PATH | O_CLOEXEC));
        _ = Libc.Close(fd);

        Assert.Equal(-1, RootedTree.OpenByPath(AbsolutePath.Parse(tree.PathOf("l")), RootedTree.Walked, followLast: false, out errno));
        Assert.Contains(errno, new[] { ELOOP, ENOTDIR });
        Assert.Equal(-1, RootedTree.OpenRoot(AbsolutePath.Parse(tree.PathOf("a/f")), RootedTree.Walked, out errno));
        Assert.Equal(ENOTDIR, errno);

        fd = RootedTree.OpenRoot(AbsolutePath.Parse(tree.PathOf("l")), RootedTree.Listed, out errno);
        Assert.True(fd >= 0);
        Assert.Equal(O_NONBLOCK | O_CLOEXEC, Flags(fd) & (O_PATH | O_NONBLOCK | O_CLOEXEC));
        _ = Libc.Close(fd);
    }

    [LinuxFact]
    public void A_path_longer_than_the_kernel_takes_is_an_invalid_name_not_an_open()
    {
        var path = AbsolutePath.Parse("/" + string.Join("/", Enumerable.Repeat(new string('n', 200), 25)));

        Assert.Equal(RootedTree.InvalidName, RootedTree.OpenByPath(path, RootedTree.Walked, followLast: true, out var errno));
        Assert.Equal(0, errno);
    }

    [LinuxFact]
    public void A_child_opened_by_its_name_carries_the_access_asked_for_and_is_not_inherited()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("a"));
        var root = AbsolutePath.Parse(tree.Root);
        var parent = RootedTree.OpenRoot(root, RootedTree.Walked, out _);
        try
        {
            var listed = RootedTree.OpenChild(parent, AbsolutePath.Parse(tree.PathOf("a")), TreeWalkPolicy.ForActions, RootedTree.Listed, out var errno);
            Assert.True(listed >= 0);
            Assert.Equal(0, errno);
            Assert.Equal(O_NONBLOCK | O_CLOEXEC, Flags(listed) & (O_PATH | O_NONBLOCK | O_CLOEXEC));
            _ = Libc.Close(listed);

            var walked = RootedTree.OpenChild(parent, "a", out errno);
            Assert.True(walked >= 0);
            Assert.Equal(0, errno);
            Assert.Equal(Libc.RealPathOf(tree.PathOf("a"), out _), Target(walked));
            Assert.Equal(O_PATH | O_CLOEXEC, Flags(walked) & (O_PATH | O_NONBLOCK | O_CLOEXEC));
            _ = Libc.Close(walked);

            Assert.Equal(-1, RootedTree.OpenChild(parent, "missing", out errno));
            Assert.Equal(ENOENT, errno);
            Assert.False(RootedTree.IsLinkAt(parent, "missing"));
        }
        finally
        {
            _ = Libc.Close(parent);
        }
    }

    [LinuxFact]
    public void A_resolved_walk_leaves_no_descriptor_behind_but_the_one_it_returns()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("a/b/c"));
        var resolved = Libc.RealPathOf(tree.PathOf("a/b/c"), out _)!;

        var fd = RootedTree.OpenResolved(resolved, out var errno);
        Assert.True(fd >= 0);
        Assert.Equal(0, errno);
        Assert.Equal(O_PATH | O_CLOEXEC, Flags(fd) & (O_PATH | O_CLOEXEC));
        Assert.Equal([resolved], OpenDescriptors.Under(Libc.RealPathOf(tree.Root, out _)!, includeRoot: true));
        _ = Libc.Close(fd);

        Assert.Equal(-1, RootedTree.OpenResolved(resolved + "/missing", out errno));
        Assert.Equal(ENOENT, errno);
        Assert.Empty(OpenDescriptors.Under(Libc.RealPathOf(tree.Root, out _)!, includeRoot: true));
    }

    [LinuxFact]
    public void The_identity_check_gives_the_lookups_errno_and_the_descriptors_status()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("a"));
        var fd = RootedTree.OpenResolved(Libc.RealPathOf(tree.PathOf("a"), out _)!, out _);
        try
        {
            Assert.Equal(0, RootedTree.IsAtPath(fd, tree.PathOf("a"), followLast: false, out var opened));
            Assert.Equal(0, Libc.LStat(tree.PathOf("a"), out var named));
            Assert.Equal(named.Ino, opened.Ino);
            Assert.True(RootedTree.IsFile(opened, named.Device, named.Ino));
            Assert.False(RootedTree.IsFile(opened, named.Device, named.Ino + 1));
            Assert.False(RootedTree.IsFile(opened, named.Device + 1, named.Ino));

            Directory.Delete(tree.PathOf("a"));
            Assert.Equal(ENOENT, RootedTree.IsAtPath(fd, tree.PathOf("a"), followLast: false, out _));
        }
        finally
        {
            _ = Libc.Close(fd);
        }
    }

    [LinuxFact]
    public void A_file_is_opened_for_a_recheck_never_through_a_link_and_without_waiting_on_a_fifo()
    {
        using var tree = new TempTree();
        tree.Write("f", "x");
        tree.Symlink(tree.PathOf("f"), "l");
        TempTree.Run("mkfifo", tree.PathOf("p"));
        var folder = RootedTree.OpenRoot(AbsolutePath.Parse(tree.Root), RootedTree.Walked, out _);
        try
        {
            var fd = RootedTree.OpenFile(folder, "f");
            Assert.True(fd >= 0);
            Assert.Equal(O_NONBLOCK | O_CLOEXEC, Flags(fd) & (O_PATH | O_NONBLOCK | O_CLOEXEC));
            _ = Libc.Close(fd);

            Assert.Equal(-1, RootedTree.OpenFile(folder, "l"));
            Assert.Equal(ELOOP, Libc.LastErrno);

            // Without O_NONBLOCK this open would wait for a writer forever.
            fd = RootedTree.OpenFile(folder, "p");
            Assert.True(fd >= 0);
            _ = Libc.Close(fd);
        }
        finally
        {
            _ = Libc.Close(folder);
        }
    }

    [LinuxFact]
    public unsafe void A_path_below_a_descriptor_follows_links_unless_told_not_to_and_a_refusal_keeps_openat2_in_use()
    {
        using var tree = new TempTree();
        tree.Write("a/f", "x");
        tree.Symlink(tree.PathOf("a"), "l");
        var root = RootedTree.OpenRoot(AbsolutePath.Parse(tree.Root), RootedTree.Walked, out _);
        var path = "l/f\0"u8.ToArray();
        try
        {
            fixed (byte* p = path)
            {
                var fd = RootedTree.OpenBeneath(root, p, Libc.O_RDONLY | Libc.O_CLOEXEC, noLinks: false);
                Assert.True(fd >= 0);
                _ = Libc.Close(fd);

                Assert.Equal(-1, RootedTree.OpenBeneath(root, p, Libc.O_RDONLY | Libc.O_CLOEXEC, noLinks: true));
                Assert.Equal(ELOOP, Libc.LastErrno);
                Assert.False(RootedTree.NoOpenAt2); // a refused link is the file's answer, not a missing openat2
            }
        }
        finally
        {
            _ = Libc.Close(root);
        }
    }

    /// <summary>The open flags of <paramref name="fd"/> as the kernel keeps them (close-on-exec included).</summary>
    internal static int Flags(int fd)
    {
        foreach (var line in File.ReadAllLines($"/proc/self/fdinfo/{fd}"))
        {
            if (line.StartsWith("flags:", StringComparison.Ordinal))
            {
                return Convert.ToInt32(line["flags:".Length..].Trim(), 8);
            }
        }

        throw new InvalidOperationException("no flags in fdinfo");
    }

    /// <summary>Where <paramref name="fd"/> leads.</summary>
    internal static string? Target(int fd) => new FileInfo($"/proc/self/fd/{fd}").LinkTarget;
}
