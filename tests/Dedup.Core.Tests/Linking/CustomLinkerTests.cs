using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// A linker of the user's own, written against the public <see cref="Linker"/> and <see cref="LinkerContext"/> only:
/// it decides what to do, while the executor's checks (re-check, byte verification, last re-check, rollback) stay
/// out of its hands.
/// </summary>
public sealed class CustomLinkerTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(50_000, 51);

    [LinuxFact]
    public async Task A_custom_linker_replaces_the_duplicate_with_its_own_stub()
    {
        using var tree = KeptAndDuplicate(out var duplicate);
        var linker = new StubLinker();

        var report = await Plan(tree, linker).ApplyAsync();

        var outcome = Assert.Single(report.Outcomes);
        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.Equal("stub -> " + tree.PathOf("keep/a.bin"), File.ReadAllText(duplicate));
        Assert.Equal(Content.Length, report.ReclaimedBytes);
        tree.AssertNoTemporaryFiles();
    }

    [LinuxFact]
    public async Task A_writer_that_throws_leaves_the_duplicate_and_no_temporary_file()
    {
        using var tree = KeptAndDuplicate(out var duplicate);

        var report = await Plan(tree, new StubLinker { Throw = true }).ApplyAsync();

        var outcome = Assert.Single(report.Outcomes);
        Assert.Equal(DuplicateActionStatus.Failed, outcome.Status);
        Assert.Contains("the replacement could not be written: disk of the backup store is full", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(Content, File.ReadAllBytes(duplicate));
        tree.AssertNoTemporaryFiles();
    }

    [LinuxFact]
    public async Task A_custom_linker_is_not_called_for_a_duplicate_whose_bytes_changed()
    {
        using var tree = KeptAndDuplicate(out var duplicate);
        var linker = new StubLinker();
        var plan = Plan(tree, linker);

        // Same size, same modification time: only the byte comparison can tell.
        var time = File.GetLastWriteTimeUtc(duplicate);
        var changed = (byte[])Content.Clone();
        changed[40_000] ^= 1;
        File.WriteAllBytes(duplicate, changed);
        File.SetLastWriteTimeUtc(duplicate, time);
        var report = await plan.ApplyAsync();

        Assert.Equal(DuplicateActionStatus.Skipped, Assert.Single(report.Outcomes).Status);
        Assert.Equal(0, linker.Calls);
        Assert.Equal(changed, File.ReadAllBytes(duplicate));
    }

    [LinuxFact]
    public async Task A_linker_that_does_nothing_or_two_things_does_not_pass_for_done()
    {
        using var tree = KeptAndDuplicate(out var duplicate);

        var idle = Assert.Single((await Plan(tree, new DelegateLinker(_ => { })).ApplyAsync()).Outcomes);
        Assert.Equal(DuplicateActionStatus.Skipped, idle.Status);
        Assert.Contains("returned without acting", idle.Reason, StringComparison.Ordinal);

        var greedy = Assert.Single((await Plan(tree, new DelegateLinker(c => { c.ReplaceWithHardLink(); c.Delete(); })).ApplyAsync()).Outcomes);
        Assert.Equal(DuplicateActionStatus.Failed, greedy.Status);
        Assert.Contains("one operation per action", greedy.Reason, StringComparison.Ordinal);
        Assert.Equal(Content, File.ReadAllBytes(duplicate)); // the hard link replaced it: same bytes, still there
        Assert.Equal(TestNative.Inode(tree.PathOf("keep/a.bin")), TestNative.Inode(duplicate));
    }

    [LinuxFact]
    public async Task A_custom_linker_may_refuse_with_its_reason()
    {
        using var tree = KeptAndDuplicate(out var duplicate);

        var outcome = Assert.Single((await Plan(tree, new DelegateLinker(c => c.Skip("the backup store is read-only today"))).ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal("the backup store is read-only today", outcome.Reason);
        Assert.Equal(Content, File.ReadAllBytes(duplicate));
    }

    [LinuxFact]
    public async Task A_custom_linker_composes_built_in_operations_with_its_own_choice()
    {
        // "Clone where the file system can, else keep the file": the user's explicit choice, not a silent fallback.
        using var tree = KeptAndDuplicate(out var duplicate);
        var linker = new DelegateLinker(c =>
        {
            if (c.Action.Duplicate.Identity.Device != c.Action.Kept.Identity.Device)
            {
                c.Skip("different devices");
            }

            c.ReplaceWithClone();
        });

        var outcome = Assert.Single((await Plan(tree, linker).ApplyAsync()).Outcomes);

        // /tmp is not btrfs here: the clone is refused by the file system and nothing else is made instead.
        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("cannot clone", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(Content, File.ReadAllBytes(duplicate));
    }

    [LinuxFact]
    public async Task A_stub_gets_the_duplicates_permissions_and_owner()
    {
        using var tree = KeptAndDuplicate(out var duplicate);
        TempTree.Run("chmod", "640", duplicate);
        TempTree.Run("chown", "65534:65534", duplicate);
        Assert.Equal(0, TestNative.FileStatusOf(duplicate, out var before));

        var outcome = Assert.Single((await Plan(tree, new StubLinker()).ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.Equal(0, TestNative.FileStatusOf(duplicate, out var after));
        Assert.Equal(before.Mode & 0xFFF, after.Mode & 0xFFF);
        Assert.Equal((before.Uid, before.Gid), (after.Uid, after.Gid));
        Assert.NotEqual(before.Ino, after.Ino);
    }

    [LinuxFact]
    public async Task A_replacement_that_cannot_be_created_fails_with_the_systems_reason()
    {
        using var tree = KeptAndDuplicate(out var duplicate);
        var plan = Plan(tree, new StubLinker());
        tree.MakeImmutable(tree.PathOf("dup"));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Failed, outcome.Status);
        Assert.Contains("cannot create the replacement in", outcome.Reason, StringComparison.Ordinal);
        Assert.Contains("Operation not permitted", outcome.Reason, StringComparison.Ordinal);
        tree.MakeMutable(tree.PathOf("dup"));
        Assert.Equal(Content, File.ReadAllBytes(duplicate));
    }

    [LinuxFact]
    public async Task A_custom_linkers_link_is_refused_when_owner_or_permissions_differ()
    {
        // Only the built-in link kinds are checked before reading; the operations check again for anyone's linker.
        using var tree = KeptAndDuplicate(out var duplicate);
        TempTree.Run("chmod", "600", duplicate);

        foreach (var link in new Action<LinkerContext>[] { c => c.ReplaceWithHardLink(), c => c.ReplaceWithSymbolicLink() })
        {
            var outcome = Assert.Single((await Plan(tree, new DelegateLinker(link)).ApplyAsync()).Outcomes);
            Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
            Assert.Contains("owner, group or permissions differ", outcome.Reason, StringComparison.Ordinal);
        }

        Assert.Equal(1u, TestNative.LinkCount(duplicate));
        Assert.Null(new FileInfo(duplicate).LinkTarget);
    }

    [LinuxFact]
    public async Task Operations_are_named_in_the_one_operation_error_and_arguments_are_checked()
    {
        using var tree = KeptAndDuplicate(out _);
        string? nullWriter = null, emptyReason = null, twice = null;
        var linker = new DelegateLinker(c =>
        {
            nullWriter = Assert.Throws<ArgumentNullException>(() => c.ReplaceWithFile(null!)).ParamName;
            emptyReason = Assert.ThrowsAny<ArgumentException>(() => c.Skip("")).ParamName;
            c.ReplaceWithClone(); // refused by /tmp's file system: Skipped, but it was the one operation
        });
        await Plan(tree, linker).ApplyAsync();
        var second = new DelegateLinker(c =>
        {
            try
            {
                c.Delete();
            }
            finally
            {
                twice = Assert.Throws<InvalidOperationException>(() => c.DedupeWithKept()).Message;
            }
        });
        tree.Write("dup/a.bin", Content);
        await Plan(tree, second).ApplyAsync();

        Assert.Equal("write", nullWriter);
        Assert.Equal("reason", emptyReason);
        Assert.Equal("A linker performs one operation per action; 'dedupe' was asked after 'delete'.", twice);
    }

    [LinuxFact]
    public void A_custom_linkers_dry_run_names_what_it_does_not_a_built_in_verb()
    {
        using var tree = KeptAndDuplicate(out var duplicate);

        var text = new StringWriter();
        Plan(tree, new StubLinker()).WriteTo(text);

        // Before: "  trash /…/dup/a.bin", the fallback verb of the built-in kinds.
        Assert.Contains($"  replace with a stub: {duplicate} (frees {Content.Length} bytes)", text.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("trash", text.ToString(), StringComparison.Ordinal);
    }

    /// <summary>keep/a.bin and its duplicate dup/a.bin.</summary>
    private static LinkTree KeptAndDuplicate(out string duplicate)
    {
        var tree = new LinkTree();
        tree.Write("keep/a.bin", Content);
        duplicate = tree.Write("dup/a.bin", Content);
        return tree;
    }

    private static DuplicateActionPlan Plan(LinkTree tree, Linker linker)
    {
        var groups = tree.ScanAsync().GetAwaiter().GetResult();
        return LinkTree.Plan(groups, linker, KeepRule.PreferUnder(tree.PathOf("keep")));
    }

    /// <summary>A backup tool's linker: replaces each duplicate with a small stub naming the kept file.</summary>
    private sealed class StubLinker : Linker
    {
        public bool Throw { get; init; }

        public int Calls { get; private set; }

        public override string Description => "replace with a stub";

        public override void Apply(LinkerContext context)
        {
            Calls++;
            context.ReplaceWithFile(stream =>
            {
                if (Throw)
                {
                    throw new IOException("disk of the backup store is full");
                }

                stream.Write(System.Text.Encoding.UTF8.GetBytes("stub -> " + context.Action.Kept.Path));
            });
        }
    }

    private sealed class DelegateLinker(Action<LinkerContext> apply) : Linker
    {
        public override string Description => "custom";

        public override void Apply(LinkerContext context) => apply(context);
    }
}
