using System.Text;
using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// How <see cref="FolderHandle"/> opens folders (issue #34, point 12): the last component followed or not, each
/// folder below a root opened without following links, the shared root handle never closed by a caller, the exact
/// reason of each refusal and the kernel's listing of a folder.
/// </summary>
public sealed class FolderHandleDetailTests
{
    [LinuxFact]
    public void Without_following_the_last_component_a_linked_folder_is_refused_and_one_below_a_linked_parent_is_opened()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("real/sub"));
        var link = tree.Symlink(tree.PathOf("real"), "link");

        using (var followed = FolderHandle.TryOpen(link, followLast: true, out var problem))
        {
            Assert.NotNull(followed);
            Assert.Equal(string.Empty, problem);
            AssertIs(tree.PathOf("real"), followed.Fd);
        }

        Assert.Null(FolderHandle.TryOpen(link, followLast: false, out var refused));
        Assert.Equal($"changed while being opened (at {link}: Not a directory)", refused);

        using var below = FolderHandle.TryOpen(tree.PathOf("link/sub"), followLast: false, out var belowProblem);
        Assert.NotNull(below);
        Assert.Equal(string.Empty, belowProblem);
        AssertIs(tree.PathOf("real/sub"), below.Fd);

        using var top = FolderHandle.TryOpen("/", followLast: false, out _);
        AssertIs("/", top!.Fd);
    }

    [LinuxFact]
    public void A_missing_folder_names_the_system_error()
    {
        using var tree = new TempTree();

        Assert.Null(FolderHandle.TryOpen(tree.PathOf("missing/sub"), followLast: false, out var problem));
        Assert.Equal("No such file or directory", problem);
        Assert.Null(FolderHandle.TryOpen(tree.PathOf("missing"), followLast: true, out problem));
        Assert.Equal("No such file or directory", problem);
    }

    [LinuxFact]
    public void A_folder_beneath_a_root_shares_the_root_handle_and_never_closes_it()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("r/a/b"));
        Directory.CreateDirectory(tree.PathOf("r/c"));
        var roots = new[] { ScanRoot.Capture(AbsolutePath.Parse(tree.PathOf("r"))) };
        using var shared = new RootHandles();

        using (var b = FolderHandle.TryOpenBeneath(roots, AbsolutePath.Parse(tree.PathOf("r/a/b")), out var problem, shared))
        {
            Assert.Equal(string.Empty, problem);
            AssertIs(tree.PathOf("r/a/b"), b!.Fd);
        }

        var root = FolderHandle.TryOpenBeneath(roots, AbsolutePath.Parse(tree.PathOf("r")), out _, shared);
        Assert.NotNull(root);
        Assert.NotSame(shared.Get(roots[0], out _), root); // the caller owns it: its own descriptor
        AssertIs(tree.PathOf("r"), root.Fd);
        root.Dispose();

        using (var c = FolderHandle.TryOpenBeneath(roots, AbsolutePath.Parse(tree.PathOf("r/c")), out _, shared))
        {
            AssertIs(tree.PathOf("r/c"), c!.Fd); // the shared root handle still works
        }

        AssertIs(tree.PathOf("r"), shared.Get(roots[0], out _)!.Fd);

        // Without shared handles, the root opened is the caller's.
        using var own = FolderHandle.TryOpenBeneath(roots, AbsolutePath.Parse(tree.PathOf("r")), out _);
        AssertIs(tree.PathOf("r"), own!.Fd);
    }

    [LinuxFact]
    public void A_folder_outside_the_roots_or_missing_below_one_is_refused_with_its_reason()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("r/a"));
        tree.Write("r/a/file", [1]);
        var roots = new[] { ScanRoot.Capture(AbsolutePath.Parse(tree.PathOf("r"))) };

        Assert.Null(FolderHandle.TryOpenBeneath([], AbsolutePath.Parse(tree.PathOf("r/a")), out var problem));
        Assert.Equal("no scanned root is known for it", problem);
        Assert.Null(FolderHandle.TryOpenBeneath(roots, AbsolutePath.Parse(tree.PathOf("other")), out problem));
        Assert.Equal("is not under any scanned root", problem);
        Assert.Null(FolderHandle.TryOpenBeneath(roots, AbsolutePath.Parse(tree.PathOf("r/a/missing/x")), out problem));
        Assert.Equal($"{tree.PathOf("r/a/missing")}: No such file or directory", problem);
        Assert.Null(FolderHandle.TryOpenBeneath(roots, AbsolutePath.Parse(tree.PathOf("r/a/file")), out problem));
        Assert.Equal($"{tree.PathOf("r/a/file")}: Not a directory", problem);
        Directory.Delete(tree.PathOf("r"), recursive: true);
        Assert.Null(FolderHandle.TryOpenBeneath(roots, AbsolutePath.Parse(tree.PathOf("r/a")), out problem));
        Assert.Equal($"scanned root {tree.PathOf("r")}: No such file or directory", problem);
    }

    [LinuxFact]
    public void A_child_is_opened_only_when_it_is_a_real_folder()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("d"));
        tree.Write("f", [1]);
        tree.Symlink(tree.PathOf("d"), "l");
        using var top = FolderHandle.TryOpen(tree.Root, followLast: true, out _)!;

        using (var d = top.TryOpenChild("d", out var problem))
        {
            Assert.Equal(string.Empty, problem);
            Assert.Equal(Path.Join(tree.Root, "d"), d!.Path);
            AssertIs(tree.PathOf("d"), d.Fd);
        }

        Assert.Null(top.TryOpenChild("l", out var linkProblem));
        Assert.Equal("is a symbolic link (actions never follow links below a scanned root)", linkProblem);
        Assert.Null(top.TryOpenChild("f", out var fileProblem));
        Assert.Equal("Not a directory", fileProblem);
        Assert.Null(top.TryOpenChild("missing", out var missingProblem));
        Assert.Equal("No such file or directory", missingProblem);
    }

    [LinuxFact]
    public void A_disposed_handle_refuses_use_and_may_be_disposed_again()
    {
        using var tree = new TempTree();
        var handle = FolderHandle.TryOpen(tree.Root, followLast: true, out _)!;

        handle.Dispose();
        handle.Dispose();

        Assert.Throws<ObjectDisposedException>(() => handle.Fd);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public void The_listing_gives_every_name_as_the_kernel_stores_it_over_many_reads()
    {
        using var tree = new TempTree();
        var expected = new List<string>();
        for (var i = 0; i < 1500; i++)
        {
            var name = $"{i:D4}-{new string('n', 40)}"; // 1500 entries of ~70 bytes: several getdents64 reads of 32 KiB
            tree.Write(name, [1]);
            expected.Add(name);
        }

        Directory.CreateDirectory(tree.PathOf("..."));
        tree.Write(".hidden", [1]);
        expected.AddRange(["...", ".hidden"]);
        ExactNames.WriteFile([.. Encoding.UTF8.GetBytes(tree.Root), .. "/caf"u8, 0xE9], [1]); // Latin-1 é: not UTF-8
        var latin = KernelNames.GetString([.. "caf"u8, 0xE9]);
        expected.Add(latin);
        using var folder = FolderHandle.TryOpen(tree.Root, followLast: true, out _)!;
        var names = new List<string>();

        Assert.Equal(0, RootedTree.ListNames(folder.Fd, names));

        Assert.Equal(expected.Order(StringComparer.Ordinal), names.Order(StringComparer.Ordinal));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: false));
    }

    [LinuxFact]
    public void Listing_a_descriptor_that_is_not_open_gives_its_errno()
    {
        var names = new List<string>();

        Assert.Equal(9, RootedTree.ListNames(1_000_000, names)); // EBADF
        Assert.Empty(names);
    }

    private static void AssertIs(string path, int fd)
    {
        Assert.Equal(0, Libc.FStat(fd, out var opened));
        Assert.Equal(0, Libc.LStat(path, out var expected));
        Assert.True(RootedTree.IsSame(opened, expected), $"the descriptor is not {path}");
    }
}
