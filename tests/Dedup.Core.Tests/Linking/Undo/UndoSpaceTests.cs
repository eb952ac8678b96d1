using Dedup.Core.Linking;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Undo;

/// <summary>
/// Issue #38 point 5: undoing links needs the bytes back; the plan counts them per file system against what is free
/// there and refuses, changing nothing, when they do not fit, unless asked for a partial undo. On the small ext4
/// (<c>DEDUP_TEST_SMALLFS</c>, 64 MiB), in its collection: another test fills it up.
/// </summary>
[Collection(SmallFsCollection.Name)]
public sealed class UndoSpaceTests
{
    private const string Small = "DEDUP_TEST_SMALLFS";
    private static readonly byte[] Content = TempTree.RandomBytes(10 << 20, 383);

    [FactRequiringFolder(Small, "a small ext4 to run out of space on")]
    public async Task Copies_that_do_not_fit_are_refused_before_anything_changes_unless_partial()
    {
        using var tree = new LinkTree(LinkTree.SmallMount);
        using var logs = new TempTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var c = tree.Write("data/c.bin", Content);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(2, (await UndoFixtures.ActAsync(tree, Linkers.HardLink, journal, tree.PathOf("data"))).Done);
        UndoFixtures.FillLeaving(tree.PathOf("filler"), 15 << 20); // room for one copy, not two

        var plan = UndoPlan.Create(journal);

        var space = Assert.Single(plan.Space);
        Assert.Equal(2L * Content.Length, space.Needed); // 10 MiB each, a whole number of blocks
        Assert.True(space.Available < space.Needed, $"{space.Available} bytes free");
        Assert.False(plan.HasEnoughSpace);
        Assert.StartsWith("not enough space to undo: 20.0 MiB needed on the file system of ", plan.SpaceRefusal(), StringComparison.Ordinal);
        await Assert.ThrowsAsync<InvalidOperationException>(() => plan.ApplyAsync());
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(b));
        Assert.Equal(TestNative.Inode(a), TestNative.Inode(c));
        Assert.Empty(Directory.GetFiles(tree.PathOf("data"), ".dedup-tmp-*"));

        var partial = await plan.ApplyAsync(partial: true);

        Assert.Contains(partial.Outcomes, o => o.Outcome == UndoOutcome.Failed && o.Reason!.StartsWith("no space left for the copy", StringComparison.Ordinal));
        Assert.DoesNotContain(partial.Outcomes, o => o.Outcome is UndoOutcome.LeftAlone);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.Equal(Content, await File.ReadAllBytesAsync(c));
        Assert.Empty(Directory.GetFiles(tree.PathOf("data"), ".dedup-tmp-*"));
    }
}
