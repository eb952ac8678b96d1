using System.Runtime.Versioning;
using System.Text.Json;
using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Folders;

/// <summary>Folder mode on real trees: what is equal, what is reported, and which file groups remain.</summary>
public sealed class FolderModeTests
{
    private static readonly byte[] Song1 = TempTree.RandomBytes(5000, 1);
    private static readonly byte[] Song2 = TempTree.RandomBytes(6000, 2);
    private static readonly byte[] Song3 = TempTree.RandomBytes(7000, 3);

    private static void Album(TempTree tree, string folder)
    {
        tree.Write($"{folder}/01.mp3", Song1);
        tree.Write($"{folder}/02.mp3", Song2);
        tree.Write($"{folder}/cover/front.jpg", Song3);
    }

    [Fact]
    public async Task A_copied_album_is_one_folder_group_and_no_file_groups()
    {
        using var tree = new TempTree();
        Album(tree, "music/album");
        Album(tree, "backup/album");

        var (folders, files, scan) = await FolderScanRun.RunAsync(tree);

        Assert.Equal(["backup | music"], folders); // each holds only the album: the topmost equal folders
        Assert.Empty(files);
        var group = Assert.Single(scan.FolderGroups);
        Assert.Equal(3, group.Files);
        Assert.Equal(18_000, group.Bytes);
        Assert.Equal(18_000, group.WastedBytes);
        Assert.True(group.VerifiedByBytes);
        Assert.Equal(0, scan.Summary.Groups);
    }

    [Fact]
    public async Task Without_folder_mode_the_same_tree_gives_file_groups()
    {
        using var tree = new TempTree();
        Album(tree, "music/album");
        Album(tree, "backup/album");

        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync();
        var count = 0;
        await foreach (var group in scan)
        {
            count++;
        }

        Assert.Equal(3, count);
        Assert.Empty(scan.FolderGroups);
    }

    [Fact]
    public async Task Nested_copies_report_the_topmost_folders_and_a_copy_of_a_sub_folder_of_the_first()
    {
        using var tree = new TempTree();
        Album(tree, "music/album");
        tree.Write("music/notes.txt", "notes");
        Album(tree, "backup/music/album");
        tree.Write("backup/music/notes.txt", "notes");
        Album(tree, "other/album");

        var (folders, files, _) = await FolderScanRun.RunAsync(tree);

        // backup/music/album is inside a copy: not reported again; other/album is a copy of the first's sub-folder.
        Assert.Equal(["backup/music | music", "backup/music/album | other/album"], folders);
        Assert.Empty(files);
    }

    [Fact]
    public async Task A_copy_with_one_extra_file_is_not_a_duplicate_folder()
    {
        using var tree = new TempTree();
        Album(tree, "a/album");
        Album(tree, "b/album");
        tree.Write("b/album/03.mp3", TempTree.RandomBytes(8000, 4));

        var (folders, files, _) = await FolderScanRun.RunAsync(tree);

        // Only the cover sub-folder is a whole duplicate; the songs stay file groups.
        Assert.Equal(["a/album/cover | b/album/cover"], folders);
        Assert.Equal(["a/album/01.mp3 | b/album/01.mp3", "a/album/02.mp3 | b/album/02.mp3"], files);
    }

    [Fact]
    public async Task A_copy_with_one_changed_file_of_the_same_size_is_not_a_duplicate_folder()
    {
        using var tree = new TempTree();
        Album(tree, "a/album");
        Album(tree, "b/album");
        var changed = (byte[])Song2.Clone();
        changed[^1] ^= 0xFF;
        tree.Write("b/album/02.mp3", changed);

        var (folders, files, _) = await FolderScanRun.RunAsync(tree);

        Assert.Equal(["a/album/cover | b/album/cover"], folders);
        Assert.Equal(["a/album/01.mp3 | b/album/01.mp3"], files);
    }

