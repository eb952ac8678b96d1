using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Issue #34 point 1: the kept copy is never a trash's, whatever the path held says. Roots named through symbolic links
/// into a trash and other systems' trashes on a mounted volume, on real folders; the CLI runs with its own environment.
/// </summary>
public sealed class TrashLocationTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, seed: 340);

    public static TheoryData<string> RecycleBins => new()
    {
        "$RECYCLE.BIN/S-1-5-21-1000/$RABC123.docx",
        "$Recycle.Bin/S-1-5-21-1000/$RABC123.docx",
        "RECYCLER/S-1-5-21-1000/Dc1.docx",
        ".Trashes/501/thesis.docx",
    };

    [LinuxTheory]
    [MemberData(nameof(RecycleBins))]
    public async Task Another_systems_trash_on_a_mounted_volume_is_a_trash(string trashed)
    {
        using var tree = new LinkTree();
        var thesis = tree.Write("vol/Users/bob/Documents/thesis.docx", Content);
        var inTrash = tree.Write("vol/" + trashed, Content);
        File.SetLastWriteTimeUtc(inTrash, new DateTime(2020, 1, 1, 0, 0, 0, DateTimeKind.Utc)); // older, and first in path order

        foreach (var rules in new[] { Array.Empty<KeepRule>(), [KeepRule.Oldest, KeepRule.PathOrder] })
        {
            var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("vol")), Linkers.Delete, rules);
            var action = Assert.Single(plan.Actions);
            Assert.Equal(thesis, action.Kept.Path.ToString());
            Assert.Equal(inTrash, action.Path.ToString());
        }
    }

    [LinuxTheory]
    [MemberData(nameof(RecycleBins))]
    public async Task A_root_through_a_link_into_another_systems_trash_is_told_by_its_real_names(string trashed)
    {
        // Not the home trash, so no identity matches: only the names of the real path, below the link, tell.
        using var tree = new LinkTree();
        var thesis = tree.Write("vol/Users/bob/Documents/thesis.docx", Content);
        var inTrash = tree.Write("vol/" + trashed, Content);
        File.SetLastWriteTimeUtc(inTrash, new DateTime(2020, 1, 1, 0, 0, 0, DateTimeKind.Utc));
        var link = tree.PathOf("Restored");
        File.CreateSymbolicLink(link, Path.GetDirectoryName(inTrash)!);

        foreach (var rules in new[] { Array.Empty<KeepRule>(), [KeepRule.Oldest, KeepRule.PathOrder] })
        {
            var plan = LinkTree.Plan(await tree.ScanAsync(link, tree.PathOf("vol/Users")), Linkers.Delete, rules);
            var action = Assert.Single(plan.Actions);
            Assert.Equal(thesis, action.Kept.Path.ToString());
            Assert.Equal(Path.Combine(link, Path.GetFileName(inTrash)), action.Path.ToString());
        }
    }

    [LinuxFact(RequiresRoot = true, Tool = "mount")]
    public async Task A_bind_mount_of_a_folder_inside_a_trash_is_a_trash()
    {
        // Same file system, same device: neither the path nor the device tells; the mount's root within its file system does.
        using var tree = new LinkTree();
        var trashed = tree.Write("home/.local/share/Trash/files/sub/report.pdf", Content);
        var documents = tree.Write("home/Documents/report.pdf", Content);
        File.SetLastWriteTimeUtc(trashed, new DateTime(2020, 1, 1, 0, 0, 0, DateTimeKind.Utc));
        Directory.CreateDirectory(tree.PathOf("Archive"));
        TempTree.Run("mount", "--bind", tree.PathOf("home/.local/share/Trash/files/sub"), tree.PathOf("Archive"));
        try
        {
            var groups = await tree.ScanAsync(tree.PathOf("Archive"), tree.PathOf("home/Documents"));
            foreach (var rules in new[] { Array.Empty<KeepRule>(), [KeepRule.Oldest] })
            {
                var action = Assert.Single(LinkTree.Plan(groups, Linkers.Delete, rules).Actions);
                Assert.Equal(documents, action.Kept.Path.ToString());
                Assert.Equal(tree.PathOf("Archive/report.pdf"), action.Path.ToString());
            }
        }
        finally
        {
            TempTree.Run("umount", tree.PathOf("Archive"));
        }
    }

    [LinuxFact]
    public async Task A_root_that_is_a_symbolic_link_into_the_home_trash_hides_nothing_from_the_CLI()
    {
        // The recipe: ln -s .local/share/Trash/files ~/TrashLink; dedup delete --yes ~/TrashLink ~/Documents.
        using var tree = new TempTree();
        var home = tree.PathOf("home");
        var trashed = tree.Write("home/.local/share/Trash/files/report.pdf", Content);
        tree.Write("home/.local/share/Trash/info/report.pdf.trashinfo", "[Trash Info]\nPath=" + tree.PathOf("home/Documents/report.pdf") + "\nDeletionDate=2026-01-01T00:00:00\n");
        var documents = tree.Write("home/Documents/report.pdf", Content);
        File.SetLastWriteTimeUtc(trashed, new DateTime(2020, 1, 1, 0, 0, 0, DateTimeKind.Utc));
        tree.Symlink(tree.PathOf("home/.local/share/Trash/files"), "home/ATrashLink"); // sorts before Documents

        var (exit, stdout, stderr) = await CliProcess.RunAsync(
            ["delete", "--yes", tree.PathOf("home/ATrashLink"), tree.PathOf("home/Documents")],
            environment: new Dictionary<string, string> { ["HOME"] = home, ["XDG_DATA_HOME"] = Path.Combine(home, ".local", "share") });

        Assert.True(exit == 0, stdout + stderr);
        Assert.Equal(Content, File.ReadAllBytes(documents));
        Assert.False(File.Exists(trashed));
    }

    [LinuxFact]
    public async Task A_root_through_a_link_into_the_trash_named_by_XDG_DATA_HOME_is_told_by_identity_in_the_CLI()
    {
        // Neither the path held (Archive/…) nor the real one (data/Trash/files, no .local/share) nor XDG_DATA_HOME's text
        // (xdg-link/Trash) names a trash: only the folders' identities show it.
        using var tree = new TempTree();
        var trashed = tree.Write("data/Trash/files/report.pdf", Content);
        Directory.CreateDirectory(tree.PathOf("data/Trash/info"));
        var documents = tree.Write("Documents/report.pdf", Content);
        tree.Symlink(tree.PathOf("data"), "xdg-link");
        tree.Symlink(tree.PathOf("data/Trash/files"), "Archive");

        var (exit, stdout, stderr) = await CliProcess.RunAsync(
            ["delete", "--yes", tree.PathOf("Archive"), tree.PathOf("Documents")],
            environment: new Dictionary<string, string> { ["HOME"] = tree.PathOf("home"), ["XDG_DATA_HOME"] = tree.PathOf("xdg-link") });

        Assert.True(exit == 0, stdout + stderr);
        Assert.Equal(Content, File.ReadAllBytes(documents));
        Assert.False(File.Exists(trashed));
    }
}

