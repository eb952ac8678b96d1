using Dedup.Core.Linking;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The details of reaching files from their root (FolderHandle.TryOpenBeneath) and of the leftover clean-up that the
/// scenario tests do not pin down: exact messages, descriptors closed on every path, leftovers of another size or
/// pointing elsewhere left alone.
/// </summary>
public sealed class ActionScopeDetailTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(30_000, 61);

    [LinuxFact]
    public async Task The_message_names_the_link_below_the_root_and_a_missing_folder_says_so()
    {
        using var tree = new LinkTree();
        tree.Write("root/keep/k.bin", Content);
        tree.Write("root/x/y/sub/d.bin", Content);
        tree.Write("root/gone/d.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("root")), Linkers.Delete, KeepRule.PreferUnder(tree.PathOf("root/keep")));
        Directory.Move(tree.PathOf("root/x/y"), tree.PathOf("root/x/y.real"));
        Directory.CreateDirectory(tree.PathOf("elsewhere/sub"));
        File.CreateSymbolicLink(tree.PathOf("root/x/y"), tree.PathOf("elsewhere"));
        Directory.Move(tree.PathOf("root/gone"), tree.PathOf("root/gone.moved"));

        var outcomes = (await plan.ApplyAsync()).Outcomes;

        var linked = Assert.Single(outcomes, o => o.Action.Path.Name == "d.bin" && o.Action.Path.ToString().Contains("/x/y/", StringComparison.Ordinal));
        Assert.Equal(DuplicateActionStatus.Skipped, linked.Status);
        Assert.Contains($"{tree.PathOf("root/x/y")}: is a symbolic link (actions never follow links below a scanned root)", linked.Reason, StringComparison.Ordinal);
        var gone = Assert.Single(outcomes, o => o.Action.Path.ToString().Contains("/gone/", StringComparison.Ordinal));
        Assert.Equal(DuplicateActionStatus.Skipped, gone.Status);
        Assert.Contains($"{tree.PathOf("root/gone")}: No such file or directory", gone.Reason, StringComparison.Ordinal);
        Assert.True(File.Exists(tree.PathOf("root/x/y.real/sub/d.bin")));
    }

    [LinuxFact]
    public void A_group_without_roots_is_refused_in_the_plan_and_never_acted_on()
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var files = new[] { a, b }.Select(path =>
        {
            Assert.Equal(0, TestNative.FileStatusOf(path, out var s));
            return new DuplicateFile(Dedup.Core.Paths.AbsolutePath.Parse(path), [], new Enumeration.FileIdentity(s.Device, s.Ino), Content.Length, 1, s.LastWriteTimeUtc);
        }).ToArray();
        var group = new DuplicateGroup(Content.Length, files, verifiedByBytes: true); // no Roots: not from a scan or a report

        var plan = LinkTree.Plan([group], Linkers.Delete);
        var outcome = Assert.Single(plan.ApplyAsync().AsTask().GetAwaiter().GetResult().Outcomes);

        Assert.StartsWith("no scanned root is known for the group", Assert.Single(plan.Actions).Refusal, StringComparison.Ordinal); // said by the dry run
        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal(plan.Actions[0].Refusal, outcome.Reason);
        Assert.True(File.Exists(b));
    }

    [LinuxFact]
    public async Task Every_folder_and_file_descriptor_is_closed_after_actions_done_and_refused()
    {
        using var tree = new LinkTree();
        tree.Write("root/keep/k.bin", Content);
        for (var i = 0; i < 5; i++)
        {
            tree.Write($"root/d{i}/x.bin", Content);
        }

        tree.Write("root/d2/.dedup-tmp-" + new string('7', 32), [1, 2, 3]); // a leftover left alone
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("root")), Linkers.HardLink, KeepRule.PreferUnder(tree.PathOf("root/keep")));
        Directory.Move(tree.PathOf("root/d0"), tree.PathOf("root/d0.real"));
        File.CreateSymbolicLink(tree.PathOf("root/d0"), tree.PathOf("root/d0.real")); // refused below the root
        Directory.Delete(tree.PathOf("root/d1"), recursive: true);                     // refused: missing

        var report = await plan.ApplyAsync();

        Assert.Equal(3, report.Done);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public async Task Leftovers_of_another_size_other_bytes_or_pointing_elsewhere_are_left_alone_and_listed()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        tree.Write("b.bin", Content);
        var other = (byte[])Content.Clone();
        other[29_999] ^= 1;
        var partial = tree.Write(".dedup-tmp-" + new string('1', 32), Content.AsSpan(0, 4096).ToArray()); // a clone cut short
        var stranger = tree.Write(".dedup-tmp-" + new string('2', 32), other);
        var elsewhere = tree.Write("elsewhere.bin", TempTree.RandomBytes(100, 62)); // not in the group
        var link = tree.PathOf(".dedup-tmp-" + new string('3', 32));
        File.CreateSymbolicLink(link, "elsewhere.bin");
        var clone = tree.Write(".dedup-tmp-" + new string('4', 32), Content); // bytes equal to the kept file: ours
        var groups = await tree.ScanAsync();
        var plan = LinkTree.Plan(groups.Where(g => g.Files.Any(f => f.Path.Name == "b.bin")), Linkers.HardLink); // path order keeps a.bin

        var report = await plan.ApplyAsync();

        Assert.Equal(1, report.TemporaryFilesRemoved);
        Assert.False(File.Exists(clone));
        Assert.Equal(Content.AsSpan(0, 4096).ToArray(), File.ReadAllBytes(partial));
        Assert.Equal(other, File.ReadAllBytes(stranger));
        Assert.Equal("elsewhere.bin", new FileInfo(link).LinkTarget);
        Assert.Equal(3, report.TemporaryFilesLeftAlone.Count);
        Assert.Contains(report.TemporaryFilesLeftAlone, l => l.StartsWith(partial + ": not provably a replacement", StringComparison.Ordinal));
        Assert.Contains(report.TemporaryFilesLeftAlone, l => l.StartsWith(stranger + ": not provably a replacement", StringComparison.Ordinal));
        Assert.Contains(report.TemporaryFilesLeftAlone, l => l == link + ": a symbolic link to elsewhere.bin, not to a file of this plan; left alone");
        Assert.True(File.Exists(elsewhere));
    }
}
