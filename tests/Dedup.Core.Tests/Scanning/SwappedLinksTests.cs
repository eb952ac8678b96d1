using Dedup.Core.Comparison;
using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// A hostile user swaps a listed file, or a folder on its way, for a symbolic link between the listing and the read:
/// without <c>--follow-symlinks</c> the scan must not open what the link points to (a device's open alone can act:
/// a tape rewinds), only report the file changed. The link's target is watched with inotify for any open.
/// </summary>
public sealed class SwappedLinksTests
{
    [LinuxFact]
    public Task A_file_swapped_for_a_symbolic_link_after_listing_is_not_opened_through_it() =>
        AssertSwapNotFollowedAsync("victim", "target", (tree, outside, victim, target) =>
        {
            File.Delete(victim);
            File.CreateSymbolicLink(victim, target);
        });

    [LinuxFact]
    public Task A_folder_swapped_for_a_symbolic_link_after_listing_is_not_walked_through() =>
        AssertSwapNotFollowedAsync("sub/victim", "victim", SwapFolder);

    [LinuxFact]
    public Task A_folder_swapped_for_a_symbolic_link_is_not_walked_through_to_files_further_down() =>
        // The swapped folder cannot be opened by its name; the folder below it must not then be opened by its path.
        AssertSwapNotFollowedAsync("sub/deeper/victim", "deeper/victim", SwapFolder);

    /// <summary>Folder <c>sub</c> moved away and replaced by a link to the folder outside the root.</summary>
    private static void SwapFolder(TempTree tree, TempTree outside, string victim, string target)
    {
        Directory.Move(tree.PathOf("sub"), tree.PathOf("sub.moved"));
        Directory.CreateSymbolicLink(tree.PathOf("sub"), outside.Root);
    }

    /// <summary>
    /// A victim and two copies of its bytes in the tree, the same bytes at <paramref name="targetPath"/> outside it; after
    /// the listing, <paramref name="swap"/> puts a link on the victim's way to the target. The target must never be
    /// opened, the copies still grouped, and the victim reported changed.
    /// </summary>
    /// <remarks>
    /// The folder-descriptor cache holds only the root: the folders below it are not opened
    /// before the compare (<c>IO.BusiestFolders</c>), so the victim is opened by a path below the root's
    /// descriptor, after the swap, and the link on it must be refused. A cache holding the victim's folder from before
    /// the swap reads it through that folder, the one listed: <see cref="A_swap_after_the_folders_were_opened_is_not_followed_either"/>.
    /// </remarks>
    /// <param name="victimPath">Where the victim lies in the tree.</param>
    /// <param name="targetPath">Where the target lies outside it.</param>
    /// <param name="swap">Puts the link in place.</param>
    /// <param name="foldersOpenedBefore">With the default cache instead: the victim's folder is opened before the swap.
    /// The target must still never be opened and the copies grouped; the victim may be read through the folder listed.</param>
    private static async Task AssertSwapNotFollowedAsync(string victimPath, string targetPath, Action<TempTree, TempTree, string, string> swap, bool foldersOpenedBefore = false)
    {
        using var tree = new TempTree();
        using var outside = new TempTree();
        var small = TempTree.RandomBytes(100, victimPath.Length);
        var keep = new[] { tree.Write("keep1", small), tree.Write("keep2", small) };
        var victim = tree.Write(victimPath, small);
        var target = outside.Write(targetPath, small);

        Dedup.Core.FileSystem.FolderHandles.CapacityInThisFlow.Value = foldersOpenedBefore ? null : 1; // 1: the root, opened by its path
        var (groups, summary, opens) = await ScanSwappingAsync(tree, target, () => swap(tree, outside, victim, target));

        Assert.Equal(0, opens);
        if (foldersOpenedBefore)
        {
            Assert.Contains(Scan.Canonical(groups), g => keep.All(k => g.Contains(k, StringComparison.Ordinal)));
            return;
        }

        Assert.Contains(string.Join(" | ", keep.Order(StringComparer.Ordinal)), Scan.Canonical(groups));
        var error = Assert.Single(summary.Errors);
        Assert.Equal((victim, ScanErrorKind.Changed), (error.Path, error.Kind));
    }

    [LinuxFact]
    public async Task A_swap_after_the_folders_were_opened_is_not_followed_either()
    {
        // The default cache opens every folder with candidates before the compare: the swap comes after, so files are
        // read through the folders listed, and the link's target is still never opened.
        await AssertSwapNotFollowedAsync("sub/victim", "victim", SwapFolder, foldersOpenedBefore: true);
        await AssertSwapNotFollowedAsync("sub/deeper/victim", "deeper/victim", SwapFolder, foldersOpenedBefore: true);
    }

    [LinuxFact]
    public async Task A_root_reached_through_symbolic_links_is_scanned_as_before()
    {
        // Links above a root, and the root itself a link: the root is opened by its path, links followed, as the
        // listing opened it; only links below it are refused.
        using var tree = new TempTree();
        var small = TempTree.RandomBytes(100, 4);
        var big = TempTree.RandomBytes(100_000, 5);
        var expected = new[]
        {
            new[] { tree.Write("real/data/a/s1", small), tree.Write("real/data/b/s2", small) },
            [tree.Write("real/data/a/b1", big), tree.Write("real/data/c/d/b2", big)],
        };
        Directory.CreateSymbolicLink(tree.PathOf("via"), tree.PathOf("real"));
        Directory.CreateSymbolicLink(tree.PathOf("data-link"), tree.PathOf("via/data"));

        foreach (var root in new[] { tree.PathOf("via/data"), tree.PathOf("data-link") })
        {
            var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(root));

            Assert.Empty(summary.Errors);
            Assert.Equal(
                Expect.Groups(expected.Select(g => g.Select(p => root + p[tree.PathOf("real/data").Length..]).ToArray()).ToArray()),
                Scan.Canonical(groups));
        }
    }

    /// <summary>
    /// Scans <paramref name="tree"/> plus two 1 MiB copies on one thread: their set costs most, so it is compared first,
    /// and the strategy's first read of it runs <paramref name="swap"/> before any small file is opened. Returns the opens
    /// of <paramref name="watched"/> seen meanwhile.
    /// </summary>
    private static async Task<(List<DuplicateGroup> Groups, ScanSummary Summary, int Opens)> ScanSwappingAsync(TempTree tree, string watched, Action swap)
    {
        var big = TempTree.RandomBytes(1024 * 1024, 3);
        tree.Write("big1", big);
        tree.Write("big2", big);
        var strategy = new SwappingStrategy(swap);
        using var watch = new OpenEvents(watched);
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).UseComparer(strategy).WithMaxDegreeOfParallelism(1), cts.Token);

        Assert.True(strategy.Swapped, "The strategy never ran, so nothing was swapped.");
        var opens = watch.Opens();
        _ = File.ReadAllBytes(watched);
        Assert.Equal(1, watch.Opens()); // the watch sees an open: a count of 0 above is not a blind watch
        return (groups, summary, opens);
    }

    /// <summary>The real Hybrid strategy; its first call runs the swap.</summary>
    private sealed class SwappingStrategy(Action swap) : IComparerStrategy
    {
        public bool Swapped { get; private set; }

        public string Name => "swapping";

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default)
        {
            if (!Swapped)
            {
                Swapped = true;
                swap();
            }

            ComparerStrategies.Hybrid.Partition(set, cancellationToken);
        }
    }
}
