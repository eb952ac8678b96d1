using System.Text;
using Dedup.Core.Interop;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Microsoft.Win32.SafeHandles;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The small parts of the executor on their own (issue #34, point 12): the owner-and-mode rule, the temporary names,
/// the byte comparison, the portable file status and the shared root handles. Each test pins down an answer a wrong
/// comparison or a dropped check would change.
/// </summary>
public sealed class ExecutionPartsTests
{
    private static readonly string Hex32 = new string('a', 16) + "0123456789abcdef";

    [Theory]
    [InlineData(DuplicateActionKind.HardLink, true)]
    [InlineData(DuplicateActionKind.SymbolicLink, true)]
    [InlineData(DuplicateActionKind.Clone, false)]
    [InlineData(DuplicateActionKind.Dedupe, false)]
    [InlineData(DuplicateActionKind.Delete, false)]
    [InlineData(DuplicateActionKind.Trash, false)]
    public void Only_links_are_held_to_the_same_owner_and_mode(DuplicateActionKind kind, bool applies) =>
        Assert.Equal(applies, LinkerCapabilities.Of(Linkers.BuiltIn.Single(l => l.Kind == kind)).SharesKeptMetadata);

    [Fact]
    public void Owner_group_and_permissions_must_all_agree_and_the_file_type_bits_do_not_count()
    {
        Assert.Null(OwnerAndMode.Difference(1000, 100, 0x81A4, 1000, 100, 0x81A4));
        Assert.Null(OwnerAndMode.Difference(1000, 100, 0x81A4, 1000, 100, 0xA1A4)); // 0100644 and 0120644: same permissions
        Assert.Equal(
            "owner, group or permissions differ (kept 1000:100 644, duplicate 1001:100 644); a link would give the duplicate's names the kept file's and share its future writes",
            OwnerAndMode.Difference(1000, 100, 0x81A4, 1001, 100, 0x81A4));
        Assert.Equal(
            "owner, group or permissions differ (kept 1000:100 644, duplicate 1000:101 644); a link would give the duplicate's names the kept file's and share its future writes",
            OwnerAndMode.Difference(1000, 100, 0x81A4, 1000, 101, 0x81A4));
        Assert.Equal(
            "owner, group or permissions differ (kept 1000:100 644, duplicate 1000:100 4644); a link would give the duplicate's names the kept file's and share its future writes",
            OwnerAndMode.Difference(1000, 100, 0x81A4, 1000, 100, 0x89A4)); // set-uid is a permission bit
    }

    [LinuxFact]
    public void Leftovers_are_the_files_and_links_with_a_temporary_name_each_listed_once_in_order()
    {
        using var tree = new TempTree();
        var file = tree.Write("a/.dedup-tmp-" + new string('2', 32), [1]);
        var link = tree.Symlink("nowhere", "a/.dedup-tmp-" + new string('1', 32));
        var other = tree.Write("b/.dedup-tmp-" + new string('3', 32), [1]);
        Directory.CreateDirectory(tree.PathOf("a/.dedup-tmp-" + new string('4', 32))); // a folder is never a leftover
        tree.Write("a/.dedup-tmp-" + new string('5', 31), [1]);                         // not the pattern
        tree.Write("a/.dedup-tmp-" + new string('6', 32) + "x", [1]);
        TempTree.Run("mkfifo", tree.PathOf("a/.dedup-tmp-" + new string('7', 32)));     // nor a FIFO

        var found = TemporaryFiles.FindLeftovers([tree.PathOf("b"), tree.PathOf("a"), tree.PathOf("missing"), tree.PathOf("a")]);

        Assert.Equal([link, file, other], found);
    }

    [LinuxFact]
    public void A_folder_whose_name_is_not_utf8_is_not_searched_for_leftovers_under_another_name()
    {
        using var tree = new TempTree();
        var root = Encoding.UTF8.GetBytes(tree.Root);
        ExactNames.CreateFolder([.. root, .. "/d"u8, 0xFF]);
        ExactNames.WriteFile([.. root, .. "/d"u8, 0xFF, .. "/"u8, .. Encoding.UTF8.GetBytes(".dedup-tmp-" + Hex32)], [1]);
        tree.Write("d\uFFFD/.dedup-tmp-" + Hex32, [1]); // where a lossy decoding of the name leads

        Assert.Empty(TemporaryFiles.FindLeftovers([KernelNames.GetString([.. root, .. "/d"u8, 0xFF])]));
    }

    [Fact]
    public void Equal_files_of_the_given_length_pass_the_byte_comparison()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes((1 << 20) + 5000, 71);
        using var a = File.OpenHandle(tree.Write("a", content));
        using var b = File.OpenHandle(tree.Write("b", content));

        ContentVerification.RequireEqual(a, b, content.Length);

        Assert.Equal("size changed while verifying; left untouched", Stopped(() => ContentVerification.RequireEqual(a, b, content.Length - 1)));
        Assert.Equal("size changed while verifying; left untouched", Stopped(() => ContentVerification.RequireEqual(a, b, content.Length + 1)));
    }

    [Fact]
    public void Empty_files_pass_only_for_length_zero()
    {
        using var tree = new TempTree();
        using var a = File.OpenHandle(tree.Write("a", []));
        using var b = File.OpenHandle(tree.Write("b", []));

        ContentVerification.RequireEqual(a, b, 0);

        Assert.Equal("size changed while verifying; left untouched", Stopped(() => ContentVerification.RequireEqual(a, b, 1)));
    }

    [Fact]
    public void A_difference_after_the_first_chunk_is_reported_at_its_offset()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes((1 << 20) + 300_000, 72);
        var changed = (byte[])content.Clone();
        changed[1_200_000] ^= 0x10;
        using var a = File.OpenHandle(tree.Write("a", content));
        using var b = File.OpenHandle(tree.Write("b", changed));

        Assert.Equal("content differs from the kept file at byte 1200000; left untouched", Stopped(() => ContentVerification.RequireEqual(a, b, content.Length)));
    }

    [Fact]
    public void A_file_that_ends_early_on_either_side_differs_where_it_ends()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(10_000, 73);
        using var whole = File.OpenHandle(tree.Write("whole", content));
        using var shortOne = File.OpenHandle(tree.Write("short", content[..7000]));

        Assert.Equal("content differs from the kept file at byte 7000; left untouched", Stopped(() => ContentVerification.RequireEqual(shortOne, whole, 7000)));
        Assert.Equal("content differs from the kept file at byte 7000; left untouched", Stopped(() => ContentVerification.RequireEqual(whole, shortOne, 7000)));
    }

    [LinuxFact]
    public void The_portable_status_gives_the_kind_and_identity_of_what_is_open()
    {
        using var tree = new TempTree();
        var file = tree.Write("f", [1, 2, 3]);
        var folder = tree.PathOf("d");
        Directory.CreateDirectory(folder);
        var fifo = tree.PathOf("p");
        TempTree.Run("mkfifo", fifo);

        using (var handle = PortableFile.TryOpen(file, out var error))
        {
            Assert.NotNull(handle);
            Assert.Equal(string.Empty, error);
            Assert.Equal(0, TestNative.FileStatusOf(file, out var status));
            Assert.Equal(new PortableFileStatus(PortableFileKind.RegularFile, new Dedup.Core.Enumeration.FileIdentity(status.Device, status.Ino)), PortableFile.StatusOf(handle));
        }

        using (var handle = PortableFile.TryOpen(folder, out _))
        {
            Assert.Equal(PortableFileKind.Directory, PortableFile.StatusOf(handle!).Kind);
        }

        using (var handle = PortableFile.TryOpen(fifo, out _))
        {
            Assert.Equal(PortableFileKind.Other, PortableFile.StatusOf(handle!).Kind); // opened without waiting for a writer
        }

        var fd = Libc.Open(tree.Symlink("f", "l"), Libc.O_PATH | Libc.O_NOFOLLOW | Libc.O_CLOEXEC, 0);
        Assert.True(fd >= 0);
        using (var handle = new SafeFileHandle(fd, ownsHandle: true))
        {
            Assert.Equal(PortableFileKind.Link, PortableFile.StatusOf(handle).Kind);
        }
    }

    [LinuxFact]
    public void The_portable_open_refuses_a_final_link_and_a_missing_name_with_the_system_message()
    {
        using var tree = new TempTree();
        var link = tree.Symlink(tree.Write("f", [1]), "l");

        Assert.Null(PortableFile.TryOpen(link, out var error));
        Assert.Equal("Too many levels of symbolic links", error);
        Assert.Null(PortableFile.TryOpen(tree.PathOf("missing"), out error));
        Assert.Equal("No such file or directory", error);
    }

    [LinuxFact]
    public void The_portable_status_of_a_closed_descriptor_is_an_error()
    {
        using var handle = new SafeFileHandle(1_000_000, ownsHandle: false);

        Assert.Equal("Bad file descriptor", Assert.Throws<IOException>(() => PortableFile.StatusOf(handle)).Message);
    }

    [LinuxFact]
    public void Why_a_name_could_not_be_opened_is_told_from_what_it_is_now()
    {
        using var tree = new TempTree();
        var folder = tree.PathOf("d");
        Directory.CreateDirectory(folder);
        var link = tree.Symlink(tree.Write("f", [1]), "l");

        Assert.Equal("is a symbolic link or another reparse point (such as a cloud placeholder), not a plain file", PortableContext.WhyNotOpened(link, "e"));
        Assert.Equal("was replaced by a folder since the scan", PortableContext.WhyNotOpened(folder, "e"));
        Assert.Equal("was deleted or renamed since the scan (e)", PortableContext.WhyNotOpened(tree.PathOf("missing"), "e"));
        Assert.Equal("was deleted or renamed since the scan (e)", PortableContext.WhyNotOpened(tree.PathOf("missing/f"), "e"));
        Assert.Equal("cannot be opened: e", PortableContext.WhyNotOpened(tree.PathOf("f"), "e"));
    }

    [LinuxFact]
    public async Task The_portable_checks_refuse_a_fifo_or_a_folder_in_the_duplicates_place()
    {
        using var tree = new LinkTree();
        var content = TempTree.RandomBytes(3000, 75);
        tree.Write("a.bin", content);
        var fifo = tree.Write("b.bin", content);
        var folder = tree.Write("c.bin", content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Delete);
        File.Delete(fifo);
        TempTree.Run("mkfifo", fifo);
        File.Delete(folder);
        Directory.CreateDirectory(folder);

        var report = PlanExecutor.ApplyPortable(plan, _ => throw new InvalidOperationException("no trash here"), CancellationToken.None);

        Assert.Equal(
            ["duplicate is no longer a regular file; left untouched", "duplicate was replaced by a folder since the scan; left untouched"],
            report.Outcomes.Select(o => o.Reason));
        Assert.All(report.Outcomes, o => Assert.Equal(DuplicateActionStatus.Skipped, o.Status));
        Assert.Empty(report.TemporaryFilesLeftAlone);
        Assert.Equal(0, report.TemporaryFilesRemoved);
    }

    [LinuxFact]
    public async Task Only_links_are_refused_for_another_mode_and_the_portable_run_is_logged()
    {
        using var tree = new LinkTree();
        var content = TempTree.RandomBytes(3000, 76);
        tree.Write("a.bin", content);
        var b = tree.Write("b.bin", content);
        File.SetUnixFileMode(b, UnixFileMode.UserRead);
        var other = TempTree.RandomBytes(3000, 77);
        tree.Write("c.bin", other);
        var d = tree.Write("d.bin", other);
        File.SetUnixFileMode(d, UnixFileMode.UserRead);
        var groups = await tree.ScanAsync();
        var linux = LinkTree.Plan(groups.Where(g => g.Files.Any(f => f.Path.Name == "d.bin")), Linkers.Delete);
        Assert.Equal(DuplicateActionStatus.Done, Assert.Single((await linux.ApplyAsync()).Outcomes).Status);
        Assert.False(File.Exists(d));
        groups = groups.Where(g => g.Files.Any(f => f.Path.Name == "b.bin")).ToList();
        var logger = new CollectingLogger();
        var portable = new DuplicateActionPlanBuilder().UseLinker(Linkers.Delete).UseLogger(logger).Build().Plan(groups);
        logger.Take();

        var report = PlanExecutor.ApplyPortable(portable, _ => throw new InvalidOperationException("no trash here"), CancellationToken.None);

        Assert.Equal(DuplicateActionStatus.Done, Assert.Single(report.Outcomes).Status); // a delete keeps no name of the duplicate
        Assert.Single(logger.Take(), e => e.Id.Id == 201);
        Assert.False(File.Exists(b));
    }

    [LinuxFact]
    public void A_root_is_opened_once_per_run_a_failed_one_keeps_its_reason_and_disposing_closes_them()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("r"));
        var root = ScanRoot.Capture(Dedup.Core.Paths.AbsolutePath.Parse(tree.PathOf("r")));
        var missing = ScanRoot.Capture(Dedup.Core.Paths.AbsolutePath.Parse(tree.PathOf("missing")));
        var moved = root with { Identity = new Dedup.Core.Enumeration.FileIdentity(root.Identity.Device, root.Identity.FileId + 1) };
        var roots = new RootHandles();

        var first = roots.Get(root, out var problem);
        Assert.NotNull(first);
        Assert.Equal(string.Empty, problem);
        Assert.Same(first, roots.Get(root, out _));
        Assert.Null(roots.Get(missing, out problem));
        Assert.Equal($"scanned root {tree.PathOf("missing")}: No such file or directory", problem);
        Directory.CreateDirectory(tree.PathOf("missing"));
        Assert.Null(roots.Get(missing, out problem)); // failed for the run, even once it exists
        Assert.Equal($"scanned root {tree.PathOf("missing")}: No such file or directory", problem);

        Assert.NotNull(roots.Get(new ScanRoot(root.Path, default), out _)); // a root without identity (not from a Linux scan) is not compared
        Assert.Null(roots.Get(moved, out problem));
        Assert.Equal($"scanned root {tree.PathOf("r")} is no longer the folder that was scanned (another device or inode)", problem);

        roots.Dispose();

        Assert.Throws<ObjectDisposedException>(() => first.Fd);
        Assert.NotSame(first, roots.Get(root, out _));
        roots.Dispose();
    }

    [LinuxFact]
    public async Task The_tally_counts_each_status_and_the_bytes_of_a_duplicate_only_when_all_its_names_were_done()
    {
        using var tree = new LinkTree();
        var content = TempTree.RandomBytes(3000, 74);
        tree.Write("a.bin", content);
        tree.Write("b.bin", content);
        TempTree.Run("ln", tree.PathOf("b.bin"), tree.PathOf("b2.bin"));
        tree.Write("c.bin", content);
        tree.Write("d.bin", content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink);
        Assert.Equal(["b.bin", "b2.bin", "c.bin", "d.bin"], plan.Actions.Select(a => a.Path.Name));
        var tally = new ProgressTally(4);

        var first = tally.Add(new DuplicateActionOutcome(plan.Actions[0], DuplicateActionStatus.Failed, "x"));
        var second = tally.Add(new DuplicateActionOutcome(plan.Actions[1], DuplicateActionStatus.Done, null));
        var third = tally.Add(new DuplicateActionOutcome(plan.Actions[2], DuplicateActionStatus.Skipped, "y"));
        var outcome = new DuplicateActionOutcome(plan.Actions[3], DuplicateActionStatus.Done, null);
        var last = tally.Add(outcome);

        Assert.Equal((4, 0, 0, 1, 0L), (first.Total, first.Done, first.Skipped, first.Failed, first.ReclaimedBytes));
        Assert.Equal((1, 0, 1, 0L), (second.Done, second.Skipped, second.Failed, second.ReclaimedBytes)); // b's other name was not done
        Assert.Equal((1, 1, 1), (third.Done, third.Skipped, third.Failed));
        Assert.Equal((4, 2, 1, 1, 3000L), (last.Total, last.Done, last.Skipped, last.Failed, last.ReclaimedBytes));
        Assert.Equal(plan.Actions[3].Path, last.LastPath);
        Assert.Same(outcome, last.LastOutcome);
    }

    private static string Stopped(Action act) => Assert.Throws<ActionStoppedException>(act).Message;
}