    [Fact]
    public async Task A_renamed_file_makes_folders_differ_unless_names_are_ignored()
    {
        using var tree = new TempTree();
        Album(tree, "a/album");
        tree.Write("b/album/one.mp3", Song1);
        tree.Write("b/album/two.mp3", Song2);
        tree.Write("b/album/art/front.jpg", Song3);

        var (named, namedFiles, _) = await FolderScanRun.RunAsync(tree);
        var (ignoring, ignoringFiles, _) = await FolderScanRun.RunAsync(tree, ignoreNames: true);

        Assert.Equal(["a/album/cover | b/album/art"], named); // only the sub-folder is equal (same name inside)
        Assert.Equal(["a/album/01.mp3 | b/album/one.mp3", "a/album/02.mp3 | b/album/two.mp3"], namedFiles);
        Assert.Equal(["a | b"], ignoring); // a holds only the album: the topmost equal folders
        Assert.Empty(ignoringFiles);
    }

    [Fact]
    public async Task Ignoring_names_still_needs_the_same_multiset_of_contents()
    {
        using var tree = new TempTree();
        tree.Write("a/x", Song1);
        tree.Write("a/y", Song1);
        tree.Write("a/z", Song2);
        tree.Write("b/x", Song1);
        tree.Write("b/y", Song2);
        tree.Write("b/z", Song2);

        var (folders, files, _) = await FolderScanRun.RunAsync(tree, ignoreNames: true);

        Assert.Empty(folders);
        Assert.Equal(2, files.Count);
    }

    [Fact]
    public async Task Empty_sub_folders_count()
    {
        using var tree = new TempTree();
        Album(tree, "a/album");
        Directory.CreateDirectory(tree.PathOf("a/album/empty"));
        Album(tree, "b/album");
        Album(tree, "c/album");
        Directory.CreateDirectory(tree.PathOf("c/album/empty"));

        var (folders, _, _) = await FolderScanRun.RunAsync(tree);

        // b/album lacks the empty folder: only its cover sub-folder equals the others'.
        Assert.Equal(["a | c", "a/album/cover | b/album/cover"], folders);
    }

    [Fact]
    public async Task Empty_files_count_but_folders_of_empty_files_only_are_not_reported()
    {
        using var tree = new TempTree();
        Album(tree, "a/album");
        tree.Write("a/album/.keep", []);
        Album(tree, "b/album");
        tree.Write("c/empty/x", []);
        tree.Write("d/empty/x", []);

        var (folders, files, _) = await FolderScanRun.RunAsync(tree);

        // a/album's empty .keep makes it differ from b/album; c/empty and d/empty hold empty files only.
        Assert.Equal(["a/album/cover | b/album/cover"], folders);
        Assert.Equal(2, files.Count);
    }

    [LinuxFact]
    public async Task Hard_links_inside_a_copied_folder_are_equal_to_separate_copies()
    {
        using var tree = new TempTree();
        tree.Write("a/album/01.mp3", Song1);
        tree.HardLink("a/album/01.mp3", "a/album/01 (link).mp3");
        tree.Write("a/album/02.mp3", Song2);
        tree.Write("b/album/01.mp3", Song1);
        tree.Write("b/album/01 (link).mp3", Song1);
        tree.HardLink("a/album/02.mp3", "b/album/02.mp3"); // the same file in both folders

        var (folders, files, _) = await FolderScanRun.RunAsync(tree);

        Assert.Equal(["a | b"], folders);
        Assert.Empty(files);
    }

    [Fact]
    public async Task File_groups_leave_out_the_copies_but_keep_a_duplicate_elsewhere()
    {
        using var tree = new TempTree();
        Album(tree, "a/album");
        Album(tree, "b/album");
        tree.Write("loose/song.mp3", Song1);

        var (folders, files, scan) = await FolderScanRun.RunAsync(tree);

        Assert.Equal(["a | b"], folders);
        Assert.Equal(["a/album/01.mp3 | loose/song.mp3"], files);
        Assert.Equal(1, scan.Summary.Groups);
    }

    [LinuxFact]
    public async Task Symbolic_links_are_compared_as_links_not_followed()
    {
        using var tree = new TempTree();
        tree.Write("target/one", Song1);
        tree.Write("target/two", Song2);
        tree.Write("a/f", Song3);
        tree.Symlink("../target/one", "a/link");
        tree.Write("b/f", Song3);
        tree.Symlink("../target/one", "b/link");
        tree.Write("c/f", Song3);
        tree.Symlink("../target/two", "c/link");

        var (folders, _, _) = await FolderScanRun.RunAsync(tree);

        Assert.Equal(["a | b"], folders);
    }

