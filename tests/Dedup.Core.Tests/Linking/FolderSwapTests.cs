using Dedup.Core.Linking;
using Dedup.Core.Linking.BuiltIn;
using Dedup.Core.Linking.Execution;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// A user who owns the duplicate's folder swaps it for a symbolic link to another folder after the last re-check,
/// right before the rename, unlink or move into the trash (<see cref="LinkerFaults.AfterLastCheck"/>). The other
/// folder holds a file of the same name, and the attacker plants the replacement's temporary name there too, as
/// anyone listing the folder could. Every step works relative to the folder opened at the first check, so the
/// action still happens in the original folder and nothing in the other one is touched.
/// </summary>
public sealed class FolderSwapTests
{
    private static readonly byte[] Content = TempTree.RandomBytes(40_000, 21);
    private static readonly byte[] Victim = TempTree.RandomBytes(40_000, 22);
    private static readonly byte[] Planted = TempTree.RandomBytes(40_000, 23);

    [LinuxTheory]
    [MemberData(nameof(FaultInjectionTests.Kinds), MemberType = typeof(FaultInjectionTests))]
    public async Task Duplicate_folder_swapped_for_a_link_after_the_last_check_redirects_nothing(string kind)
    {
        using var tree = new LinkTree();
        var linker = kind switch
        {
            "hard" => Linkers.HardLink,
            "symbolic" => Linkers.SymbolicLink(),
            "delete" => Linkers.Delete,
            _ => new TrashLinker(tree.PathOf("home-trash")),
        };

        var moved = await SwapAndApplyAsync(tree, linker);

        var kept = tree.PathOf("keep/x.bin");
        var inOriginal = Path.Combine(moved, "x.bin");
        switch (kind)
        {
            case "hard":
                Assert.Equal(TestNative.Inode(kept), TestNative.Inode(inOriginal));
                break;
            case "symbolic":
                Assert.NotNull(new FileInfo(inOriginal).LinkTarget);
                Assert.Equal(Content, await File.ReadAllBytesAsync(inOriginal));
                break;
            case "delete":
                Assert.False(File.Exists(inOriginal));
                break;
            default:
                Assert.False(File.Exists(inOriginal));
                Assert.Equal(Content, await File.ReadAllBytesAsync(tree.PathOf("home-trash/files/x.bin")));
                Assert.Contains("Path=" + tree.PathOf("dup/x.bin") + "\n", await File.ReadAllTextAsync(tree.PathOf("home-trash/info/x.bin.trashinfo")), StringComparison.Ordinal);
                break;
        }
    }

    /// <summary>
    /// Scans keep/ and dup/ (both holding x.bin), applies <paramref name="linker"/> with dup/ swapped for a link to
    /// other/ (holding another x.bin) after the last check, and asserts the action was done, the kept file and
    /// everything in other/ are as before and no temporary name is left in the original folder; returns where the
    /// original folder went.
    /// </summary>
    internal static async Task<string> SwapAndApplyAsync(LinkTree tree, Linker linker)
    {
        var kept = tree.Write("keep/x.bin", Content);
        tree.Write("dup/x.bin", Content);
        var victim = tree.Write("other/x.bin", Victim);
        var victimInode = TestNative.Inode(victim);
        var folder = tree.PathOf("dup");
        var other = tree.PathOf("other");
        var moved = tree.PathOf("dup-moved");
        var plan = LinkTree.Plan(await tree.ScanAsync(tree.PathOf("keep"), folder), linker, KeepRule.PreferUnder(tree.PathOf("keep")));
        var planted = new List<string>();
        var swapped = false;
        plan.Faults = new LinkerFaults
        {
            AfterLastCheck = duplicate =>
            {
                Assert.Equal(Path.Combine(folder, "x.bin"), duplicate);
                foreach (var temporary in Directory.GetFiles(folder, ".dedup-tmp-*", new EnumerationOptions { AttributesToSkip = 0 }))
                {
                    planted.Add(Path.Combine(other, Path.GetFileName(temporary)));
                    File.WriteAllBytes(planted[^1], Planted);
                }

                Directory.Move(folder, moved);
                File.CreateSymbolicLink(folder, other);
                swapped = true;
            },
        };

        var outcome = Assert.Single((await plan.ApplyAsync()).Outcomes);

        Assert.True(swapped, "the fault hook did not run");
        Assert.Equal(DuplicateActionStatus.Done, outcome.Status);
        Assert.Equal(Content, await File.ReadAllBytesAsync(kept));
        Assert.Equal(Victim, await File.ReadAllBytesAsync(victim));
        Assert.Equal(victimInode, TestNative.Inode(victim));
        Assert.Equal(
            planted.Append(victim).Order(StringComparer.Ordinal),
            Directory.GetFileSystemEntries(other, "*", new EnumerationOptions { AttributesToSkip = 0 }).Order(StringComparer.Ordinal));
        Assert.All(planted, p => Assert.Equal(Planted, File.ReadAllBytes(p)));
        Assert.Empty(Directory.GetFileSystemEntries(moved, ".dedup-tmp-*", new EnumerationOptions { AttributesToSkip = 0 }));
        return moved;
    }
}
