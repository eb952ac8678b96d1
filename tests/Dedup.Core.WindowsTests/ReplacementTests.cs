using Dedup.Core.Linking;
using Dedup.Core.WindowsTests.Infrastructure;

namespace Dedup.Core.WindowsTests;

/// <summary>
/// Symbolic links and ReFS block clones replacing a duplicate on Windows, through the public API. Where the system
/// cannot make them (no symbolic-link privilege, a volume without block cloning, Wine) the refusal is what is tested.
/// </summary>
public sealed class ReplacementTests
{
    private const string BlockCloning = "block cloning needs ReFS";

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task A_symbolic_link_replaces_the_duplicate_or_is_skipped_without_the_privilege(bool relative)
    {
        using var tree = new TempTree();
        var (kept, duplicate, plan) = await ActionTests.PlanAsync(tree, Linkers.SymbolicLink(relative));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Empty(Directory.GetFiles(tree.PathOf("other"), ".dedup-tmp-*"));
        Assert.Equal(ActionTests.Content, await File.ReadAllBytesAsync(kept));
        Assert.False(Wine.IsRunning && outcome.Status == DuplicateActionStatus.Done, "Wine 8 makes no symbolic links; a Done here would be wrong");
        if (outcome.Status == DuplicateActionStatus.Done)
        {
            var link = new FileInfo(duplicate);
            Assert.True(link.Attributes.HasFlag(FileAttributes.ReparsePoint));
            Assert.Equal(relative ? Path.Combine("..", "keep", "a.bin") : kept, link.LinkTarget);
            Assert.Equal(Win32.FileIdentity(kept).Index, Win32.FileIdentity(duplicate).Index); // opened through the link
            return;
        }

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal(ActionTests.Content, await File.ReadAllBytesAsync(duplicate));
        Assert.False(new FileInfo(duplicate).Attributes.HasFlag(FileAttributes.ReparsePoint));
        Assert.Contains(Wine.IsRunning ? "there is none" : "Developer Mode or the SeCreateSymbolicLinkPrivilege", outcome.Reason, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_clone_is_refused_at_plan_time_on_a_volume_without_block_cloning()
    {
        using var tree = new TempTree();
        SkipOnReFS(tree);
        var (kept, duplicate, plan) = await ActionTests.PlanAsync(tree, Linkers.Clone);

        var action = Assert.Single(plan.Actions);
        Assert.Contains(BlockCloning, action.Refusal, StringComparison.Ordinal);
        Assert.Equal(0, plan.ReclaimableBytes);

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);
        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal(ActionTests.Content, await File.ReadAllBytesAsync(duplicate));
        Assert.Equal(ActionTests.Content, await File.ReadAllBytesAsync(kept));
    }

    [Fact]
    public async Task A_clone_asked_by_a_linker_of_ones_own_is_refused_when_applied_and_leaves_nothing_behind()
    {
        // A custom linker is not predicted at plan time, so this reaches the executor's own check.
        using var tree = new TempTree();
        SkipOnReFS(tree);
        var (kept, duplicate, plan) = await ActionTests.PlanAsync(tree, new CloningLinker());
        Assert.Null(Assert.Single(plan.Actions).Refusal);

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains(BlockCloning, outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(ActionTests.Content, await File.ReadAllBytesAsync(duplicate));
        Assert.Equal(ActionTests.Content, await File.ReadAllBytesAsync(kept));
        Assert.Empty(Directory.GetFiles(tree.PathOf("other"), ".dedup-tmp-*"));
    }

    [Fact]
    public async Task A_clone_on_ReFS_keeps_the_duplicates_times_and_holds_the_kept_files_bytes()
    {
        Wine.SkipUnderWine("ReFS (no volume has FILE_SUPPORTS_BLOCK_REFCOUNTING)");
        using var tree = new TempTree();
        Assert.SkipUnless((Win32.VolumeFlags(Path.GetPathRoot(tree.Root)!) & Win32.FileSupportsBlockRefcounting) != 0,
            "The temp folder is not on a ReFS volume (no FILE_SUPPORTS_BLOCK_REFCOUNTING); set TEMP to a folder on one.");
        var (kept, duplicate, plan) = await ActionTests.PlanAsync(tree, Linkers.Clone);
        var created = new DateTime(2001, 2, 3, 4, 5, 6, DateTimeKind.Utc);
        File.SetCreationTimeUtc(duplicate, created);
        var written = File.GetLastWriteTimeUtc(duplicate);
        var identity = Win32.FileIdentity(duplicate).Index;

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.True(outcome.Status == DuplicateActionStatus.Done, $"{outcome.Status}: {outcome.Reason}");
        Assert.Equal(ActionTests.Content, await File.ReadAllBytesAsync(duplicate));
        Assert.NotEqual(identity, Win32.FileIdentity(duplicate).Index); // a new file, not the kept one
        Assert.NotEqual(Win32.FileIdentity(kept).Index, Win32.FileIdentity(duplicate).Index);
        Assert.Equal(written, File.GetLastWriteTimeUtc(duplicate));
        Assert.Equal(created, File.GetCreationTimeUtc(duplicate));
        Assert.Empty(Directory.GetFiles(tree.PathOf("other"), ".dedup-tmp-*"));
    }

    private static void SkipOnReFS(TempTree tree) =>
        Assert.SkipWhen((Win32.VolumeFlags(Path.GetPathRoot(tree.Root)!) & Win32.FileSupportsBlockRefcounting) != 0,
            "The temp folder is on a volume with block cloning (ReFS): the refusal cannot be reached there.");

    /// <summary>A linker of one's own that clones: the plan cannot know what it will do, so nothing is predicted.</summary>
    private sealed class CloningLinker : Linker
    {
        public override string Description => "clone (custom)";

        public override void Apply(LinkerContext context) => context.ReplaceWithClone();
    }
}
