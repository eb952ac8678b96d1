using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// Things going wrong between the scan and the action, or in the middle of it. Each test asserts that no
/// content is lost and that nothing is left behind.
/// </summary>
public sealed class FaultInjectionTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(50_000, 2);

    public static TheoryData<string> Kinds => new() { "hard", "symbolic", "delete", "trash" };

    [LinuxTheory]
    [MemberData(nameof(Kinds))]
    public async Task Duplicate_modified_after_the_scan_is_skipped(string kind)
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var plan = Plan(tree, await tree.ScanAsync(), kind);
        await File.AppendAllTextAsync(b, "changed");
        var before = tree.Snapshot();

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("changed size", outcome.Reason, StringComparison.Ordinal);
        LinkTree.AssertNoContentLost(before);
        tree.AssertNoTemporaryFiles();
    }

    [LinuxTheory]
    [MemberData(nameof(Kinds))]
    public async Task Same_size_and_time_but_different_bytes_is_caught_by_the_byte_comparison(string kind)
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var plan = Plan(tree, await tree.ScanAsync(), kind);
        var time = File.GetLastWriteTimeUtc(b);
        var changed = (byte[])Content.Clone();
        changed[40_000] ^= 0xFF;
        await File.WriteAllBytesAsync(b, changed);
        File.SetLastWriteTimeUtc(b, time);
        var before = tree.Snapshot();

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal("content differs from the kept file at byte 40000; left untouched", outcome.Reason);
        LinkTree.AssertNoContentLost(before);
    }

    [LinuxTheory]
    [MemberData(nameof(Kinds))]
    public async Task Duplicate_deleted_replaced_by_a_folder_or_a_symbolic_link_is_skipped(string kind)
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var c = tree.Write("c.bin", Content);
        var d = tree.Write("d.bin", Content);
        var plan = Plan(tree, await tree.ScanAsync(), kind);
        File.Delete(b);
        File.Delete(c);
        Directory.CreateDirectory(c);
        tree.Write("c.bin/inside.bin", Content);
        File.Delete(d);
        File.CreateSymbolicLink(d, tree.Write("elsewhere.bin", Content));
        var before = tree.Snapshot();

        var report = await plan.ApplyAsync();

        Assert.All(report.Outcomes, o => Assert.Equal(DuplicateActionStatus.Skipped, o.Status));
        Assert.Contains("No such file", report.Outcomes[0].Reason, StringComparison.Ordinal);
        Assert.Contains("replaced by a folder", report.Outcomes[1].Reason, StringComparison.Ordinal);
        Assert.Contains("replaced by a symbolic link", report.Outcomes[2].Reason, StringComparison.Ordinal);
        Assert.True(Directory.Exists(c));
        Assert.Equal(tree.PathOf("elsewhere.bin"), new FileInfo(d).LinkTarget);
        LinkTree.AssertNoContentLost(before);
        tree.AssertNoTemporaryFiles();
    }

    [LinuxTheory]
    [MemberData(nameof(Kinds))]
    public async Task Kept_file_modified_after_the_scan_stops_the_action(string kind)
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        var plan = Plan(tree, await tree.ScanAsync(), kind);
        await File.AppendAllTextAsync(a, "changed");
        var before = tree.Snapshot();

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("kept file", outcome.Reason, StringComparison.Ordinal);
        LinkTree.AssertNoContentLost(before);
    }

    [LinuxTheory]
    [InlineData("hard")]
    [InlineData("symbolic")]
    public async Task Failure_between_creating_the_temporary_link_and_the_rename_rolls_back(string kind)
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var plan = Plan(tree, await tree.ScanAsync(), kind);
        string? seen = null;
        plan.Faults = new LinkerFaults
        {
            BeforeRename = (temporary, duplicate) =>
            {
                seen = temporary;
                Assert.True(File.Exists(temporary) || new FileInfo(temporary).LinkTarget is not null);
                throw new IOException("injected failure before rename");
            },
        };
        var before = tree.Snapshot();

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Failed, outcome.Status);
        Assert.Equal("injected failure before rename", outcome.Reason);
        Assert.Matches("/\\.dedup-tmp-[0-9a-f]{32}$", seen);
        Assert.NotEqual(TestNative.Inode(a), TestNative.Inode(b));
        LinkTree.AssertNoContentLost(before);
        tree.AssertNoTemporaryFiles();
    }

    [LinuxFact]
    public async Task Duplicate_changed_while_the_temporary_link_exists_is_not_replaced()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var plan = Plan(tree, await tree.ScanAsync(), "hard");
        plan.Faults = new LinkerFaults { BeforeRename = (_, duplicate) => File.AppendAllText(duplicate, "late write") };

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal([.. Content, .. "late write"u8.ToArray()], File.ReadAllBytes(b));
        tree.AssertNoTemporaryFiles();
    }

    [LinuxTheory(RequiresRoot = true)]
    [MemberData(nameof(Kinds))]
    public async Task Immutable_folder_gives_a_real_permission_error_and_loses_nothing(string kind)
    {
        using var tree = new LinkTree();
        tree.Write("keep/a.bin", Content);
        tree.Write("locked/b.bin", Content);
        var plan = Plan(tree, await tree.ScanAsync(), kind, KeepRule.PreferUnder(tree.PathOf("keep")));
        var before = tree.Snapshot();
        tree.MakeImmutable(tree.PathOf("locked"));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.NotEqual(DuplicateActionStatus.Done, outcome.Status);
        Assert.Contains("Operation not permitted", outcome.Reason, StringComparison.Ordinal);
        tree.MakeMutable(tree.PathOf("locked"));
        LinkTree.AssertNoContentLost(before);
        tree.AssertNoTemporaryFiles();
    }

    [LinuxFact]
    public async Task Leftover_temporary_files_of_an_interrupted_run_are_removed_and_nothing_else()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        var leftover = tree.PathOf(".dedup-tmp-" + Guid.NewGuid().ToString("N"));
        TempTree.Run("ln", tree.PathOf("a.bin"), leftover);
        var leftoverLink = tree.PathOf(".dedup-tmp-" + Guid.NewGuid().ToString("N"));
        File.CreateSymbolicLink(leftoverLink, "a.bin");
        string[] decoys =
        [
            tree.Write(".dedup-tmp-" + Guid.NewGuid().ToString("N") + ".bak", Content),
            tree.Write(".dedup-tmp-" + Guid.NewGuid().ToString("N").ToUpperInvariant(), Content),
            tree.Write(".dedup-tmp-notahexnumber", Content),
            tree.Write("x.dedup-tmp-" + Guid.NewGuid().ToString("N"), Content),
        ];
        var folderDecoy = tree.PathOf(".dedup-tmp-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(folderDecoy);
        var groups = await tree.ScanAsync(); // the decoys are duplicates too; plan only the a/b group
        var plan = LinkTree.Plan(groups.Where(g => g.Files.Any(f => f.Path.Name == "b.bin")), Linkers.HardLink);

        Assert.Equal(new[] { leftover, leftoverLink }.Order(StringComparer.Ordinal), plan.LeftoverTemporaryFiles);
        var report = await plan.ApplyAsync();

        Assert.True(report.TemporaryFilesRemoved == 2, string.Join("\n", report.TemporaryFilesLeftAlone));
        Assert.False(File.Exists(leftover));
        Assert.Null(new FileInfo(leftoverLink).LinkTarget);
        Assert.All(decoys, d => Assert.Equal(Content, File.ReadAllBytes(d)));
        Assert.True(Directory.Exists(folderDecoy));
    }

    [LinuxFact]
    public async Task Cancellation_before_apply_skips_every_action()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        var plan = Plan(tree, await tree.ScanAsync(), "delete");
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await plan.ApplyAsync(cancelled.Token));
        Assert.True(File.Exists(tree.PathOf("b.bin")));
    }

    internal static DuplicateActionPlan Plan(LinkTree tree, IEnumerable<DuplicateGroup> groups, string kind, params KeepRule[] rules)
    {
        Linker linker = kind switch
        {
            "hard" => Linkers.HardLink,
            "symbolic" => Linkers.SymbolicLink(),
            "delete" => Linkers.Delete,
            _ => new TrashLinker(Path.Combine(tree.Root, "home-trash")),
        };
        return LinkTree.Plan(groups, linker, rules);
    }
}
