using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// <see cref="LinkContext"/> called step by step (issue #34, point 12): each folder and the kept file opened once, the
/// role and consequence each refusal names, the kept file checked right before it is linked, the caller's check run
/// before the rename, and no descriptor left open by a refused open.
/// </summary>
public sealed class LinkContextDetailTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(9_000, 211);

    [LinuxFact]
    public async Task Files_of_one_folder_share_its_descriptor_opened_once_and_closed_on_dispose()
    {
        using var tree = new LinkTree();
        var action = await PairAsync(tree);
        var context = new LinkContext(action, null);

        var kept = context.KeptFolderFd;

        Assert.Equal(kept, context.FolderFd);
        Assert.Equal(kept, context.KeptFolderFd);
        Assert.Single(OpenDescriptors.Under(tree.Root, includeRoot: true));
        context.Dispose();
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public async Task The_kept_file_is_opened_once_and_a_replaced_one_is_refused_as_the_kept_file()
    {
        using var tree = new LinkTree();
        var action = await PairAsync(tree);
        using (var context = new LinkContext(action, null))
        {
            Assert.Same(context.OpenKept(), context.OpenKept());
        }

        ReplaceKeepingTimes(tree, action.Kept.Path.ToString());
        using var replaced = new LinkContext(action, null);

        var refused = Assert.Throws<ActionStoppedException>(() => replaced.OpenKept());

        Assert.Equal("kept file was replaced by another file since the scan; nothing done", refused.Message);
    }

    [LinuxFact]
    public async Task Verifying_names_the_duplicate_that_was_replaced_and_the_kept_file_that_is_missing()
    {
        using var tree = new LinkTree();
        var action = await PairAsync(tree);
        ReplaceKeepingTimes(tree, action.Path.ToString());
        using (var context = new LinkContext(action, null))
        {
            var refused = Assert.Throws<ActionStoppedException>(context.VerifyContent);
            Assert.Equal("duplicate was replaced by another file since the scan; nothing done", refused.Message);
        }

        File.Delete(action.Kept.Path.ToString());
        using var missing = new LinkContext(action, null);

        var gone = Assert.Throws<ActionStoppedException>(missing.VerifyContent);

        Assert.Equal($"cannot open the kept file {action.Kept.Path}: No such file or directory; nothing done", gone.Message);
    }

    [LinuxFact]
    public async Task The_kept_file_is_checked_right_before_it_is_linked()
    {
        using var tree = new LinkTree();
        var action = await PairAsync(tree);
        ReplaceKeepingTimes(tree, action.Kept.Path.ToString());
        var replacement = TestNative.Inode(action.Kept.Path.ToString());
        using var context = new LinkContext(action, null);
        var temporary = TemporaryNames.NewName();

        var refused = Assert.Throws<ActionStoppedException>(() => context.LinkKeptAs(temporary));

        Assert.Equal($"kept file {action.Kept.Path} was replaced by another file since the scan; nothing done", refused.Message);
        Assert.False(File.Exists(Path.Join(context.Folder, temporary)));
        Assert.Equal(1u, TestNative.LinkCount(action.Kept.Path.ToString()));
        Assert.Equal(replacement, TestNative.Inode(action.Kept.Path.ToString()));
    }

    [LinuxFact]
    public async Task The_callers_check_runs_before_the_rename_and_its_refusal_leaves_the_duplicate()
    {
        using var tree = new LinkTree();
        var action = await PairAsync(tree);
        var duplicate = TestNative.Inode(action.Path.ToString());
        using var context = new LinkContext(action, null);
        context.CheckKeptUnchanged();
        context.CheckDuplicateUnchanged();
        string? checkedName = null;

        var refused = Assert.Throws<ActionStoppedException>(() => context.ReplaceViaTemporary(
            temporary => Libc.LinkAt(context.KeptFolderFd, context.KeptName, context.FolderFd, temporary, 0) == 0 ? 0 : Libc.LastErrno,
            errno => ActionStoppedException.Fail($"errno {errno}"),
            temporary =>
            {
                checkedName = temporary;
                throw ActionStoppedException.Skip("refused by the check");
            }));

        Assert.Equal("refused by the check", refused.Message);
        Assert.True(TemporaryNames.IsTemporaryName(checkedName!));
        Assert.Equal(duplicate, TestNative.Inode(action.Path.ToString()));
        Assert.Equal(1u, TestNative.LinkCount(action.Kept.Path.ToString()));
        tree.AssertNoTemporaryFiles();
    }

    [LinuxFact]
    public async Task A_replacement_that_fails_before_the_folder_was_opened_is_refused_with_its_errno()
    {
        using var tree = new LinkTree();
        var action = await PairAsync(tree);
        using var context = new LinkContext(action, null);

        var refused = Assert.Throws<ActionStoppedException>(() => context.ReplaceViaTemporary(_ => 5, errno => ActionStoppedException.Fail($"errno {errno}")));

        Assert.Equal("errno 5", refused.Message);
        Assert.Equal(Content, File.ReadAllBytes(action.Path.ToString()));
    }

    [LinuxFact]
    public async Task A_refused_open_closes_the_file_it_opened()
    {
        using var tree = new LinkTree();
        var action = await PairAsync(tree);
        var path = action.Path.ToString();
        using var context = new LinkContext(action, null);
        context.OpenDuplicate().Dispose();
        File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite); // the change time moves

        var moved = Assert.Throws<ActionStoppedException>(() => context.OpenDuplicate());

        Assert.StartsWith("duplicate changed since this action's first check", moved.Message, StringComparison.Ordinal);
        Assert.DoesNotContain(path, OpenDescriptors.Under(tree.Root, includeRoot: false));

        ReplaceKeepingTimes(tree, path);
        var replaced = Assert.Throws<ActionStoppedException>(() => context.OpenDuplicate());

        Assert.Equal("duplicate was replaced by another file since the scan; left untouched", replaced.Message);
        Assert.DoesNotContain(path, OpenDescriptors.Under(tree.Root, includeRoot: false));
    }

    [Fact]
    public void A_root_can_be_neither_replaced_nor_kept()
    {
        var root = new DuplicateFile(AbsolutePath.Parse("/"), [], default, 1, 1, DateTime.UnixEpoch);
        var file = new DuplicateFile(AbsolutePath.Parse("/tmp/x"), [], default, 1, 1, DateTime.UnixEpoch);
        var group = new DuplicateGroup(1, [root, file], verifiedByBytes: true);

        var duplicate = Assert.Throws<ActionStoppedException>(() => new LinkContext(new DuplicateAction(DuplicateActionKind.Delete, group, file, root, root.Path, 1, null), null));
        var kept = Assert.Throws<ActionStoppedException>(() => new LinkContext(new DuplicateAction(DuplicateActionKind.Delete, group, root, file, file.Path, 1, null), null));

        Assert.Equal("a root cannot be replaced", duplicate.Message);
        Assert.Equal("a root cannot be kept", kept.Message);
    }

    /// <summary>a.bin and b.bin, equal, in the tree's folder: the planned hard link action.</summary>
    private static async Task<DuplicateAction> PairAsync(LinkTree tree)
    {
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        return Assert.Single(LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink).Actions);
    }

    /// <summary>Another file with the same bytes and modification time renamed over <paramref name="path"/>.</summary>
    private static void ReplaceKeepingTimes(LinkTree tree, string path)
    {
        var other = tree.Write("replacement.new", Content);
        TempTree.Run("touch", "-r", path, other);
        File.Move(other, path, overwrite: true);
    }
}
