using System.Text;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;

namespace Dedup.Cli.Tests.Undo;

/// <summary>
/// Issue #38 point 7: each action kind, then <c>dedup undo LOG --yes</c>, on a real ext4 (the temp folder's) and on the
/// btrfs test mount: the tree is as before (<see cref="TreeManifest"/>), the journal's special names (not UTF-8, 255
/// bytes, a file with a second name outside the root) were among those acted on, and a second undo changes nothing
/// (not even an inode). Also whole folders (<c>--folders</c>) and a permanent delete, which undo lists as irreversible.
/// </summary>
public sealed class UndoMatrixTests
{
    [LinuxFact(RequiresRoot = true)]
    public Task Hard_links_on_ext4_are_undone_exactly_and_a_second_undo_changes_nothing() => RoundTripAsync(null, UndoKind.Hard);

    [LinuxFact(RequiresRoot = true)]
    public Task Symbolic_links_on_ext4_are_undone_exactly_and_a_second_undo_changes_nothing() => RoundTripAsync(null, UndoKind.Symbolic);

    [LinuxFact(RequiresRoot = true)]
    public Task Trash_on_ext4_is_undone_exactly_and_a_second_undo_changes_nothing() => RoundTripAsync(null, UndoKind.Trash);

    [LinuxFact(RequiresRoot = true)]
    public Task Folder_hard_links_on_ext4_are_undone_exactly() => RoundTripAsync(null, UndoKind.Hard, "--folders");

