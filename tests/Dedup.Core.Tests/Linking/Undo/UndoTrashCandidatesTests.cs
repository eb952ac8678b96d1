using System.Globalization;
using Dedup.Core.Interop;
using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Linking.Trash;
using Dedup.Core.Linking.Undo;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.Undo;

/// <summary>
/// Undo takes a file back only from a trash this user's trash would use for it now (<see cref="TrashDirectory.Candidates"/>):
/// the home trash when it is on the file's device, else the mount's <c>.Trash/UID</c> or <c>.Trash-UID</c>.
/// </summary>
public sealed class UndoTrashCandidatesTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(9_000, 3801);

    private static string Uid => Libc.GetEuid().ToString(CultureInfo.InvariantCulture);

    [LinuxFact]
    public void The_home_trash_on_the_files_device_is_the_only_candidate()
    {
        using var tree = new TempTree();
        var file = tree.Write("data/b.bin", Content);
        var home = tree.PathOf("home/not-made-yet/Trash"); // not there yet: its nearest existing folder's device counts

        var candidates = TrashDirectory.Candidates(file, TestNative.Device(file), home);

        Assert.Equal([home], candidates);
    }

    [FactRequiringFolder("DEDUP_TEST_SMALLFS", "a second mounted file system, for a file away from the home trash")]
    public void A_file_on_another_device_than_the_home_trash_may_come_only_from_its_mounts_trashes()
    {
        using var tree = new TempTree(LinkTree.SmallMount);
        using var elsewhere = new TempTree();
        var file = tree.Write("data/b.bin", Content);
        var mount = LinkTree.SmallMount!.TrimEnd('/');

        var candidates = TrashDirectory.Candidates(file, TestNative.Device(file), elsewhere.PathOf("Trash"));

        Assert.Equal([Path.Combine(mount, ".Trash", Uid), Path.Combine(mount, ".Trash-" + Uid)], candidates);
    }

    [LinuxFact]
    public async Task A_journal_naming_another_trash_folder_takes_nothing_from_it()
    {
        using var tree = new LinkTree();
        using var logs = new TempTree();
        var home = UndoKindTests.PrepareTrash(tree);
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, new TrashLinker(home), journal, tree.PathOf("data"))).Done);
        // The same trash, reached by another name: a folder undo would not choose, whatever it holds.
        var other = tree.PathOf("other/Trash");
        Directory.CreateDirectory(tree.PathOf("other"));
        Directory.Move(home, other);
        var lines = UndoFixtures.Lines(journal);
        UndoFixtures.Begun(lines)["trash"]!["root"] = other;
        UndoFixtures.Write(journal, lines);

        var outcome = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);

        Assert.Equal(UndoOutcome.LeftAlone, outcome.Outcome);
        Assert.Equal($"{other} is not the trash this user's trash would use for it now (the home trash, or its mount's .Trash/{Uid} or .Trash-{Uid}); nothing is taken from it", outcome.Reason);
        Assert.False(File.Exists(b));
        Assert.Single(Directory.GetFiles(Path.Combine(other, "files")));
        Assert.Single(Directory.GetFiles(Path.Combine(other, "info")));
    }

    [FactRequiringFolder("DEDUP_TEST_SMALLFS", "a second mounted file system, whose own trash a file there goes to")]
    public async Task A_file_trashed_to_its_mounts_trash_comes_back_from_there_and_not_from_a_lookalike()
    {
        using var tree = new LinkTree(LinkTree.SmallMount);
        using var logs = new TempTree();
        using var home = new TempTree();
        var homeTrash = home.PathOf("Trash"); // on another device than the files: the mount's trash is used
        UndoEngine.HomeTrash.Value = homeTrash;
        tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var mount = LinkTree.SmallMount!.TrimEnd('/');
        var used = Path.Combine(mount, ".Trash-" + Uid);
        var journal = logs.PathOf("journal.jsonl");
        Assert.Equal(1, (await UndoFixtures.ActAsync(tree, new TrashLinker(homeTrash), journal, tree.PathOf("data"))).Done);
        var trashed = UndoFixtures.Begun(UndoFixtures.Lines(journal))["trash"]!;
        Assert.Equal(used, (string?)trashed["root"]);
        Assert.False(File.Exists(b));

        // A journal pointing into the mount's trash under another uid's name is refused.
        var lines = UndoFixtures.Lines(journal);
        var lookalike = Path.Combine(mount, ".Trash-" + Uid + "0");
        UndoFixtures.Begun(lines)["trash"]!["root"] = lookalike;
        UndoFixtures.Write(journal, lines);
        var refused = Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes);
        Assert.Equal(UndoOutcome.LeftAlone, refused.Outcome);
        Assert.StartsWith($"{lookalike} is not the trash", refused.Reason, StringComparison.Ordinal);

        UndoFixtures.Begun(lines)["trash"]!["root"] = used;
        UndoFixtures.Write(journal, lines);
        Assert.Equal(UndoOutcome.Restored, Assert.Single((await UndoFixtures.UndoAsync(journal)).Outcomes).Outcome);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
    }
}
