using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// A run keeps the folders it opened for its next actions (<see cref="FolderCache"/>). A folder renamed out of the
/// scanned root between two actions must not take the second action with it: the open folder is used again only while
/// a walk from the root, through no link, still reaches it.
/// </summary>
public sealed class MovedFolderTests
{
    private static readonly byte[] One = TempTree.RandomBytes(30_000, 41);
    private static readonly byte[] Two = TempTree.RandomBytes(30_000, 42);

    [LinuxFact]
    public async Task A_folder_moved_out_of_the_root_after_one_action_is_not_acted_in_by_the_next()
    {
        using var tree = new LinkTree();
        tree.Write("in/keep/one.bin", One);
        tree.Write("in/keep/two.bin", Two);
        tree.Write("in/sub/one.bin", One);
        tree.Write("in/sub/two.bin", Two);
        Directory.CreateDirectory(tree.PathOf("out"));
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("in")), Linkers.Delete, KeepRule.PreferUnder(tree.PathOf("in/keep")));
        var moved = false;
        plan.Faults = new LinkerFaults
        {
            BeforeDelete = _ =>
            {
                if (!moved)
                {
                    Directory.Move(tree.PathOf("in/sub"), tree.PathOf("out/sub"));
                    moved = true;
                }
            },
        };

        var outcomes = (await plan.ApplyAsync()).Outcomes;

        Assert.True(moved, "the fault hook did not run");
        Assert.Equal(2, outcomes.Count);
        // The first action was past its last check when the folder moved: it finishes in the folder it opened.
        var first = outcomes[0];
        Assert.Equal(DuplicateActionStatus.Done, first.Status);
        // The second finds no in/sub below the root and leaves the moved folder's file alone.
        var second = outcomes[1];
        Assert.Equal(DuplicateActionStatus.Skipped, second.Status);
        var left = Path.Combine(tree.PathOf("out/sub"), Path.GetFileName(second.Action.Path.ToString()));
        Assert.Equal(second.Action.Path.ToString().EndsWith("one.bin", StringComparison.Ordinal) ? One : Two, await File.ReadAllBytesAsync(left));
        Assert.Equal(One, await File.ReadAllBytesAsync(tree.PathOf("in/keep/one.bin")));
        Assert.Equal(Two, await File.ReadAllBytesAsync(tree.PathOf("in/keep/two.bin")));
    }
}
