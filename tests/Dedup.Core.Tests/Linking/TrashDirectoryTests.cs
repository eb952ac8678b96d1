using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Linking.Trash;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Which trash a file goes to (<see cref="TrashDirectory.For"/>), what its info file's <c>Path=</c> says, and the
/// refusals when a trash folder is not a usable one, each with the message the user reads. A mount's own trash is
/// tried on a tmpfs mounted for the test (as root), so the shared test mounts' trashes are never changed.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class TrashDirectoryTests
{
    [LinuxFact]
    public void The_home_trash_is_used_on_its_own_file_system_with_absolute_percent_encoded_paths()
    {
        using var tree = new TempTree();
        var home = tree.PathOf("home/Trash");
        var file = tree.Write("a b/x-y_z.é~%.bin", "a");

        var trash = TrashDirectory.For(file, TestNative.Device(file), home);

        Assert.Equal(home, trash.Root);
        Assert.Null(trash.TopDirectory);
        Assert.Equal(Path.Combine(home, "files"), trash.FilesFolder);
        Assert.Equal(Path.Combine(home, "info"), trash.InfoFolder);
        foreach (var folder in new[] { home, trash.FilesFolder, trash.InfoFolder })
        {
            Assert.Equal(0, TestNative.FileStatusOf(folder, out var status));
            Assert.Equal(0x41C0u, status.Mode & 0xFFFFu); // a folder, 0700
        }

        Assert.Equal(tree.PathOf("a%20b/x-y_z.%C3%A9~%25.bin"), trash.InfoPathValue(file));
    }

    [LinuxFact]
    public void The_trash_chosen_is_one_undo_looks_in_even_when_the_home_trash_is_named_with_dots()
    {
        using var tree = new TempTree();
        var file = tree.Write("data/x.bin", "a");
        var device = TestNative.Device(file);
        var home = tree.PathOf("home/sub/../Trash"); // as $XDG_DATA_HOME=~/x/.. would name it

        var trash = TrashDirectory.For(file, device, home);

        Assert.Equal([trash.Root], TrashDirectory.Candidates(file, device, home));
        Assert.Equal(tree.PathOf("home/Trash"), trash.Root);
    }

    [LinuxFact]
    public void A_home_trash_that_is_a_file_or_a_link_is_refused_with_its_name()
    {
        using var tree = new TempTree();
        var file = tree.Write("data/x.bin", "a");
        var device = TestNative.Device(file);
        var asFile = tree.Write("home1/Trash", "not a folder");
        Directory.CreateDirectory(tree.PathOf("elsewhere/files"));
        var asLink = tree.Symlink(tree.PathOf("elsewhere"), "home2/Trash");
        var filesLink = tree.PathOf("home3/Trash/files");
        Directory.CreateDirectory(Path.GetDirectoryName(filesLink)!);
        File.CreateSymbolicLink(filesLink, tree.PathOf("elsewhere/files"));

        Assert.Equal(
            $"cannot use the trash {asFile}: {asFile} is not a folder owned by the user (or is a symbolic link); not moved",
            Assert.Throws<ActionStoppedException>(() => TrashDirectory.For(file, device, asFile)).Message);
        Assert.Equal(
            $"cannot use the trash {asLink}: {asLink} is not a folder owned by the user (or is a symbolic link); not moved",
            Assert.Throws<ActionStoppedException>(() => TrashDirectory.For(file, device, asLink)).Message);
        Assert.Equal(
            $"cannot use the trash {tree.PathOf("home3/Trash")}: {filesLink} is not a folder owned by the user (or is a symbolic link); not moved",
            Assert.Throws<ActionStoppedException>(() => TrashDirectory.For(file, device, tree.PathOf("home3/Trash"))).Message);
        Assert.Empty(Directory.GetFileSystemEntries(tree.PathOf("elsewhere/files")));
    }

    [LinuxFact(RequiresRoot = true, Tool = "chattr", TempFileSystem = "ext4")]
    public void A_trash_folder_that_cannot_be_created_is_refused_with_the_errno()
    {
        using var tree = new LinkTree();
        var file = tree.Write("data/x.bin", [1]);
        var home = tree.PathOf("home/Trash");
        Directory.CreateDirectory(Path.Combine(home, "files"));
        tree.MakeImmutable(home); // info/ cannot be made, even by root

        var stopped = Assert.Throws<ActionStoppedException>(() => TrashDirectory.For(file, TestNative.Device(file), home));

        Assert.Equal($"cannot use the trash {home}: cannot create {Path.Combine(home, "info")}: Operation not permitted; not moved", stopped.Message);
    }

    [LinuxFact]
    public void Opening_a_trash_changed_since_it_was_found_is_refused_with_the_folder_named()
    {
        using var tree = new TempTree();
        var file = tree.Write("data/x.bin", "a");
        var device = TestNative.Device(file);
        var home = tree.PathOf("home/Trash");
        var trash = TrashDirectory.For(file, device, home);

        var (files, info) = trash.Open();
        files.Dispose();
        info.Dispose();

        Directory.Delete(trash.InfoFolder);
        Assert.StartsWith($"cannot open {trash.InfoFolder}: ", OpenFails(trash), StringComparison.Ordinal);
        Assert.EndsWith("; not moved", OpenFails(trash), StringComparison.Ordinal);

        Directory.Delete(trash.FilesFolder);
        File.CreateSymbolicLink(trash.FilesFolder, tree.PathOf("data"));
        Assert.StartsWith($"cannot open {trash.FilesFolder}: ", OpenFails(trash), StringComparison.Ordinal);

        Directory.Move(home, tree.PathOf("home/Moved"));
        File.CreateSymbolicLink(home, tree.PathOf("home/Moved"));
        Assert.StartsWith($"cannot open the trash {home}: ", OpenFails(trash), StringComparison.Ordinal);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact(RequiresRoot = true, Tool = "mount")]
    public void On_another_mount_the_trash_is_its_top_directorys_and_paths_are_relative_to_it()
    {
        using var tree = new TempTree();
        using var mount = new TmpfsMount(tree.PathOf("mnt"));
        var file = tree.Write("mnt/sub/deep/x y.bin", "a");
        var linked = Path.Combine(tree.Symlink(tree.PathOf("mnt/sub"), "link"), "deep", "x y.bin");
        var device = TestNative.Device(file);
        var home = tree.PathOf("home/Trash");

        foreach (var path in new[] { file, linked })
        {
            var trash = TrashDirectory.For(path, device, home);
            Assert.Equal(mount.Root, trash.TopDirectory);
            Assert.Equal(Path.Combine(mount.Root, ".Trash-0"), trash.Root);
            Assert.Equal("sub/deep/x%20y.bin", trash.InfoPathValue(path));
        }

        Assert.False(Directory.Exists(home));
    }

    [LinuxFact(RequiresRoot = true, Tool = "mount")]
    public void A_sticky_shared_trash_gets_a_folder_per_user_and_anything_else_falls_back_to_the_users_own()
    {
        using var tree = new TempTree();
        using var mount = new TmpfsMount(tree.PathOf("mnt"));
        var file = tree.Write("mnt/x.bin", "a");
        var device = TestNative.Device(file);
        var home = tree.PathOf("home/Trash");
        var shared = Path.Combine(mount.Root, ".Trash");
        var own = Path.Combine(mount.Root, ".Trash-0");

        Directory.CreateDirectory(shared);
        TempTree.Run("chmod", "1777", shared);
        var perUser = TrashDirectory.For(file, device, home);
        Assert.Equal(Path.Combine(shared, "0"), perUser.Root);
        Assert.Equal(mount.Root, perUser.TopDirectory);
        Assert.Equal("x.bin", perUser.InfoPathValue(file));

        // Opened later, a per-user trash must still be the user's.
        TempTree.Run("chown", "65534", perUser.Root);
        Assert.Equal($"the trash {perUser.Root} is not a folder owned by the user; not moved", OpenFails(perUser));

        // Found now, one owned by another user is not used: the user's own trash is.
        Assert.Equal(own, TrashDirectory.For(file, device, home).Root);

        TempTree.Run("chown", "0", perUser.Root);
        TempTree.Run("chmod", "0777", shared); // no sticky bit
        Assert.Equal(own, TrashDirectory.For(file, device, home).Root);

        TempTree.Run("chmod", "1777", shared);
        Directory.Delete(shared, recursive: true);
        File.CreateSymbolicLink(shared, tree.PathOf("sticky")); // a link to a sticky folder
        Directory.CreateDirectory(tree.PathOf("sticky"));
        TempTree.Run("chmod", "1777", tree.PathOf("sticky"));
        Assert.Equal(own, TrashDirectory.For(file, device, home).Root);
        Assert.False(Directory.Exists(tree.PathOf("sticky/0")));
    }

    [LinuxFact(RequiresRoot = true, Tool = "mount")]
    public void A_users_own_trash_owned_by_another_user_is_refused_naming_the_mount()
    {
        using var tree = new TempTree();
        using var mount = new TmpfsMount(tree.PathOf("mnt"));
        var file = tree.Write("mnt/x.bin", "a");
        var own = Path.Combine(mount.Root, ".Trash-0");
        Directory.CreateDirectory(own);
        TempTree.Run("chown", "65534", own);

        var stopped = Assert.Throws<ActionStoppedException>(() => TrashDirectory.For(file, TestNative.Device(file), tree.PathOf("home/Trash")));

        Assert.Equal(
            $"no usable trash on the file system mounted at {mount.Root} ({own}: {own} is not a folder owned by the user (or is a symbolic link)); not moved",
            stopped.Message);
    }

    private static string OpenFails(TrashDirectory trash) => Assert.Throws<ActionStoppedException>(() => trash.Open()).Message;

    /// <summary>A small tmpfs mounted on a folder of the test's tree, unmounted on dispose.</summary>
    private sealed class TmpfsMount : IDisposable
    {
        public TmpfsMount(string root)
        {
            Root = root;
            Directory.CreateDirectory(root);
            TempTree.Run("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", root);
        }

        public string Root { get; }

        public void Dispose() => TempTree.Run("umount", Root);
    }
}
