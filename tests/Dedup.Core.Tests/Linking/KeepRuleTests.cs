using Dedup.Core.Enumeration;
using Dedup.Core.Linking;
using Dedup.Core.Paths;

namespace Dedup.Core.Tests.Linking;

/// <summary>Which file of a group stays: rules in order, the first that decides wins; a tie no rule breaks keeps nothing.</summary>
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
    public void Path_order_decides_by_the_ordinal_path() => Assert.Equal("/b.bin", Kept(KeepRule.PathOrder));

    [Fact]
    public void Without_rules_nothing_is_kept() => Assert.Null(KeepRule.SelectKept(Files, []));

    [Fact]
    public void Path_order_puts_paths_with_hidden_folders_last()
    {
        DuplicateFile[] files = [File("/a/.cache/x.bin", Early, 1), File("/b/x.bin", Early, 2)];
        Assert.Equal("/b/x.bin", KeepRule.SelectKept(files, [KeepRule.PathOrder])!.Path.ToString());
    }

    [Fact]
    public void A_tie_no_rule_breaks_keeps_nothing_unless_a_fallback_is_added()
    {
        // Two files are equally old: Oldest alone cannot decide between them.
        Assert.Null(KeepRule.SelectKept(Files, [KeepRule.Oldest]));
        Assert.Null(KeepRule.SelectKept(Files, [KeepRule.Newest]));
        Assert.Equal("/data/a.bin", Kept(KeepRule.Oldest, KeepRule.PathOrder));
        Assert.Equal("/b.bin", Kept(KeepRule.Newest, KeepRule.PathOrder));
    }

    [Fact]
    public void A_rule_that_singles_out_one_file_decides_alone()
    {
        DuplicateFile[] files = [File("/x/new.bin", Late, 1), File("/y/old.bin", Early, 2), File("/z/new.bin", Late, 3)];
        Assert.Equal("/y/old.bin", KeepRule.SelectKept(files, [KeepRule.Oldest])!.Path.ToString());
    }

    [Fact]
    public void Shortest_path_wins() => Assert.Equal("/b.bin", Kept(KeepRule.ShortestPath));

    [Fact]
    public void Reference_folders_win_in_their_order()
    {
        Assert.Equal("/ref/long/er/name.bin", Kept(KeepRule.PreferUnder("/ref", "/data")));
        Assert.Equal("/data/a.bin", Kept(KeepRule.PreferUnder("/data", "/ref"), KeepRule.PathOrder));
        Assert.Null(KeepRule.SelectKept(Files, [KeepRule.PreferUnder("/data", "/ref")])); // two copies under /data: a tie
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
        Assert.Equal("/data/a.bin", Kept(KeepRule.PreferPrefix("/nowhere"), KeepRule.Oldest, KeepRule.PathOrder)); // undecided → next rule
        Assert.Null(KeepRule.SelectKept(Files, [KeepRule.PreferPrefix("/nowhere")])); // no fallback is invented
    }

    [Fact]
    public void A_custom_rule_decides_and_the_order_of_files_does_not_matter()
    {
        var byIdentity = KeepRule.Custom("highest inode", (x, y) => y.Identity.FileId.CompareTo(x.Identity.FileId));
        Assert.Equal("/data/a.bin", Kept(byIdentity));
        Assert.Equal("/data/a.bin", KeepRule.SelectKept(Files.Reverse().ToArray(), [byIdentity])!.Path.ToString());
        Assert.Equal("/b.bin", KeepRule.SelectKept(Files.Reverse().ToArray(), [KeepRule.PathOrder])!.Path.ToString());
    }

    [Fact]
    public void A_reference_folder_that_does_not_exist_is_refused_when_the_planner_is_built()
    {
        var builder = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Keep(KeepRule.PreferUnder("/nonexistent-" + Guid.NewGuid().ToString("N")));
        var error = Assert.Throws<ArgumentException>(builder.Build);
        Assert.Contains("does not exist", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_planner_without_rules_keeps_the_first_in_path_order_and_one_with_rules_has_no_fallback()
    {
        var group = new DuplicateGroup(10, [Files[0], Files[3]], verifiedByBytes: true);
        var defaulted = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Build().Plan([group]);
        Assert.Equal("/data/a.bin", Assert.Single(defaulted.Actions).Kept.Path.ToString());
        Assert.Empty(defaulted.UndecidedGroups);

        var tied = new DuplicateGroup(10, [Files[0], Files[2]], verifiedByBytes: true); // both Late
        var plan = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).Keep(KeepRule.Newest).Build().Plan([tied]);
        Assert.Empty(plan.Actions);
        Assert.Same(tied, Assert.Single(plan.UndecidedGroups));
        var text = new StringWriter();
        plan.WriteTo(text);
        Assert.Contains("no keep rule decides", text.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/home/u/.local/share/Trash/files/x.bin")]
    [InlineData("/mnt/disk/.Trash-1000/files/x.bin")]
    [InlineData("/mnt/disk/.Trash/1000/files/x.bin")]
    [InlineData("/data/.dedup-tmp-0123456789abcdef0123456789abcdef")]
    [InlineData("/mnt/win/$RECYCLE.BIN/S-1-5-21-1000/$RABC123.docx")]
    [InlineData("/mnt/win/$Recycle.Bin/S-1-5-21-1000/$RABC123.docx")]
    [InlineData("/mnt/xp/RECYCLER/S-1-5-21-1000/Dc1.docx")]
    [InlineData("/mnt/usb/.Trashes/501/x.bin")]
    public void A_copy_in_a_trash_or_a_temporary_file_is_never_kept_whatever_the_rules_say(string disposable)
    {
        DuplicateFile[] files = [File(disposable, Early, 1), File("/zz/later.bin", Late, 2)];
        Assert.Equal("/zz/later.bin", KeepRule.SelectKept(files, [KeepRule.Oldest, KeepRule.PathOrder])!.Path.ToString());
        Assert.Equal("/zz/later.bin", KeepRule.SelectKept(files.Reverse().ToArray(), [KeepRule.Oldest])!.Path.ToString());
    }

    [Fact]
    public void Rules_describe_themselves_and_refuse_null_arguments()
    {
        Assert.Equal(@"under /ref, /a\\nb", KeepRule.PreferUnder("/ref", @"/a\nb").Description); // names shown escaped
        Assert.Equal("prefix /data/", KeepRule.PreferPrefix("/data/").ToString());
        Assert.Equal("first in path order", KeepRule.PathOrder.Description);
        Assert.Throws<ArgumentNullException>(() => KeepRule.PreferUnder(null!));
        Assert.Throws<ArgumentNullException>(() => KeepRule.PreferPrefix(null!));
        Assert.Throws<ArgumentException>(() => KeepRule.Custom("", (_, _) => 0));
        Assert.Throws<ArgumentNullException>(() => KeepRule.Custom("x", null!));
    }

    private static string Kept(params KeepRule[] rules) => KeepRule.SelectKept(Files, rules)!.Path.ToString();

    internal static DuplicateFile FileOf(string path, DateTime time, ulong inode) => File(path, time, inode);

    private static DuplicateFile File(string path, DateTime time, ulong inode) =>
        new(AbsolutePath.Parse(path), [], new FileIdentity(1, inode), 10, 1, time);
}

/// <summary>Changes a process-wide environment variable, so it runs alone (no other test may read it meanwhile).</summary>
[Collection(ProcessEnvironmentCollection.Name)]
public sealed class KeepRuleEnvironmentTests
{
    [Fact]
    public void The_trash_named_by_XDG_DATA_HOME_counts_as_a_trash()
    {
        var previous = Environment.GetEnvironmentVariable("XDG_DATA_HOME");
        try
        {
            Environment.SetEnvironmentVariable("XDG_DATA_HOME", "/srv/xdg");
            DuplicateFile[] files = [KeepRuleTests.FileOf("/srv/xdg/Trash/files/x.bin", DateTime.UnixEpoch, 1), KeepRuleTests.FileOf("/srv/Trash/y.bin", DateTime.UnixEpoch.AddDays(1), 2)];
            Assert.Equal("/srv/Trash/y.bin", KeepRule.SelectKept(files, [KeepRule.Oldest])!.Path.ToString()); // a folder merely named Trash is not one
        }
        finally
        {
            Environment.SetEnvironmentVariable("XDG_DATA_HOME", previous);
        }
    }
}

/// <summary>Tests that change the process's environment: never run in parallel with any other test.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ProcessEnvironmentCollection
{
    public const string Name = "ProcessEnvironment";
}
