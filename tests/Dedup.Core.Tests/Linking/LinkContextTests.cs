using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The re-checks of one action (<see cref="LinkContext"/>, issue #34 point 12), each with its own reason: what changed
/// since the scan, a change time that moved since the action's first check, a folder that cannot be reached, a rename
/// that fails. A linker of the caller's that changes a file before calling an operation reaches the checks the
/// operations make after the executor's.
/// </summary>
public sealed class LinkContextTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(12_000, 101);

    [LinuxFact]
    public void Each_kind_of_change_since_the_scan_is_described()
    {
        using var tree = new TempTree();
        var path = tree.Write("f", Content);
        var scanned = Scanned(path);

        Assert.Null(LinkContext.Describe(Status(path), scanned));
        Assert.Equal("was replaced by another file", LinkContext.Describe(Status(path), scanned with { Identity = scanned.Identity with { Device = scanned.Identity.Device + 1 } }));
        File.SetLastWriteTimeUtc(path, scanned.LastWriteTimeUtc.AddSeconds(5));
        Assert.Equal("was modified", LinkContext.Describe(Status(path), scanned));
        File.AppendAllText(path, "x");
        Assert.Equal("changed size from 12000 to 12001 bytes", LinkContext.Describe(Status(path), scanned));
        var other = tree.Write("g", Content);
        Assert.Equal("was replaced by another file", LinkContext.Describe(Status(other), scanned));
        Assert.Equal("was replaced by a folder", LinkContext.Describe(Status(tree.Root), scanned));
        Assert.Equal("was replaced by a symbolic link", LinkContext.Describe(Status(tree.Symlink("f", "l")), scanned));
        TempTree.Run("mkfifo", tree.PathOf("p"));
        Assert.Equal("is no longer a regular file", LinkContext.Describe(Status(tree.PathOf("p")), scanned));
    }

    [LinuxFact]
    public async Task The_duplicate_opened_by_an_operation_is_checked_again()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var c = tree.Write("c.bin", Content);
        var d = tree.Write("d.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), new DelegateLinker(context =>
        {
            var path = context.Action.Path.ToString();
            if (path == b)
            {
                File.Delete(b);
            }
            else if (path == c)
            {
                File.SetUnixFileMode(c, UnixFileMode.UserRead | UnixFileMode.UserWrite);
            }
            else
            {
                tree.Write("d.new", Content);
                TempTree.Run("touch", "-r", d, tree.PathOf("d.new"));
                File.Move(tree.PathOf("d.new"), d, overwrite: true);
            }

            context.DedupeWithKept();
        }));

        var outcomes = (await plan.ApplyAsync()).Outcomes;

        Assert.All(outcomes, o => Assert.Equal(DuplicateActionStatus.Skipped, o.Status));
        Assert.Equal("cannot open the duplicate: No such file or directory; left untouched", outcomes[0].Reason);
        Assert.Equal(
            "duplicate changed since this action's first check (same size and modification time, but its change time moved: written, linked, renamed or its permissions changed); left untouched",
            outcomes[1].Reason);
        Assert.Equal("duplicate was replaced by another file since the scan; left untouched", outcomes[2].Reason);
    }

    [LinuxFact]
    public async Task The_kept_file_checked_again_before_acting_names_what_changed()
    {
        using var tree = new LinkTree();
        for (var i = 1; i <= 3; i++)
        {
            var content = TempTree.RandomBytes(12_000, 110 + i);
            tree.Write($"a{i}.bin", content);
            tree.Write($"b{i}.bin", content);
        }

        var plan = LinkTree.Plan(await tree.ScanAsync(), new DelegateLinker(context =>
        {
            var kept = context.Action.Kept.Path.ToString();
            switch (context.Action.Kept.Path.Name)
            {
                case "a1.bin":
                    File.SetUnixFileMode(kept, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead);
                    break;
                case "a2.bin":
                    File.AppendAllText(kept, "x");
                    break;
                default:
                    File.Delete(kept);
                    break;
            }

            context.Delete();
        }));

        var outcomes = (await plan.ApplyAsync()).Outcomes.OrderBy(o => o.Action.Path.Name, StringComparer.Ordinal).ToArray();

        Assert.All(outcomes, o => Assert.Equal(DuplicateActionStatus.Skipped, o.Status));
        Assert.Equal(
            $"kept file {tree.PathOf("a1.bin")} changed since this action's first check (same size and modification time, but its change time moved: written, linked, renamed or its permissions changed); nothing done",
            outcomes[0].Reason);
        Assert.Equal($"kept file {tree.PathOf("a2.bin")} changed size from 12000 to 12001 bytes since the scan; nothing done", outcomes[1].Reason);
        Assert.Equal($"kept file {tree.PathOf("a3.bin")}: No such file or directory; nothing done", outcomes[2].Reason);
        Assert.True(File.Exists(tree.PathOf("b3.bin")));
    }

    [LinuxFact]
    public async Task A_folder_gone_since_the_scan_names_whose_folder_it_is()
    {
        using var tree = new LinkTree();
        tree.Write("same/a.bin", Content);
        tree.Write("same/b.bin", Content);
        tree.Write("keep/k.bin", TempTree.RandomBytes(5000, 102));
        tree.Write("zdup/k.bin", TempTree.RandomBytes(5000, 102));
        tree.Write("gone/g.bin", TempTree.RandomBytes(6000, 103));
        tree.Write("here/g.bin", TempTree.RandomBytes(6000, 103));
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Delete); // path order keeps same/a.bin, keep/k.bin and gone/g.bin
        Directory.Move(tree.PathOf("same"), tree.PathOf("same.moved"));
        Directory.Move(tree.PathOf("zdup"), tree.PathOf("zdup.moved"));
        Directory.Move(tree.PathOf("gone"), tree.PathOf("gone.moved"));

        var outcomes = (await plan.ApplyAsync()).Outcomes;

        string ReasonFor(string folder) => outcomes.Single(o => o.Action.Path.Parent!.ToString() == tree.PathOf(folder)).Reason!;
        Assert.All(outcomes, o => Assert.Equal(DuplicateActionStatus.Skipped, o.Status));
        Assert.Equal($"kept file's folder {tree.PathOf("same")}: {tree.PathOf("same")}: No such file or directory; nothing done", ReasonFor("same"));
        Assert.Equal($"duplicate's folder {tree.PathOf("zdup")}: {tree.PathOf("zdup")}: No such file or directory; left untouched", ReasonFor("zdup"));
        Assert.Equal($"kept file's folder {tree.PathOf("gone")}: {tree.PathOf("gone")}: No such file or directory; nothing done", ReasonFor("here"));
    }

    [LinuxFact]
    public async Task A_rename_over_the_duplicate_that_fails_leaves_it_and_no_temporary_name()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.HardLink);
        plan.Faults = new LinkerFaults
        {
            AfterLastCheck = path =>
            {
                File.Move(path, path + ".moved");
                tree.Write("b.bin/inside", [1]); // a folder that is not empty: rename(2) cannot replace it
            },
        };

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Failed, outcome.Status);
        Assert.Equal("cannot rename the replacement over the duplicate: Is a directory; duplicate unchanged", outcome.Reason);
        Assert.Equal(Content, File.ReadAllBytes(b + ".moved"));
        Assert.Equal(1u, TestNative.LinkCount(tree.PathOf("a.bin")));
        tree.AssertNoTemporaryFiles();
    }

    private static Dedup.Core.Interop.StatxBuffer Status(string path)
    {
        Assert.Equal(0, TestNative.FileStatusOf(path, out var status));
        return status;
    }

    private static DuplicateFile Scanned(string path)
    {
        var status = Status(path);
        return new DuplicateFile(AbsolutePath.Parse(path), [], new Dedup.Core.Enumeration.FileIdentity(status.Device, status.Ino), (long)status.Size, 1, status.LastWriteTimeUtc);
    }

    private sealed class DelegateLinker(Action<LinkerContext> apply) : Linker
    {
        public override string Description => "custom";

        public override void Apply(LinkerContext context) => apply(context);
    }
}
