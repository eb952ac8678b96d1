using Dedup.Core.Reporting;

namespace Dedup.Core.NetFxTests;

/// <summary>The netstandard2.0 build scanning real trees under Mono: exact groups, as on net8+.</summary>
public sealed class ScanTests
{
    internal static async Task<List<string[]>> GroupsAsync(DuplicateFinderBuilder builder, string root, List<ScanError>? errors = null, CancellationToken cancellationToken = default)
    {
        var scan = builder.Build().FindAsync(cancellationToken);
        var groups = new List<string[]>();
        await foreach (var group in scan.WithCancellation(cancellationToken))
        {
            groups.Add(group.Files.SelectMany(f => new[] { f.Path.ToString() }.Concat(f.OtherLinks.Select(l => l.ToString())))
                .Select(p => p.Substring(root.Length + 1)).OrderBy(p => p, StringComparer.Ordinal).ToArray());
        }

        errors?.AddRange(scan.Summary.Errors);
        return groups.OrderBy(g => g[0], StringComparer.Ordinal).ToList();
    }

    [Fact]
    public async Task FindsExactGroupsAcrossSizesAndPrefixes()
    {
        using var tree = new TempTree();
        var big = new byte[200_000];
        new Random(7).NextBytes(big);
        var bigOther = (byte[])big.Clone();
        bigOther[150_000] ^= 1; // same size, same prefix and suffix: only a full comparison tells them apart
        tree.File("a/one.txt", "hello world");
        tree.File("b/one-copy.txt", "hello world");
        tree.File("b/other.txt", "hello there");
        tree.File("c/big.bin", big);
        tree.File("c/big-copy.bin", big);
        tree.File("d/big-differs.bin", bigOther);
        tree.File("d/unique.txt", "only me");

        var groups = await GroupsAsync(new DuplicateFinderBuilder().AddRoot(tree.Root), tree.Root);

        Assert.Equal(2, groups.Count);
        Assert.Equal(new[] { "a/one.txt", "b/one-copy.txt" }, groups[0]);
        Assert.Equal(new[] { "c/big-copy.bin", "c/big.bin" }, groups[1]);
    }

    [Fact]
    public async Task FoldsHardLinksIntoOneFile()
    {
        using var tree = new TempTree();
        var original = tree.File("x/original.txt", "same content");
        tree.HardLink(original, "x/linked.txt");
        tree.File("y/copy.txt", "same content");
        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync();

        var groups = new List<DuplicateGroup>();
        await foreach (var group in scan)
        {
            groups.Add(group);
        }

        var only = Assert.Single(groups);
        Assert.Equal(2, only.Files.Count); // the two names of one file count once
        var linked = Assert.Single(only.Files, f => f.OtherLinks.Count == 1);
        Assert.Equal(2, linked.LinkCount);
        Assert.Equal(TempTree.Identity(original).Inode, linked.Identity.FileId);
    }

    [Fact]
    public async Task HardLinksAloneAreNotDuplicates()
    {
        using var tree = new TempTree();
        var original = tree.File("original.txt", "one file, two names");
        tree.HardLink(original, "second-name.txt");

        Assert.Empty(await GroupsAsync(new DuplicateFinderBuilder().AddRoot(tree.Root), tree.Root));
    }

    [Fact]
    public async Task EmptyFilesOnlyWhenAskedFor()
    {
        using var tree = new TempTree();
        tree.File("e1", string.Empty);
        tree.File("e2", string.Empty);

        Assert.Empty(await GroupsAsync(new DuplicateFinderBuilder().AddRoot(tree.Root), tree.Root));
        var groups = await GroupsAsync(new DuplicateFinderBuilder().AddRoot(tree.Root).IncludeEmptyFiles(), tree.Root);
        Assert.Equal(new[] { "e1", "e2" }, Assert.Single(groups));
    }

