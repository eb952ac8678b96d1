using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Folders;

/// <summary>Partial overlaps: folders equal but for a few entries are listed with what differs.</summary>
public sealed class FolderOverlapTests
{
    private static readonly byte[][] Songs = Enumerable.Range(0, 6).Select(i => TempTree.RandomBytes(4000 + (i * 100), 10 + i)).ToArray();

    private static void Album(TempTree tree, string folder)
    {
        for (var i = 0; i < Songs.Length; i++)
        {
            tree.Write($"{folder}/{i:00}.mp3", Songs[i]);
        }
    }

    private static async Task<List<DuplicateFolderGroup>> PartialAsync(TempTree tree)
    {
        var (_, _, scan) = await FolderScanRun.RunAsync(tree);
        return scan.FolderGroups.Where(g => !g.IsExact).ToList();
    }

    [Fact]
    public async Task A_copy_with_one_extra_file_is_listed_with_the_file()
    {
        using var tree = new TempTree();
        Album(tree, "music/album");
        Album(tree, "backup/album");
        tree.Write("backup/album/bonus.mp3", TempTree.RandomBytes(3000, 99));

        var group = Assert.Single(await PartialAsync(tree));

        // The topmost pair: music and backup hold only the albums.
        Assert.Equal(["backup", "music"], group.Folders.Select(f => FolderScanRun.Relative(tree, f.ToString())));
        Assert.Equal(6, group.Files);
        Assert.Equal(Songs.Sum(s => (long)s.Length), group.Bytes);
        Assert.Equal([new FolderDifference("album/bonus.mp3", FolderDifferenceKind.OnlyInFirst)], group.Differences);
        Assert.Equal(0, group.WastedBytes);
    }

    [Fact]
    public async Task A_copy_with_one_changed_file_is_listed_as_changed()
    {
        using var tree = new TempTree();
        Album(tree, "a/album");
        Album(tree, "b/album");
        tree.Write("b/album/03.mp3", TempTree.RandomBytes(Songs[3].Length, 77));
        tree.Write("a/album/notes/readme.txt", "only here");

        var group = Assert.Single(await PartialAsync(tree));

        Assert.Equal(["a", "b"], group.Folders.Select(f => FolderScanRun.Relative(tree, f.ToString())));
        Assert.Equal(5, group.Files);
        Assert.Equal(
            [new FolderDifference("album/03.mp3", FolderDifferenceKind.Changed), new FolderDifference("album/notes/", FolderDifferenceKind.OnlyInFirst)],
            group.Differences);
    }

    [Fact]
    public async Task Folders_sharing_less_than_half_their_files_are_not_listed()
    {
        using var tree = new TempTree();
        tree.Write("a/x/00.mp3", Songs[0]);
        tree.Write("a/x/01.mp3", Songs[1]);
        tree.Write("a/x/02.mp3", Songs[2]);
        tree.Write("b/x/00.mp3", Songs[0]);
        tree.Write("b/x/other1", TempTree.RandomBytes(100, 1));
        tree.Write("b/x/other2", TempTree.RandomBytes(200, 2));

        Assert.Empty(await PartialAsync(tree));
    }

    [Fact]
    public async Task Files_of_the_same_names_but_other_contents_are_not_shared()
    {
        using var tree = new TempTree();
        Album(tree, "a/album");
        for (var i = 0; i < Songs.Length; i++)
        {
            // Four of six changed under the same names: two shared, less than half.
            tree.Write($"b/album/{i:00}.mp3", i < 2 ? Songs[i] : TempTree.RandomBytes(Songs[i].Length, 50 + i));
        }

        tree.Write("b/album/notes.txt", "only here"); // a difference of its own: the pair is not equal whatever is shared

        Assert.Empty(await PartialAsync(tree));
    }