    [Fact]
    public async Task A_file_of_a_unique_size_makes_its_folder_unique()
    {
        using var tree = new TempTree();
        Album(tree, "a/album");
        Album(tree, "b/album");
        tree.Write("b/album/cover/back.jpg", TempTree.RandomBytes(123, 9));

        var (folders, files, _) = await FolderScanRun.RunAsync(tree);

        Assert.Empty(folders);
        Assert.Equal(3, files.Count);
    }

    [LinuxFact(RequiresRoot = true, Tool = "setpriv")]
    [SupportedOSPlatform("linux")]
    public async Task An_unreadable_sub_folder_makes_its_folders_unequal()
    {
        // Root lists chmod-000 folders, so the CLI runs as user nobody to meet a real EACCES.
        using var tree = new TempTree();
        using var cli = new CliAsNobody();
        tree.Write("data/a/x/01.mp3", Song1);
        Directory.CreateDirectory(tree.PathOf("data/a/x/sub"));
        tree.Write("data/b/x/01.mp3", Song1);
        tree.Write("data/b/x/sub/secret", Song2);
        CliAsNobody.MakeTraversable(tree.PathOf("data"));
        File.SetUnixFileMode(tree.PathOf("data/b/x/sub"), UnixFileMode.None);

        var (exitCode, stdout, stderr) = await cli.RunAsync(["find", "--folders", "--format", "json", tree.PathOf("data")]);

        Assert.True(exitCode == 1, $"exit code {exitCode}; stderr: {stderr}");
        using var json = JsonDocument.Parse(stdout);
        var error = Assert.Single(json.RootElement.GetProperty("summary").GetProperty("errors").EnumerateArray());
        Assert.Equal(tree.PathOf("data/b/x/sub"), error.GetProperty("path").GetString());
        Assert.Equal(nameof(ScanErrorKind.AccessDenied), error.GetProperty("kind").GetString());

        // Listed, b/x/sub would look empty, like a/x/sub: an unlisted folder is equal to none.
        Assert.DoesNotContain(json.RootElement.GetProperty("folderGroups").EnumerateArray(), g => !g.TryGetProperty("differences", out _));
        var group = Assert.Single(json.RootElement.GetProperty("groups").EnumerateArray());
        Assert.Equal([tree.PathOf("data/a/x/01.mp3"), tree.PathOf("data/b/x/01.mp3")], group.GetProperty("files").EnumerateArray().Select(f => f.GetProperty("path").GetString()!).Order(StringComparer.Ordinal));
    }

    [LinuxFact]
    public async Task A_folder_holding_a_fifo_is_equal_to_none()
    {
        using var tree = new TempTree();
        tree.Write("a/x/01.mp3", Song1);
        Directory.CreateDirectory(tree.PathOf("a/x/sub"));
        tree.Write("b/x/01.mp3", Song1);
        Directory.CreateDirectory(tree.PathOf("b/x/sub"));
        TempTree.Run("mkfifo", tree.PathOf("b/x/sub/pipe"));

        var (folders, files, _) = await FolderScanRun.RunAsync(tree);

        // The FIFO is never opened, so b/x/sub would look empty: a folder with entries not compared is equal to none.
        Assert.Empty(folders);
        Assert.Equal(["a/x/01.mp3 | b/x/01.mp3"], files);
    }

    [Fact]
    public async Task Copies_under_two_roots_are_found()
    {
        using var tree = new TempTree();
        Album(tree, "one/album");
        Album(tree, "two/album");

        var scan = new DuplicateFinderBuilder().AddRoot(tree.PathOf("one")).AddRoot(tree.PathOf("two")).UseFolderMode().Build().FindAsync();
        await foreach (var _ in scan)
        {
        }

        var group = Assert.Single(scan.FolderGroups);
        Assert.Equal([tree.PathOf("one"), tree.PathOf("two")], group.Folders.Select(f => f.ToString()));
    }

    [Fact]
    public void Folder_mode_and_media_mode_cannot_be_combined()
    {
        var builder = new DuplicateFinderBuilder().AddRoot("/tmp").UseFolderMode().UseMediaMode();
        Assert.Throws<ArgumentException>(() => builder.Build());
    }
}
