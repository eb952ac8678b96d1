using Dedup.Core.Linking;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Reports.Html;

/// <summary>
/// Which copy the HTML page says is kept, and which copies its command may name (#39, #40 point 2): the copy
/// <c>dedup delete</c> keeps for that group (a copy in a trash, by its names or its real location, only when every copy
/// is one; then path order), and across machines only this machine's copies compared byte for byte compete and are
/// acted on; each copy's machine and whether it matched by SHA-256 only travel with it.
/// </summary>
public sealed class HtmlReportKeptTests
{
    [Fact]
    public void A_group_across_machines_keeps_one_of_the_copies_compared_here_and_flags_those_matched_by_SHA256_only()
    {
        var group = new DuplicateGroup(10, [OnMachine("/data/a/x", "beta", bySha256: true), OnMachine("/data/y/x", "alpha"), OnMachine("/data/z/x", "alpha")], verifiedByBytes: true)
        {
            Sha256 = new byte[32],
        };

        var written = HtmlPages.Data(HtmlPages.Write([group])).GetProperty("g")[0];

        Assert.Equal(2, written[0].GetInt32());
        Assert.Equal(1, written[2].GetInt32()); // /data/y/x: beta's /data/a/x comes first in path order but is not this machine's to keep
        Assert.Equal([1, 0, 0], written[4].GetProperty("s").EnumerateArray().Select(s => s.GetInt32()));
        Assert.Equal(["beta", "alpha", "alpha"], written[4].GetProperty("m").EnumerateArray().Select(m => m.GetString()));
    }

    [Fact]
    public void A_group_across_machines_with_one_copy_compared_here_keeps_nothing()
    {
        var group = new DuplicateGroup(10, [OnMachine("/data/a/x", "beta", bySha256: true), OnMachine("/data/y/x", "alpha", bySha256: true), OnMachine("/data/z/x", "alpha")], verifiedByBytes: false)
        {
            Sha256 = new byte[32],
        };

        var written = HtmlPages.Data(HtmlPages.Write([group])).GetProperty("g")[0];

        Assert.Equal(-1, written[2].GetInt32());
        Assert.Equal([1, 1, 0], written[4].GetProperty("s").EnumerateArray().Select(s => s.GetInt32()));
    }

    [Fact]
    public void A_group_of_a_scan_with_a_catalog_names_the_machine_of_each_copy()
    {
        var group = new DuplicateGroup(10, [OnMachine("/data/a/x", "alpha"), OnMachine("/data/b/x", "alpha")], verifiedByBytes: true);

        var written = HtmlPages.Data(HtmlPages.Write([group])).GetProperty("g")[0];

        Assert.Equal(0, written[2].GetInt32());
        Assert.Equal(["alpha", "alpha"], written[4].GetProperty("m").EnumerateArray().Select(m => m.GetString()));
        Assert.False(written[4].TryGetProperty("s", out _)); // only a group across machines has copies matched by SHA-256 only
    }

    [Fact]
    public void A_copy_in_a_trash_by_its_names_is_not_the_one_kept_file_or_folder()
    {
        var files = HtmlPages.Group(10, "/data/$RECYCLE.BIN/S-1-5-21/x", "/data/RECYCLER/x", "/data/z/x");
        var allInTrash = HtmlPages.Group(10, "/data/RECYCLER/x", "/data/$RECYCLE.BIN/x");
        var folders = new DuplicateFolderGroup([AbsolutePath.Parse("/data/$RECYCLE.BIN/p"), AbsolutePath.Parse("/data/q")], 2, 20, verifiedByBytes: true);

        var data = HtmlPages.Data(HtmlPages.Write([files, allInTrash], folderGroups: [folders]));

        Assert.Equal(2, data.GetProperty("g")[0][2].GetInt32()); // '$' and 'R' sort before 'z': path order alone keeps a trash's copy
        Assert.Equal(1, data.GetProperty("g")[1][2].GetInt32()); // every copy in a trash: path order decides among them
        Assert.Equal(1, data.GetProperty("f")[0][4].GetInt32());
        Assert.Equal(files.Files[2], KeepRule.SelectKept(files.Files, [KeepRule.PathOrder]));
        Assert.Equal(allInTrash.Files[1], KeepRule.SelectKept(allInTrash.Files, [KeepRule.PathOrder]));
    }

    [LinuxFact]
    public void A_copy_reached_through_a_link_into_a_trash_is_not_the_one_kept_as_the_planner_decides()
    {
        using var tree = new TempTree();
        var inTrash = tree.Write(".Trash-1000/files/x.bin", "same");
        tree.Symlink(tree.PathOf(".Trash-1000"), "bin");
        var other = tree.Write("zz/x.bin", "same");
        var group = new DuplicateGroup(4, [HtmlPages.File(tree.PathOf("bin/files/x.bin"), 4, 1), HtmlPages.File(other, 4, 2)], verifiedByBytes: true);
        Assert.True(File.Exists(inTrash));

        var kept = HtmlPages.Data(HtmlPages.Write([group])).GetProperty("g")[0][2].GetInt32();

        Assert.Equal(1, kept); // "bin" sorts before "zz", but its real location is a trash
        Assert.Same(group.Files[kept], KeepRule.SelectKept(group.Files, [KeepRule.PathOrder]));
    }

    private static DuplicateFile OnMachine(string path, string machine, bool bySha256 = false) =>
        HtmlPages.File(path) with { Machine = machine, MatchedBySha256 = bySha256 };
}