    [Fact]
    public async Task Shared_files_deep_in_sub_folders_that_differ_count_for_the_enclosing_pair()
    {
        using var tree = new TempTree();
        Album(tree, "a/set/disc1");
        Album(tree, "b/set/disc1");
        tree.Write("a/set/disc1/bonus.mp3", TempTree.RandomBytes(3000, 98));
        tree.Write("b/set/cover.jpg", TempTree.RandomBytes(2000, 97));

        var group = Assert.Single(await PartialAsync(tree));

        Assert.Equal(["a", "b"], group.Folders.Select(f => FolderScanRun.Relative(tree, f.ToString())));
        Assert.Equal(6, group.Files);
        Assert.Equal(
            [new FolderDifference("set/cover.jpg", FolderDifferenceKind.OnlyInSecond), new FolderDifference("set/disc1/bonus.mp3", FolderDifferenceKind.OnlyInFirst)],
            group.Differences);
    }

    [Fact]
    public async Task Differences_name_the_folders_in_path_order_whichever_was_listed_first()
    {
        using var tree = new TempTree();
        // Two pairs, each made in the other order, so that one of them is listed second-first whatever the file system's order.
        foreach (var (first, second, seed) in new[] { ("p1/x", "p1/y", 300), ("p2/y", "p2/x", 400) })
        {
            for (var i = 0; i < Songs.Length; i++)
            {
                var song = TempTree.RandomBytes(Songs[i].Length, seed + i); // each pair its own songs: no overlap across pairs
                tree.Write($"{first}/album/{i:00}.mp3", song);
                tree.Write($"{second}/album/{i:00}.mp3", song);
            }
        }

        foreach (var pair in new[] { "p1", "p2" })
        {
            tree.Write($"{pair}/x/album/only-x.txt", "x " + pair);
            tree.Write($"{pair}/y/album/only-y.txt", "y " + pair);
            tree.Write($"{pair}/x/album/05.mp3", TempTree.RandomBytes(Songs[5].Length, pair == "p1" ? 61 : 62)); // changed in x
        }

        var groups = await PartialAsync(tree);

        Assert.Equal(2, groups.Count);
        foreach (var group in groups)
        {
            var pair = FolderScanRun.Relative(tree, group.Folders[0].ToString())[..2];
            Assert.Equal([$"{pair}/x", $"{pair}/y"], group.Folders.Select(f => FolderScanRun.Relative(tree, f.ToString())));
            Assert.Equal(
                [
                    new FolderDifference("album/05.mp3", FolderDifferenceKind.Changed),
                    new FolderDifference("album/only-x.txt", FolderDifferenceKind.OnlyInFirst),
                    new FolderDifference("album/only-y.txt", FolderDifferenceKind.OnlyInSecond),
                ],
                group.Differences);
        }
    }

    [Fact]
    public async Task Links_and_folders_that_differ_are_listed()
    {
        using var tree = new TempTree();
        Album(tree, "a/album");
        Album(tree, "b/album");
        tree.Symlink("target-one", tree.PathOf("a/album/cover"));
        tree.Symlink("target-two", tree.PathOf("b/album/cover"));
        tree.Symlink("elsewhere", tree.PathOf("a/album/only-link"));
        tree.Write("b/album/extras/readme.txt", "extras");

        var group = Assert.Single(await PartialAsync(tree));

        Assert.Equal(
            [
                new FolderDifference("album/cover", FolderDifferenceKind.Changed),
                new FolderDifference("album/extras/", FolderDifferenceKind.OnlyInSecond),
                new FolderDifference("album/only-link", FolderDifferenceKind.OnlyInFirst),
            ],
            group.Differences);
    }

    [Fact]
    public async Task The_climb_stops_below_parents_that_are_no_overlap_and_exactly_half_is_enough()
    {
        using var tree = new TempTree();
        // x/album and y/deep/album share 3 of 6 files (exactly half); x holds much more, so (x, y/deep) is no overlap.
        for (var i = 0; i < Songs.Length; i++)
        {
            var song = TempTree.RandomBytes(Songs[i].Length, 500 + i); // not big1's songs
            tree.Write($"x/album/{i:00}.mp3", song);
            tree.Write($"y/deep/album/{i:00}.mp3", i < 3 ? song : TempTree.RandomBytes(Songs[i].Length, 40 + i));
            tree.Write($"x/other{i}.bin", TempTree.RandomBytes(900 + i, 80 + i));
        }

        // A second, larger overlap: listed first (most bytes first).
        Album(tree, "big1/album");
        Album(tree, "big2/album");
        tree.Write("big2/album/more.bin", TempTree.RandomBytes(1000, 70));

        var groups = await PartialAsync(tree);

        Assert.Equal(
            ["big1 | big2", "x/album | y/deep/album"],
            groups.Select(g => string.Join(" | ", g.Folders.Select(f => FolderScanRun.Relative(tree, f.ToString())))));
        Assert.Equal(3, groups[1].Files);
    }