    [LinuxFact(RequiresRoot = true)]
    public Task Folders_trashed_on_ext4_are_recreated_with_their_modes_owners_and_attributes() => RoundTripAsync(null, UndoKind.Trash, "--folders");

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "btrfs", RequiresRoot = true)]
    public Task Hard_links_on_btrfs_are_undone_exactly_and_a_second_undo_changes_nothing() => RoundTripAsync(LinkTree.BtrfsMount, UndoKind.Hard);

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "btrfs", RequiresRoot = true)]
    public Task Symbolic_links_on_btrfs_are_undone_exactly_and_a_second_undo_changes_nothing() => RoundTripAsync(LinkTree.BtrfsMount, UndoKind.Symbolic);

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "reflink clones", RequiresRoot = true)]
    public Task Clones_on_btrfs_are_undone_into_independent_files_and_a_second_undo_changes_nothing() => RoundTripAsync(LinkTree.BtrfsMount, UndoKind.Clone);

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "kernel dedupe", RequiresRoot = true)]
    public Task Dedupe_on_btrfs_is_undone_into_independent_files_and_a_second_undo_changes_nothing() => RoundTripAsync(LinkTree.BtrfsMount, UndoKind.Dedupe);

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "btrfs", RequiresRoot = true)]
    public Task Trash_on_btrfs_is_undone_exactly_and_a_second_undo_changes_nothing() => RoundTripAsync(LinkTree.BtrfsMount, UndoKind.Trash);

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "reflink clones", RequiresRoot = true)]
    public Task Folder_clones_on_btrfs_are_undone_exactly() => RoundTripAsync(LinkTree.BtrfsMount, UndoKind.Clone, "--folders");

    [LinuxFact(RequiresRoot = true)]
    public async Task The_dry_run_of_undoing_trashed_folders_promises_what_the_undo_then_does()
    {
        using var world = UndoWorld.Create(null, seed: 73, WorldShape.Small);
        var (exit, stdout, stderr) = await CliProcess.RunAsync(UndoKind.Trash.ActionArguments(world, "--folders"), environment: world.Environment);
        Assert.True(exit is 0 or 1, stdout + stderr);

        var dryRun = await CliProcess.RunAsync(["undo", world.Journal, "--dry-run"], environment: world.Environment);
        var undo = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);

        // The files inside a removed folder cannot be looked at before the folder is back, yet the undo restores them.
        var restored = System.Text.RegularExpressions.Regex.Match(undo.Stdout, @"(\d+) restored,").Groups[1].Value;
        Assert.True(undo.ExitCode == 0 && restored.Length > 0, undo.Stdout + undo.Stderr);
        Assert.True(dryRun.Stdout.Contains($": {restored} to restore", StringComparison.Ordinal) && !dryRun.Stdout.Contains("left alone", StringComparison.Ordinal), $"the undo restored {restored}, but its dry run said:{Environment.NewLine}{dryRun.Stdout}");
    }

    [LinuxFact(RequiresRoot = true)]
    public async Task A_permanent_delete_is_listed_as_irreversible_and_undo_changes_nothing()
    {
        using var world = UndoWorld.Create(null, seed: 71, WorldShape.Small);
        var (exit, stdout, stderr) = await CliProcess.RunAsync(UndoKind.Delete.ActionArguments(world), environment: world.Environment);
        Assert.True(exit is 0 or 1, stdout + stderr);
        var deleted = world.Manifest();
        var begun = JournalLines.BegunNames(world);
        Assert.NotEmpty(begun);

        var undo = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);

        Assert.Equal(string.Empty, world.Manifest().DiffFrom(deleted));
        var said = undo.Stdout + undo.Stderr;
        Assert.True(said.Contains("irreversible", StringComparison.OrdinalIgnoreCase) || said.Contains("deleted permanently", StringComparison.Ordinal), said);
        Assert.DoesNotContain("Unhandled", said, StringComparison.Ordinal);
    }

    /// <summary>
    /// The action, then undo, then undo again: the tree is as before; the special names were acted on; the second undo
    /// changed nothing, not even an inode number.
    /// </summary>
    internal static async Task RoundTripAsync(string? baseFolder, UndoKind kind, params string[] extra)
    {
        using var world = UndoWorld.Create(baseFolder, seed: 38 + kind.Name.Length + extra.Length, WorldShape.Small);
        var before = world.Manifest();
        var (exit, stdout, stderr) = await CliProcess.RunAsync(kind.ActionArguments(world, extra), environment: world.Environment);
        Assert.True(exit is 0 or 1 && !stderr.Contains("Unhandled", StringComparison.Ordinal), $"{kind} run: exit {exit}: {stdout}{stderr}");
        AssertSpecialNamesActedOn(world, kind, extra.Contains("--folders"));

        var failures = new StringBuilder();
        var first = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);
        UndoCrashTests.Judge(world, before, $"{kind} {string.Join(' ', extra)}, first undo", [first], failures);
        Assert.True(failures.Length == 0, failures.ToString());

        var inodes = Inodes(world.Base);
        var second = await CliProcess.RunAsync(["undo", world.Journal, "--yes"], environment: world.Environment);
        UndoCrashTests.Judge(world, before, $"{kind} {string.Join(' ', extra)}, second undo", [first, second], failures);
        Assert.True(failures.Length == 0, failures.ToString());
        Assert.Equal(inodes, Inodes(world.Base));
    }

    /// <summary>The journal has begun lines for the name that is not UTF-8 (or its copy), the 255-byte name (or its copy) and the file with a second name outside.</summary>
    private static void AssertSpecialNamesActedOn(UndoWorld world, UndoKind kind, bool folders)
    {
        var begun = JournalLines.BegunNames(world);
        var shown = string.Join(Environment.NewLine, begun);
        Assert.True(begun.Count >= 8, $"{kind}: only {begun.Count} begun lines:{Environment.NewLine}{shown}");
        Assert.Contains(begun, n => n.EndsWith(@"/a\xFF.bin", StringComparison.Ordinal) || n.EndsWith(@"/b\xC3.bin", StringComparison.Ordinal));
        Assert.Contains(begun, n => n.EndsWith(new string('L', 251) + ".bin", StringComparison.Ordinal) || n.EndsWith("/long-copy.bin", StringComparison.Ordinal));
        Assert.Contains(begun, n => n.EndsWith("/h-inside.bin", StringComparison.Ordinal) || n.EndsWith("/h-copy.bin", StringComparison.Ordinal));
        if (folders)
        {
            Assert.Contains(begun, n => n.Contains("albums/b-copy/", StringComparison.Ordinal));
        }
    }

    /// <summary>Every name's inode number, for "changed nothing at all".</summary>
    internal static SortedDictionary<string, ulong> Inodes(string folder)
    {
        var result = new SortedDictionary<string, ulong>(StringComparer.Ordinal);
        void Walk(byte[] path, string shown)
        {
            foreach (var name in RawFs.List(path))
            {
                var child = RawFs.Join(path, name);
                var status = RawFs.Status(child)!.Value;
                result[shown + "/" + RawFs.Show(name)] = status.Inode;
                if (status.IsFolder)
                {
                    Walk(child, shown + "/" + RawFs.Show(name));
                }
            }
        }

        Walk(RawFs.Bytes(folder), string.Empty);
        return result;
    }
}
