using Dedup.Core.Linking;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The built-in operations at apply time where a step is refused: which refusals skip and which fail, with the folder
/// and errno named; a symbolic link that no longer leads to the kept file is never renamed over the duplicate; and no
/// operation leaves a descriptor open. In the small mount's collection: one test uses that mount.
/// </summary>
[Collection(SmallFsCollection.Name)]
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed partial class OperationEdgeTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(30_000, 357);

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs for clones")]
    public async Task A_clone_keeps_no_descriptor_open()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);

        var outcome = Assert.Single((await LinkTree.Plan(await tree.ScanAsync(), Linkers.Clone).ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs for clones", RequiresRoot = true)]
    public async Task A_clone_that_cannot_be_created_in_the_folder_fails_naming_the_folder_and_errno()
    {
        using var tree = new LinkTree(LinkTree.BtrfsMount);
        tree.Write("d/a.bin", Content);
        var b = tree.Write("d/b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.Clone);
        tree.MakeImmutable(tree.PathOf("d"));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Failed, outcome.Status);
        Assert.Equal($"cannot create a clone in {tree.PathOf("d")}: Operation not permitted; duplicate unchanged", outcome.Reason);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
    }

    [LinuxFact(RequiresRoot = true, Tool = "chattr", TempFileSystem = "ext4")]
    public async Task A_symbolic_link_not_permitted_in_the_folder_is_skipped_naming_the_folder()
    {
        using var tree = new LinkTree();
        tree.Write("d/a.bin", Content);
        var b = tree.Write("d/b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.SymbolicLink());
        tree.MakeImmutable(tree.PathOf("d"));

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal(
            $"not permitted to create a symbolic link in {tree.PathOf("d")}: Operation not permitted; duplicate unchanged (no other kind of link is made instead)",
            outcome.Reason);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
    }

    [LinuxFact]
    public async Task A_symbolic_link_leading_to_another_file_on_the_same_file_system_fails_and_is_removed()
    {
        using var tree = new LinkTree();
        var a = tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(), Linkers.SymbolicLink(relative: true));

        // Once the link exists, the kept path gets another file of the same file system (a new inode).
        plan.Faults = new LinkerFaults
        {
            BeforeRename = (_, _) =>
            {
                File.Copy(a, a + ".new");
                File.Move(a + ".new", a, overwrite: true);
            },
        };
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Failed, outcome.Status);
        Assert.Equal("the symbolic link 'a.bin' does not lead to the kept file; duplicate unchanged", outcome.Reason);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.False(new FileInfo(b).Attributes.HasFlag(FileAttributes.ReparsePoint));
        tree.AssertNoTemporaryFiles();
    }

    [LinuxFact]
    public async Task A_replacement_file_keeps_no_descriptor_open()
    {
        using var tree = new LinkTree();
        tree.Write("a.bin", Content);
        var b = tree.Write("b.bin", Content);
        var linker = new WritingLinker();

        var outcome = Assert.Single((await LinkTree.Plan(await tree.ScanAsync(), linker).ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.Equal("replaced", await File.ReadAllTextAsync(b));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [FactRequiringFolder("DEDUP_TEST_BTRFS", "a mounted btrfs", "DEDUP_TEST_SMALLFS", "a second, ext4 mount")]
    public async Task A_hard_link_across_file_systems_asked_by_a_custom_linker_is_skipped_with_the_reason()
    {
        using var btrfs = new LinkTree(LinkTree.BtrfsMount);
        using var small = new LinkTree(LinkTree.SmallMount);
        btrfs.Write("a.bin", Content);
        var b = small.Write("b.bin", Content);
        var plan = LinkTree.Plan(await btrfs.ScanAsync(btrfs.Root, small.Root), new HardLinkingLinker());

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal("kept file and duplicate are on different file systems (EXDEV); a hard link cannot cross devices (no other kind of link is made instead)", outcome.Reason);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
    }

    [LinuxFact(TempFileSystem = "ext4")]
    public async Task A_hard_link_to_a_kept_file_at_the_link_limit_is_skipped_with_the_reason()
    {
        using var tree = new LinkTree();
        var a = tree.Write("data/a.bin", Content);
        var b = tree.Write("data/b.bin", Content);
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("data")), Linkers.HardLink);

        // ext4 allows 65,000 links to one file: the kept file gets them all, outside the scanned folder.
        Directory.CreateDirectory(tree.PathOf("links"));
        for (var i = 0; Link(a, tree.PathOf($"links/{i}")) == 0; i++)
        {
        }

        Assert.Equal(65_000u, TestNative.LinkCount(a));
        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.Equal(DuplicateActionStatus.Skipped, outcome.Status);
        Assert.Equal("the kept file has the most hard links its file system allows (EMLINK)", outcome.Reason);
        Assert.Equal(Content, await File.ReadAllBytesAsync(b));
        Assert.Equal(1u, TestNative.LinkCount(b));
    }

    [System.Runtime.InteropServices.LibraryImport("libc", EntryPoint = "link", StringMarshalling = System.Runtime.InteropServices.StringMarshalling.Utf8)]
    private static partial int Link(string existing, string link);

    private sealed class HardLinkingLinker : Linker
    {
        public override string Description => "hard link, unpredicted";

        public override void Apply(LinkerContext context) => context.ReplaceWithHardLink();
    }

    private sealed class WritingLinker : Linker
    {
        public override string Description => "write";

        public override void Apply(LinkerContext context) => context.ReplaceWithFile(stream => stream.Write("replaced"u8));
    }
}