    [Fact]
    public async Task Equal_folders_are_not_listed_as_overlaps()
    {
        using var tree = new TempTree();
        Album(tree, "a/album");
        Album(tree, "b/album");

        var (folders, _, scan) = await FolderScanRun.RunAsync(tree);

        Assert.Equal(["a | b"], folders);
        Assert.All(scan.FolderGroups, g => Assert.True(g.IsExact));
    }

    [System.Runtime.Versioning.SupportedOSPlatform("linux")]
    [LinuxTheory]
    [InlineData("backup", "music")]
    [InlineData("music", "backup")]
    public async Task A_sub_folder_unreadable_on_one_side_is_unknown_not_empty(string firstRoot, string secondRoot)
    {
        // One thread and the two folders as roots in a given order fix which side the comparison starts from; one of
        // the orders compares the folders the other way round from how they are listed (by path).
        // Root lists chmod-000 folders, so the CLI runs as user nobody to meet a real EACCES.
        using var tree = new TempTree();
        using var cli = new CliAsNobody();
        Album(tree, "data/music/album");
        Album(tree, "data/backup/album");
        tree.Write("data/backup/bonus.mp3", TempTree.RandomBytes(3000, 99));
        tree.Write("data/music/cover.jpg", Songs[0][..1000]);
        tree.Write("data/backup/cover.jpg", Songs[0][..1000]);
        tree.Write("data/music/private/a.mp3", TempTree.RandomBytes(2000, 98));
        tree.Write("data/backup/private/a.mp3", TempTree.RandomBytes(2000, 98));
        CliAsNobody.MakeTraversable(tree.PathOf("data"));
        File.SetUnixFileMode(tree.PathOf("data/backup/private"), UnixFileMode.None);

        var (exitCode, stdout, stderr) = await cli.RunAsync(["find", "--folders", "--threads", "1", tree.PathOf($"data/{firstRoot}"), tree.PathOf($"data/{secondRoot}")]);

        Assert.True(exitCode == 1, $"exit code {exitCode}; stderr: {stderr}"); // the unreadable folder is a scan error
        Assert.Contains("    only in first:  bonus.mp3\n", stdout, StringComparison.Ordinal);
        Assert.True(stdout.Contains("    unknown:        private/\n", StringComparison.Ordinal), stdout);
        Assert.DoesNotContain("private/a.mp3", stdout, StringComparison.Ordinal);
    }

    [RequiresToolFact("mkfifo")]
    public async Task A_sub_folder_holding_a_fifo_is_unknown()
    {
        using var tree = new TempTree();
        Album(tree, "music/album");
        Album(tree, "backup/album");
        tree.Write("backup/bonus.mp3", TempTree.RandomBytes(3000, 99));
        tree.Write("music/cover.jpg", Songs[0][..1000]);
        tree.Write("backup/cover.jpg", Songs[0][..1000]);
        var extra = TempTree.RandomBytes(2000, 98);
        tree.Write("music/pipes/a.mp3", extra);
        tree.Write("backup/pipes/a.mp3", extra);
        TempTree.Run("mkfifo", tree.PathOf("backup/pipes/fifo"));

        var group = Assert.Single(await PartialAsync(tree));

        Assert.Equal(["backup", "music"], group.Folders.Select(f => FolderScanRun.Relative(tree, f.ToString())));
        Assert.Equal(
            [new FolderDifference("bonus.mp3", FolderDifferenceKind.OnlyInFirst), new FolderDifference("pipes/", FolderDifferenceKind.Unknown)],
            group.Differences);
        Assert.Equal(7, group.Files); // the album and the cover: what is in pipes/ is not counted as shared
    }
}