    [Fact]
    public async Task SizeFiltersApply()
    {
        using var tree = new TempTree();
        tree.File("small1", "abc");
        tree.File("small2", "abc");
        tree.File("mid1", new string('m', 100));
        tree.File("mid2", new string('m', 100));
        tree.File("large1", new string('l', 10_000));
        tree.File("large2", new string('l', 10_000));

        var groups = await GroupsAsync(new DuplicateFinderBuilder().AddRoot(tree.Root).WithMinSize(10).WithMaxSize(1000), tree.Root);

        Assert.Equal(new[] { "mid1", "mid2" }, Assert.Single(groups));
    }

    [Fact]
    public async Task SymbolicLinkLoopIsReportedNotFollowedForever()
    {
        using var tree = new TempTree();
        tree.File("top/a.txt", "twin");
        tree.File("top/sub/b.txt", "twin");
        tree.SymbolicLink(Path.Combine(tree.Root, "top"), "top/sub/back-to-top");
        var errors = new List<ScanError>();

        var groups = await GroupsAsync(new DuplicateFinderBuilder().AddRoot(tree.Root).FollowSymbolicLinks(), tree.Root, errors);

        Assert.Equal(new[] { "top/a.txt", "top/sub/b.txt" }, Assert.Single(groups));
        Assert.Contains(errors, e => e.Kind == ScanErrorKind.SymbolicLinkLoop);
    }

    [Fact]
    public async Task SymbolicLinksAreSkippedByDefault()
    {
        using var tree = new TempTree();
        var target = tree.File("real.txt", "content");
        tree.SymbolicLink(target, "link.txt");

        Assert.Empty(await GroupsAsync(new DuplicateFinderBuilder().AddRoot(tree.Root), tree.Root));
    }

    [Fact]
    public async Task FileThatVanishesIsAnErrorNotAGroup()
    {
        using var tree = new TempTree();
        tree.File("keep1.txt", "present");
        tree.File("keep2.txt", "present");
        var vanishing = tree.File("gone1.txt", "vanishes");
        tree.File("gone2.txt", "vanishes");

        // Listed, then deleted before anything is read: the enumeration ends before the first read.
        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).UseFileEnumerator(new ListThenDelete(vanishing)).Build().FindAsync();
        var groups = new List<DuplicateGroup>();
        await foreach (var group in scan)
        {
            groups.Add(group);
        }

        var only = Assert.Single(groups);
        Assert.All(only.Files, f => Assert.Contains("keep", f.Path.ToString()));
        Assert.Contains(scan.Summary.Errors, e => e.Path.EndsWith("gone1.txt", StringComparison.Ordinal) && e.Kind == ScanErrorKind.NotFound);
    }

    /// <summary>Lists the root's files with their real identities, then deletes one of them.</summary>
    private sealed class ListThenDelete(string toDelete) : Enumeration.IFileEnumerator
    {
        public async IAsyncEnumerable<Enumeration.ScannedFile> EnumerateAsync(Enumeration.FileEnumerationContext context, [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken = default)
        {
            foreach (var root in context.Roots)
            {
                foreach (var path in Directory.GetFiles(root.ToString()))
                {
                    var (device, inode, links) = TempTree.Identity(path);
                    var info = new FileInfo(path);
                    yield return new Enumeration.ScannedFile(Paths.AbsolutePath.Parse(path), info.Length, Enumeration.FileIdentity.FromUnixStat(device, inode), links, info.LastWriteTimeUtc);
                }
            }

            await Task.Yield();
            File.Delete(toDelete);
        }
    }

    [Fact]
    public async Task CancellationStopsTheScan()
    {
        using var tree = new TempTree();
        for (var i = 0; i < 200; i++)
        {
            tree.File($"f/{i % 20}/{i}.txt", "same " + (i % 10));
        }

        using var cancellation = new CancellationTokenSource();
        cancellation.Cancel();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => GroupsAsync(new DuplicateFinderBuilder().AddRoot(tree.Root), tree.Root, cancellationToken: cancellation.Token));
    }

    [Fact]
    public async Task MissingRootThrowsWhenTheScanStarts()
    {
        var missing = Path.Combine(Path.GetTempPath(), "dedup-netfx-missing-" + Guid.NewGuid().ToString("N"));

        await Assert.ThrowsAsync<DirectoryNotFoundException>(() => GroupsAsync(new DuplicateFinderBuilder().AddRoot(missing), missing));
    }
}
