using Dedup.Core.Linking.Trash;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Topology;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// <see cref="TrashLocator"/> on real folders, in process: a folder named through symbolic links is a trash's when its
/// real path is in one, by the names of every real ancestor (<c>.local/share/Trash</c> needs its two parents), not
/// only the nearest.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class TrashLocatorTests
{
    [LinuxFact]
    public void A_link_into_a_folder_deep_in_a_trash_is_in_the_trash()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("vol/.Trash-1000/files/a/b"));
        Directory.CreateDirectory(tree.PathOf("vol/plain/a/b"));
        var deep = tree.Symlink(tree.PathOf("vol/.Trash-1000/files/a/b"), "deep");
        var plain = tree.Symlink(tree.PathOf("vol/plain/a/b"), "plain");
        var locator = TrashLocator.Create();

        Assert.True(locator.IsInTrash(AbsolutePath.Parse(deep)));
        Assert.True(locator.IsInTrash(AbsolutePath.Parse(deep))); // asked again: the same answer
        Assert.False(locator.IsInTrash(AbsolutePath.Parse(plain)));
        Assert.False(locator.IsInTrash(AbsolutePath.Parse(tree.PathOf("vol/plain/a"))));
        Assert.False(locator.IsInTrash(AbsolutePath.Parse("/")));
    }

    [LinuxFact]
    public void A_link_into_a_local_share_Trash_is_in_the_trash_by_all_three_real_names()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("u/.local/share/Trash/files/x"));
        Directory.CreateDirectory(tree.PathOf("u/other/share/Trash/files/x"));
        Directory.CreateDirectory(tree.PathOf("u/.local/other/Trash/files/x"));
        var inTrash = tree.Symlink(tree.PathOf("u/.local/share/Trash/files/x"), "in-trash");
        var otherShare = tree.Symlink(tree.PathOf("u/other/share/Trash/files/x"), "other-share");
        var otherLocal = tree.Symlink(tree.PathOf("u/.local/other/Trash/files/x"), "other-local");
        var locator = TrashLocator.Create();

        Assert.True(locator.IsInTrash(AbsolutePath.Parse(inTrash)));
        Assert.False(locator.IsInTrash(AbsolutePath.Parse(otherShare)));
        Assert.False(locator.IsInTrash(AbsolutePath.Parse(otherLocal)));
    }

    [LinuxFact]
    public void A_trash_reached_below_a_link_to_its_parent_is_a_trash()
    {
        // share → u/.local/share: the link itself is no trash; its child Trash is, by its real path's names only.
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("u/.local/share/Trash/files"));
        var share = tree.Symlink(tree.PathOf("u/.local/share"), "share-link");
        var locator = TrashLocator.Create();

        Assert.False(locator.IsInTrash(AbsolutePath.Parse(share)));
        Assert.True(locator.IsInTrash(AbsolutePath.Parse(Path.Combine(share, "Trash"))));
        Assert.True(locator.IsInTrash(AbsolutePath.Parse(Path.Combine(share, "Trash", "files"))));
        Assert.False(locator.IsInTrash(AbsolutePath.Parse(Path.Combine(share, "gone"))));
    }
}

/// <summary>The home trash found by identity, as <c>HOME</c> and <c>XDG_DATA_HOME</c> name it: changes the environment, so runs alone.</summary>
[Collection(ProcessEnvironmentCollection.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class TrashLocatorHomeTests
{
    [LinuxFact]
    public void Folders_that_are_the_home_trash_or_its_files_by_identity_are_in_the_trash()
    {
        // Neither path names a trash: HOME's .local/share/Trash, XDG_DATA_HOME's Trash and the latter's files/ are links here.
        using var tree = new TempTree();
        foreach (var folder in new[] { "home-trash/sub", "xdg-trash/sub", "xdg-files/sub", "plain/sub" })
        {
            Directory.CreateDirectory(tree.PathOf(folder));
        }

        Directory.CreateDirectory(tree.PathOf("home/.local/share"));
        tree.Symlink(tree.PathOf("home-trash"), "home/.local/share/Trash");
        Directory.CreateDirectory(tree.PathOf("xdg/Trash"));
        Directory.Delete(tree.PathOf("xdg/Trash"));
        tree.Symlink(tree.PathOf("xdg-trash"), "xdg/Trash");
        tree.Symlink(tree.PathOf("xdg-files"), "xdg-trash/files");
        var previous = (Home: Environment.GetEnvironmentVariable("HOME"), Xdg: Environment.GetEnvironmentVariable("XDG_DATA_HOME"));
        try
        {
            Environment.SetEnvironmentVariable("HOME", tree.PathOf("home"));
            Environment.SetEnvironmentVariable("XDG_DATA_HOME", tree.PathOf("xdg"));
            var locator = TrashLocator.Create();

            Assert.True(locator.IsInTrash(AbsolutePath.Parse(tree.PathOf("home-trash/sub"))));
            Assert.True(locator.IsInTrash(AbsolutePath.Parse(tree.PathOf("xdg-trash/sub"))));
            Assert.True(locator.IsInTrash(AbsolutePath.Parse(tree.PathOf("xdg-files/sub"))));
            Assert.False(locator.IsInTrash(AbsolutePath.Parse(tree.PathOf("plain/sub"))));
        }
        finally
        {
            Environment.SetEnvironmentVariable("HOME", previous.Home);
            Environment.SetEnvironmentVariable("XDG_DATA_HOME", previous.Xdg);
        }
    }

    [LinuxFact]
    public void The_default_home_trash_follows_an_absolute_XDG_DATA_HOME_and_otherwise_HOME()
    {
        var previous = (Home: Environment.GetEnvironmentVariable("HOME"), Xdg: Environment.GetEnvironmentVariable("XDG_DATA_HOME"));
        try
        {
            Environment.SetEnvironmentVariable("HOME", "/home/someone");
            Environment.SetEnvironmentVariable("XDG_DATA_HOME", "/data/someone");
            Assert.Equal("/data/someone/Trash", TrashDirectory.DefaultHomeTrash());

            Environment.SetEnvironmentVariable("XDG_DATA_HOME", "relative/data"); // the specification ignores a relative one
            Assert.Equal("/home/someone/.local/share/Trash", TrashDirectory.DefaultHomeTrash());

            Environment.SetEnvironmentVariable("XDG_DATA_HOME", null);
            Assert.Equal("/home/someone/.local/share/Trash", TrashDirectory.DefaultHomeTrash());

            Environment.SetEnvironmentVariable("HOME", null);
            Assert.Equal(Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".local", "share", "Trash"), TrashDirectory.DefaultHomeTrash());
        }
        finally
        {
            Environment.SetEnvironmentVariable("HOME", previous.Home);
            Environment.SetEnvironmentVariable("XDG_DATA_HOME", previous.Xdg);
        }
    }
}
