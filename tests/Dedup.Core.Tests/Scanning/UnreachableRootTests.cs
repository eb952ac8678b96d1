using System.Runtime.Versioning;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// A root the file system will not look up is not reported as missing (#36 point 6): "permission denied" and other
/// errors get their own message and a <see cref="RootUnreachableException"/>, still a <see cref="DirectoryNotFoundException"/>.
/// </summary>
public sealed class UnreachableRootTests
{
    [LinuxFact]
    public async Task A_root_behind_a_loop_of_links_cannot_be_reached_and_says_why()
    {
        using var tree = new TempTree();
        tree.Symlink("loop-b", "loop-a");
        tree.Symlink("loop-a", "loop-b");
        var root = tree.PathOf("loop-a");
        var finder = new DuplicateFinderBuilder().AddRoot(root).Build();

        var error = Assert.Throws<RootUnreachableException>(finder.CheckRoots);
        Assert.Equal($"The root folder '{root}' cannot be reached: Too many levels of symbolic links.", error.Message);
        Assert.Equal(root, error.Root);
        Assert.IsAssignableFrom<DirectoryNotFoundException>(error); // catch blocks for a missing root still catch it
        var scanError = await Assert.ThrowsAsync<RootUnreachableException>(() => Scan.RunAsync(finder));
        Assert.Equal(error.Message, scanError.Message);
    }

    [LinuxFact(RequiresRoot = true, Tool = "setpriv")]
    [SupportedOSPlatform("linux")]
    public async Task A_root_under_a_folder_this_user_cannot_enter_is_not_readable_not_missing()
    {
        // Root passes every permission check, so the CLI runs as user nobody to meet a real EACCES.
        using var tree = new TempTree();
        using var cli = new CliAsNobody();
        tree.Write("locked/data/a.bin", "same");
        tree.Write("locked/data/b.bin", "same");
        CliAsNobody.MakeTraversable(tree.Root);
        File.SetUnixFileMode(tree.PathOf("locked"), UnixFileMode.None);

        var (exitCode, stdout, stderr) = await cli.RunAsync(["find", tree.PathOf("locked/data"), tree.Root]);

        Assert.Equal(2, exitCode);
        Assert.Equal(string.Empty, stdout);
        Assert.Equal($"dedup: The root folder '{tree.PathOf("locked/data")}' is not readable by this user (permission denied).\n", stderr);
        File.SetUnixFileMode(tree.PathOf("locked"), UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
    }

    [Fact]
    public void Permission_denied_has_its_own_type_and_message_and_other_errors_keep_the_systems_words()
    {
        var denied = RootUnreachableException.Create("/srv/backup", accessDenied: true, "Permission denied");
        var other = RootUnreachableException.Create("/srv/backup", accessDenied: false, "Stale file handle");

        Assert.IsType<RootAccessDeniedException>(denied);
        Assert.Equal("The root folder '/srv/backup' is not readable by this user (permission denied).", denied.Message);
        Assert.Equal("/srv/backup", denied.Root);
        Assert.IsType<RootUnreachableException>(other);
        Assert.Equal("The root folder '/srv/backup' cannot be reached: Stale file handle.", other.Message);
        Assert.Equal(string.Empty, new RootAccessDeniedException().Root);
    }
}
