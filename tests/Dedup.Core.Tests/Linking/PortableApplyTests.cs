using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The Windows and macOS apply path (re-checks, byte verification, the delete, the hand-off to the system trash)
/// run here on Linux on real files: groups are made as the portable scan makes them (size and time from
/// <see cref="FileInfo"/>, no file identities) and a stand-in takes the place of the Recycle Bin or Trash.
/// The system trash calls themselves are in <see cref="SystemTrashTests"/>.
/// </summary>
public sealed class PortableApplyTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(50_000, 7);

    public static TheoryData<string> Kinds => new() { "delete", "trash" };

    [LinuxFact]
    public async Task Delete_removes_the_verified_duplicate_and_keeps_the_kept_file()
    {
        using var pair = new PlannedPair(Linkers.Delete);

        var outcome = Assert.Single(pair.Apply().Outcomes);

        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.False(File.Exists(pair.Duplicate));
        Assert.Equal(Content, await File.ReadAllBytesAsync(pair.Kept));
        Assert.Empty(pair.Trash.Moved);
    }

    [LinuxFact]
    public async Task Trash_hands_the_verified_duplicate_to_the_system_trash()
    {
        using var pair = new PlannedPair(Linkers.Trash);

        var report = pair.Apply();

        Assert.Equal(1, report.Done);
        Assert.Equal(Content.Length, report.ReclaimedBytes);
        var (from, to) = Assert.Single(pair.Trash.Moved);
        Assert.Equal(pair.Duplicate, from);
        Assert.False(File.Exists(pair.Duplicate));
        Assert.Equal(Content, await File.ReadAllBytesAsync(to));
        Assert.Equal(Content, await File.ReadAllBytesAsync(pair.Kept));
    }

    [LinuxTheory]
    [MemberData(nameof(Kinds))]
    public async Task Duplicate_modified_after_the_scan_is_skipped_and_untouched(string kind)
    {
        using var pair = new PlannedPair(LinkerOf(kind));
        await File.AppendAllTextAsync(pair.Duplicate, "changed");
        var before = pair.Tree.Snapshot();

        await AssertSkippedAsync(
            pair,
            reason => Assert.Equal($"duplicate changed size from {Content.Length} to {Content.Length + 7} bytes since the scan; left untouched", reason),
            before[pair.Duplicate]);
    }

    [LinuxTheory]
    [MemberData(nameof(Kinds))]
    public async Task Same_size_and_time_but_different_bytes_is_caught_by_the_byte_comparison(string kind)
    {
        using var pair = new PlannedPair(LinkerOf(kind));
        var time = File.GetLastWriteTimeUtc(pair.Duplicate);
        var changed = (byte[])Content.Clone();
        changed[40_000] ^= 0xFF;
        await File.WriteAllBytesAsync(pair.Duplicate, changed);
        File.SetLastWriteTimeUtc(pair.Duplicate, time);

        await AssertSkippedAsync(pair, reason => Assert.Contains("content differs from the kept file", reason, StringComparison.Ordinal), changed);
    }

    [LinuxTheory]
    [MemberData(nameof(Kinds))]
    public async Task Duplicate_deleted_or_replaced_by_a_folder_or_a_symbolic_link_is_skipped(string kind)
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var c = tree.Write("c.bin", Content);
        var d = tree.Write("d.bin", Content);
        var plan = Plan(LinkerOf(kind), a, b, c, d);
        File.Delete(b);
        File.Delete(c);
        tree.Write("c.bin/inside.bin", Content);
        File.Delete(d);
        var elsewhere = tree.Write("elsewhere.bin", Content);
        File.CreateSymbolicLink(d, elsewhere);
        var trash = new StandInTrash(tree);

        var report = Apply(plan, trash);

        Assert.All(report.Outcomes, o => Assert.Equal(DuplicateActionStatus.Skipped, o.Status));
        Assert.StartsWith("duplicate was deleted or renamed since the scan (No such file", report.Outcomes[0].Reason, StringComparison.Ordinal);
        Assert.Equal("duplicate was replaced by a folder since the scan; left untouched", report.Outcomes[1].Reason);
        Assert.Equal("duplicate is a symbolic link or another reparse point (such as a cloud placeholder), not a plain file; left untouched", report.Outcomes[2].Reason);
        Assert.Equal(Content, await File.ReadAllBytesAsync(Path.Combine(c, "inside.bin")));
        Assert.Equal(elsewhere, new FileInfo(d).LinkTarget);
        Assert.Equal(Content, await File.ReadAllBytesAsync(elsewhere));
        Assert.Empty(trash.Moved);
    }

    [LinuxTheory]
    [MemberData(nameof(Kinds))]
    public async Task Kept_file_modified_after_the_scan_stops_the_action(string kind)
    {
        using var pair = new PlannedPair(LinkerOf(kind));
        var time = File.GetLastWriteTimeUtc(pair.Kept);
        File.SetLastWriteTimeUtc(pair.Kept, time.AddSeconds(-5));

        await AssertSkippedAsync(pair, reason => Assert.Equal($"kept file {pair.Kept} was modified since the scan; nothing done", reason), Content);
    }

    [LinuxTheory]
    [MemberData(nameof(Kinds))]
    public async Task A_change_right_before_the_delete_or_move_is_caught_by_the_last_recheck(string kind)
    {
        using var pair = new PlannedPair(LinkerOf(kind));
        pair.Plan.Faults = Hook(kind, path => File.AppendAllText(path, "late"));

        await AssertSkippedAsync(
            pair,
            reason => Assert.Contains("duplicate changed size", reason, StringComparison.Ordinal),
            Content.Concat(System.Text.Encoding.ASCII.GetBytes("late")));
    }

    [LinuxTheory]
    [MemberData(nameof(Kinds))]
    public async Task A_change_to_the_kept_file_right_before_the_delete_or_move_is_caught_too(string kind)
    {
        using var pair = new PlannedPair(LinkerOf(kind));
        pair.Plan.Faults = Hook(kind, _ => File.AppendAllText(pair.Kept, "late"));

        var outcome = Assert.Single(pair.Apply().Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Contains("kept file", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(Content, await File.ReadAllBytesAsync(pair.Duplicate));
        Assert.Empty(pair.Trash.Moved);
    }

    [LinuxTheory]
    [MemberData(nameof(Kinds))]
    public async Task Duplicate_swapped_for_an_identical_copy_after_verification_is_skipped(string kind)
    {
        // Same bytes, size and time: only the identity taken at the first check tells the two files apart.
        using var pair = new PlannedPair(LinkerOf(kind));
        var time = File.GetLastWriteTimeUtc(pair.Duplicate);
        pair.Plan.Faults = Hook(kind, path =>
        {
            // Created before the old file goes, so the file system cannot hand it the old inode number.
            var copy = pair.Tree.Write("copy.tmp", Content);
            File.SetLastWriteTimeUtc(copy, time);
            File.Move(copy, path, overwrite: true);
        });

        await AssertSkippedAsync(pair, reason => Assert.Equal("duplicate was replaced by another file since the last check; left untouched", reason), Content);
    }

    [LinuxTheory]
    [MemberData(nameof(Kinds))]
    public async Task The_kept_file_reached_through_a_linked_folder_is_never_removed(string kind)
    {
        // The portable scan has no identities, so one file under two paths can be listed as its own duplicate;
        // the byte comparison would pass (it reads one file twice) and the only copy would go.
        using var tree = new LinkTree();
        var real = tree.Write("real/a.bin", Content);
        Directory.CreateSymbolicLink(tree.PathOf("link"), tree.PathOf("real"));
        var alias = tree.PathOf("link/a.bin");
        var trash = new StandInTrash(tree);

        await AssertSkippedAsync(
            Apply(Plan(LinkerOf(kind), real, alias), trash),
            trash,
            reason => Assert.StartsWith("the duplicate is the kept file itself under another path", reason, StringComparison.Ordinal),
            real,
            Content);
    }

    [LinuxFact]
    public async Task A_hard_link_of_the_kept_file_is_not_acted_on()
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.PathOf("b.bin");
        Assert.Equal(0, Libc.LinkAt(Libc.AT_FDCWD, a, Libc.AT_FDCWD, b, 0));
        var trash = new StandInTrash(tree);

        await AssertSkippedAsync(
            Apply(Plan(Linkers.Delete, a, b), trash),
            trash,
            reason => Assert.StartsWith("the duplicate is the kept file itself", reason, StringComparison.Ordinal),
            b,
            Content);
    }

    [LinuxFact]
    public async Task A_refusing_system_trash_fails_the_action_and_says_the_duplicate_is_unchanged()
    {
        using var pair = new PlannedPair(Linkers.Trash);

        var report = PlanExecutor.ApplyPortable(
            pair.Plan,
            path => throw PlanExecutor.TrashMoveFailed(path, "cannot move to the Recycle Bin: injected"),
            CancellationToken.None);

        var outcome = Assert.Single(report.Outcomes);
        Assert.Equal(DuplicateActionStatus.Failed, outcome.Status);
        Assert.Equal("cannot move to the Recycle Bin: injected; duplicate unchanged", outcome.Reason);
        Assert.Equal(0, report.ReclaimedBytes);
        Assert.Equal(Content, await File.ReadAllBytesAsync(pair.Duplicate));
    }

    [LinuxFact]
    public void Link_kinds_never_reach_the_portable_path()
    {
        (Linker Linker, string Reason)[] cases =
        [
            (Linkers.HardLink, "a hard link is implemented for Linux only; nothing done"),
            (Linkers.SymbolicLink(), "a symbolic link is implemented for Linux only; nothing done"),
            (Linkers.Clone, "a clone is implemented for Linux only; nothing done"),
            (Linkers.Dedupe, "dedupe is implemented for Linux only; nothing done"),
        ];
        foreach (var (linker, reason) in cases)
        {
            using var pair = new PlannedPair(linker);

            var outcome = Assert.Single(pair.Apply().Outcomes);

            Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
            Assert.Equal(reason, outcome.Reason);
            Assert.True(File.Exists(pair.Duplicate));
        }
    }

    [LinuxFact]
    public async Task A_delete_the_system_refuses_fails_the_action_with_the_systems_reason()
    {
        using var pair = new PlannedPair(Linkers.Delete);
        pair.Tree.MakeImmutable(pair.Duplicate); // a real EPERM, even for root

        var outcome = Assert.Single(pair.Apply().Outcomes);

        Assert.Equal(DuplicateActionStatus.Failed, outcome.Status);
        Assert.StartsWith("cannot delete: ", outcome.Reason, StringComparison.Ordinal);
        Assert.Equal(Content, await File.ReadAllBytesAsync(pair.Duplicate));
        Assert.Equal(Content, await File.ReadAllBytesAsync(pair.Kept));
    }

    private static Linker LinkerOf(string kind) => kind == "delete" ? Linkers.Delete : Linkers.Trash;

    private static LinkerFaults Hook(string kind, Action<string> atLastMoment) => kind == "delete"
        ? new LinkerFaults { BeforeDelete = atLastMoment }
        : new LinkerFaults { BeforeSystemTrashMove = atLastMoment };

    /// <summary>The files as the portable scan lists them (<c>ParallelFileEnumerator.Portable.cs</c>): one group, a made-up identity each.</summary>
    private static DuplicateActionPlan Plan(Linker linker, params string[] paths)
    {
        var files = paths
            .Select((path, i) =>
            {
                var info = new FileInfo(path);
                return new DuplicateFile(AbsolutePath.Parse(path), [], new FileIdentity(0, (ulong)(i + 1)), info.Length, 1, info.LastWriteTimeUtc);
            })
            .ToArray();
        return LinkTree.Plan([new DuplicateGroup(files[0].Length, files, verifiedByBytes: true).Rooted()], linker, KeepRule.Custom("first given", (x, y) => Array.IndexOf(paths, x.Path.ToString()).CompareTo(Array.IndexOf(paths, y.Path.ToString()))));
    }

    private static DuplicateActionReport Apply(DuplicateActionPlan plan, StandInTrash trash) =>
        PlanExecutor.ApplyPortable(plan, trash.Move, CancellationToken.None);

    /// <summary>Applies the pair's plan; its one action was skipped, the duplicate holds <paramref name="duplicateBytes"/>, and nothing went to the trash.</summary>
    private static Task AssertSkippedAsync(PlannedPair pair, Action<string?> reason, IEnumerable<byte> duplicateBytes) =>
        AssertSkippedAsync(pair.Apply(), pair.Trash, reason, pair.Duplicate, duplicateBytes);

    /// <summary>
    /// The report's one action was skipped, <paramref name="reason"/> accepts its reason, <paramref name="path"/> still
    /// holds <paramref name="bytes"/>, and nothing was handed to the trash.
    /// </summary>
    private static async Task AssertSkippedAsync(DuplicateActionReport report, StandInTrash trash, Action<string?> reason, string path, IEnumerable<byte> bytes)
    {
        var outcome = Assert.Single(report.Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        reason(outcome.Reason);
        Assert.Equal(bytes, await File.ReadAllBytesAsync(path));
        Assert.Empty(trash.Moved);
    }

    /// <summary>A tree with a.bin (the kept file) and b.bin (its duplicate), planned as the portable scan lists them, and a stand-in trash.</summary>
    private sealed class PlannedPair : IDisposable
    {
        public PlannedPair(Linker linker)
        {
            Kept = Tree.Write("a.bin", Content);
            Duplicate = Tree.Write("b.bin", Content);
            Plan = PortableApplyTests.Plan(linker, Kept, Duplicate);
            Trash = new StandInTrash(Tree);
        }

        public LinkTree Tree { get; } = new();

        public string Kept { get; }

        public string Duplicate { get; }

        public DuplicateActionPlan Plan { get; }

        public StandInTrash Trash { get; }

        public DuplicateActionReport Apply() => PortableApplyTests.Apply(Plan, Trash);

        public void Dispose() => Tree.Dispose();
    }

    /// <summary>Stands in for the Recycle Bin or Trash: moves the file into a folder of the tree and records it.</summary>
    private sealed class StandInTrash(LinkTree tree)
    {
        public List<(string From, string To)> Moved { get; } = [];

        public void Move(string path)
        {
            var folder = tree.PathOf("stand-in-trash");
            Directory.CreateDirectory(folder);
            var target = Path.Combine(folder, Guid.NewGuid().ToString("N"));
            File.Move(path, target);
            Moved.Add((path, target));
        }
    }
}