/// <summary>The same through the library's planner, with the test process's own <c>XDG_DATA_HOME</c>: runs alone.</summary>
[Collection(ProcessEnvironmentCollection.Name)]
public sealed class TrashLocationEnvironmentTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(20_000, seed: 341);

    [LinuxTheory]
    [InlineData("Archive")] // a symbolic link straight to the trash's files/
    [InlineData("Archive/files")] // a symbolic link to the trash folder, scanned below it
    public async Task A_root_named_through_a_link_into_the_trash_is_never_kept_by_the_planner(string root)
    {
        using var tree = new LinkTree();
        var trashed = tree.Write("data/Trash/files/report.pdf", Content);
        var documents = tree.Write("Documents/report.pdf", Content);
        File.SetLastWriteTimeUtc(trashed, new DateTime(2020, 1, 1, 0, 0, 0, DateTimeKind.Utc));
        Directory.CreateSymbolicLink(tree.PathOf("xdg-link"), tree.PathOf("data"));
        Directory.CreateSymbolicLink(tree.PathOf("Archive"), tree.PathOf(root == "Archive" ? "data/Trash/files" : "data/Trash"));
        var previous = Environment.GetEnvironmentVariable("XDG_DATA_HOME");
        try
        {
            Environment.SetEnvironmentVariable("XDG_DATA_HOME", tree.PathOf("xdg-link"));
            var groups = await tree.ScanAsync(tree.PathOf(root), tree.PathOf("Documents"));
            foreach (var rules in new[] { Array.Empty<KeepRule>(), [KeepRule.Oldest] })
            {
                var action = Assert.Single(LinkTree.Plan(groups, Linkers.Delete, rules).Actions);
                Assert.Equal(documents, action.Kept.Path.ToString());
                Assert.Null(action.Refusal);
            }

            // Every copy in the trash: nothing is kept outside it, so nothing is done.
            tree.Write("data/Trash/files/copy.pdf", Content);
            var onlyTrash = await tree.ScanAsync(tree.PathOf(root));
            Assert.Contains("nothing is kept outside it", Assert.Single(LinkTree.Plan(onlyTrash, Linkers.Delete).Actions).Refusal, StringComparison.Ordinal);
        }
        finally
        {
            Environment.SetEnvironmentVariable("XDG_DATA_HOME", previous);
        }
    }
}
