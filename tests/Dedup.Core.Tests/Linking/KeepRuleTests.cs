using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Paths;

namespace Dedup.Core.Tests.Linking;

/// <summary>Which file of a group stays: rules in order, the first that decides wins, then the ordinal path.</summary>
public sealed class KeepRuleTests
{
    private static readonly DateTime Early = new(2020, 1, 1, 0, 0, 0, DateTimeKind.Utc);
    private static readonly DateTime Late = new(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    private static readonly DuplicateFile[] Files =
    [
        File("/data/zz/copy.bin", Late, 1),
        File("/ref/long/er/name.bin", Early, 2),
        File("/b.bin", Late, 3),
        File("/data/a.bin", Early, 4),
    ];

    [Fact]
    public void Without_rules_the_ordinal_path_decides() => Assert.Equal("/b.bin", Kept());

    [Fact]
    public void Oldest_and_newest_break_their_own_ties_by_path()
    {
        Assert.Equal("/data/a.bin", Kept(KeepRule.Oldest));
        Assert.Equal("/b.bin", Kept(KeepRule.Newest));
    }

    [Fact]
    public void Shortest_path_wins() => Assert.Equal("/b.bin", Kept(KeepRule.ShortestPath));

    [Fact]
    public void Reference_folders_win_in_their_order()
    {
        Assert.Equal("/ref/long/er/name.bin", Kept(KeepRule.PreferUnder("/ref", "/data")));
        Assert.Equal("/data/a.bin", Kept(KeepRule.PreferUnder("/data", "/ref")));
    }

    [Fact]
    public void Other_hard_link_names_count_for_reference_folders()
    {
        var linked = new DuplicateFile(AbsolutePath.Parse("/x/one.bin"), [AbsolutePath.Parse("/ref/two.bin")], new FileIdentity(1, 9), 10, 2, Late);
        Assert.Same(linked, KeepRule.SelectKept([Files[0], Files[2], linked, Files[3]], [KeepRule.PreferUnder("/ref")]));
    }

    [Fact]
    public void Rules_compose_the_first_that_decides_wins()
    {
        Assert.Equal("/data/a.bin", Kept(KeepRule.PreferPrefix("/data/"), KeepRule.Oldest));
        Assert.Equal("/data/zz/copy.bin", Kept(KeepRule.PreferPrefix("/data/zz"), KeepRule.Oldest));
        Assert.Equal("/data/a.bin", Kept(KeepRule.PreferPrefix("/nowhere"), KeepRule.Oldest)); // undecided → next rule
    }

    [Fact]
    public void A_custom_rule_decides_and_the_order_of_files_does_not_matter()
    {
        var byIdentity = KeepRule.Custom("highest inode", (x, y) => y.Identity.FileId.CompareTo(x.Identity.FileId));
        Assert.Equal("/data/a.bin", Kept(byIdentity));
        Assert.Equal("/data/a.bin", KeepRule.SelectKept(Files.Reverse().ToArray(), [byIdentity]).Path.ToString());
        Assert.Equal("/b.bin", KeepRule.SelectKept(Files.Reverse().ToArray(), []).Path.ToString());
    }

    private static string Kept(params KeepRule[] rules) => KeepRule.SelectKept(Files, rules).Path.ToString();

    private static DuplicateFile File(string path, DateTime time, ulong inode) =>
        new(AbsolutePath.Parse(path), [], new FileIdentity(1, inode), 10, 1, time);
}
