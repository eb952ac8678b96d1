using Dedup.Core.Comparison;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>End-to-end scans of real temporary trees through the public API.</summary>
public sealed class FindDuplicatesTests
{
    private static readonly IComparerStrategy[] AllStrategies =
        [ComparerStrategies.Bytewise, ComparerStrategies.Vectorized, ComparerStrategies.Hashing, ComparerStrategies.Hybrid];

    [Fact]
    public async Task Duplicates_across_several_roots_are_grouped()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(10_000, 1);
        var a = tree.Write("photos/a.jpg", content);
        var b = tree.Write("backup/2020/a copy.jpg", content);
        var c = tree.Write("backup/b.jpg", content);
        tree.Write("photos/other.jpg", TempTree.RandomBytes(10_000, 2));

        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.PathOf("photos")).AddRoot(tree.PathOf("backup")));

        Assert.Equal(Expect.Groups([a, b, c]), Scan.Canonical(groups));
        Assert.Equal(4, summary.FilesScanned);
    }

    [Fact]
    public async Task Duplicates_in_nested_folders_of_one_root_are_grouped_separately_by_content()
    {
        using var tree = new TempTree();
        var x = TempTree.RandomBytes(3000, 3);
        var y = TempTree.RandomBytes(3000, 4);
        var x1 = tree.Write("a/x.bin", x);
        var x2 = tree.Write("a/b/c/x.bin", x);
        var y1 = tree.Write("a/y.bin", y);
        var y2 = tree.Write("d/y.bin", y);
        var y3 = tree.Write("d/e/y.bin", y);

        var (groups, _) = await Scan.RunAsync(f => f.AddRoot(tree.Root));

        Assert.Equal(Expect.Groups([x1, x2], [y1, y2, y3]), Scan.Canonical(groups));
        Assert.All(groups, g => Assert.True(g.VerifiedByBytes));
        Assert.All(groups, g => Assert.Equal(g.Files.OrderBy(f => f.Path).Select(f => f.Path), g.Files.Select(f => f.Path)));
    }

    // Sizes below and above the 4 KiB prefix probe, the 8 KiB whole-read limit, the 64 KiB suffix probe
    // and the 128/256 KiB read chunks; positions at both ends, both probe edges and the middle.
    [Theory]
    [InlineData(100)]
    [InlineData(4097)]
    [InlineData(5000)]
    [InlineData(20_000)]
    [InlineData(70_000)]
    [InlineData(300_001)]
    [InlineData(3 * 1024 * 1024)]
    public async Task Files_differing_in_one_byte_are_never_grouped_while_true_twins_are(int size)
    {
        using var tree = new TempTree();
        var original = TempTree.RandomBytes(size, size);
        var twins = new[] { "a/original.bin", "b/twin1.bin", "c/twin2.bin", "c/twin3.bin" }.Select(p => tree.Write(p, original)).ToArray();
        var positions = new[] { 0, 4095, 4096, size / 2, size - 4097, size - 4096, size - 1 }.Where(p => p >= 0 && p < size).Distinct();
        foreach (var position in positions)
        {
            var copy = (byte[])original.Clone();
            copy[position] ^= 0x01;
            tree.Write($"near/at-{position}.bin", copy);
        }

        foreach (var strategy in AllStrategies)
        {
            var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).UseComparer(strategy));
            var actual = Scan.Canonical(groups);
            Assert.True(Expect.Groups(twins).SequenceEqual(actual), $"{strategy.Name}, {size} B: got {string.Join(" || ", actual)}");
            Assert.Empty(summary.Errors);
        }
    }

    [RequiresToolFact("ln")]
    public async Task A_file_with_several_hard_links_is_listed_once_with_its_other_links()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(20_000, 5);
        var a = tree.Write("x/a.bin", content);
        var link2 = tree.HardLink("x/a.bin", "x/a-link2.bin");
        var link1 = tree.HardLink("x/a.bin", "y/a-link.bin");
        var copy = tree.Write("z/copy.bin", content);

        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root));

        var group = Assert.Single(groups);
        Assert.Equal(2, group.Files.Count);
        var linked = group.Files.Single(f => f.OtherLinks.Count > 0);

        // "a-link2.bin" sorts before "a.bin" ('-' < '.'), so it is the primary name.
        Assert.Equal(link2, linked.Path.ToString());
        Assert.Equal([a, link1], linked.OtherLinks.Select(l => l.ToString()));
        Assert.Equal(3, linked.LinkCount);
        Assert.Equal(copy, group.Files.Single(f => f.OtherLinks.Count == 0).Path.ToString());
        Assert.Equal(content.Length, group.WastedBytes);
        Assert.Equal(4, summary.FilesScanned);
    }

    [RequiresToolFact("ln")]
    public async Task Two_names_of_one_file_alone_are_not_a_duplicate_group()
    {
        using var tree = new TempTree();
        tree.Write("a.bin", TempTree.RandomBytes(20_000, 6));
        tree.HardLink("a.bin", "sub/b.bin");
        tree.HardLink("a.bin", "sub/c.bin");

        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root));

        Assert.Empty(groups);
        Assert.Equal(3, summary.FilesScanned);
        Assert.Equal(0, summary.Groups);
    }

    [Fact]
    public async Task Empty_files_are_reported_only_when_asked()
    {
        using var tree = new TempTree();
        var e1 = tree.Write("e1", []);
        var e2 = tree.Write("sub/e2", []);
        var e3 = tree.Write("sub/e3", []);
        var content = TempTree.RandomBytes(50, 7);
        var p1 = tree.Write("p1", content);
        var p2 = tree.Write("p2", content);

        var (plain, _) = await Scan.RunAsync(f => f.AddRoot(tree.Root));
        var (withEmpty, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).IncludeEmptyFiles());

        Assert.Equal(Expect.Groups([p1, p2]), Scan.Canonical(plain));
        Assert.Equal(Expect.Groups([p1, p2], [e1, e2, e3]), Scan.Canonical(withEmpty));
        var empty = withEmpty.Single(g => g.Size == 0);
        Assert.Equal(0, empty.WastedBytes);
        Assert.Equal(5, summary.FilesScanned);
    }

    [LinuxFact]
    public async Task Non_ascii_names_are_found_and_reported_exactly()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(9000, 8);
        string[] names =
        [
            "папка/Привет мир.txt", "日本語/ファイル名.bin", "emoji/😀 smile 🎉.dat", "with space/a b  c.txt",
            "new\nline.txt", "tab\tname", "caf\u00e9.txt", "cafe\u0301.txt",
        ];
        var paths = names.Select(n => tree.Write(n, content)).ToArray();

        var (groups, _) = await Scan.RunAsync(f => f.AddRoot(tree.Root));

        // Composed and decomposed "café" are distinct names on Linux: both must be listed, unnormalized.
        Assert.Equal(Expect.Groups(paths), Scan.Canonical(groups));
        Assert.All(groups.Single().Files, f => Assert.True(File.Exists(f.Path.ToString()), f.Path.ToString()));
    }

    [Fact]
    public async Task Size_bounds_are_inclusive()
    {
        using var tree = new TempTree();
        var small = new[] { tree.Write("s1", TempTree.RandomBytes(10, 9)), tree.Write("s2", TempTree.RandomBytes(10, 9)) };
        var mid = new[] { tree.Write("m1", TempTree.RandomBytes(1000, 10)), tree.Write("m2", TempTree.RandomBytes(1000, 10)) };
        var big = new[] { tree.Write("b1", TempTree.RandomBytes(100_000, 11)), tree.Write("b2", TempTree.RandomBytes(100_000, 11)) };

        var (min, minSummary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).WithMinSize(1000));
        var (max, _) = await Scan.RunAsync(f => f.AddRoot(tree.Root).WithMaxSize(1000));
        var (exact, _) = await Scan.RunAsync(f => f.AddRoot(tree.Root).WithMinSize(1000).WithMaxSize(1000));

        Assert.Equal(Expect.Groups(mid, big), Scan.Canonical(min));
        Assert.Equal(Expect.Groups(small, mid), Scan.Canonical(max));
        Assert.Equal(Expect.Groups(mid), Scan.Canonical(exact));
        Assert.Equal(4, minSummary.FilesScanned);
    }

    [Fact]
    public async Task Include_and_exclude_globs_filter_names_and_paths()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(500, 12);
        var ax = tree.Write("a/x.jpg", content);
        var by = tree.Write("b/y.jpg", content);
        var bz = tree.Write("b/z.png", content);
        var tmp = tree.Write("a/tmp/t.jpg", content);
        var deep = tree.Write("c/d/e/w.jpg", content);

        async Task<List<string>> Run(Action<DuplicateFinderBuilder> configure)
        {
            var (groups, _) = await Scan.RunAsync(f => configure(f.AddRoot(tree.Root)));
            return Scan.Canonical(groups);
        }

        Assert.Equal(Expect.Groups([ax, by, tmp, deep]), await Run(f => f.Include("*.jpg")));
        Assert.Equal(Expect.Groups([ax, by, deep]), await Run(f => f.Include("*.jpg").Exclude("tmp")));
        Assert.Equal(Expect.Groups([ax, by, bz, deep]), await Run(f => f.Exclude("**/tmp/**")));
        Assert.Equal(Expect.Groups([ax, tmp, deep]), await Run(f => f.Exclude("b/*")));
        Assert.Equal(Expect.Groups([by, bz]), await Run(f => f.Include("b/*")));
        Assert.Equal(Expect.Groups([ax, by, tmp]), await Run(f => f.Include("[xyt].jpg")));
        Assert.Equal(Expect.Groups([ax, bz, tmp, deep]), await Run(f => f.Include("[!y]*.??g")));
        Assert.Equal(Expect.Groups([bz, deep]), await Run(f => f.Include("c/**/*.jpg").Include("*.png")));
    }

    [Fact]
    public async Task Hidden_files_and_folders_are_scanned_unless_excluded()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(700, 13);
        var hiddenFile = tree.Write(".hidden.bin", content);
        var inHidden = tree.Write(".cache/x.bin", content);
        var a = tree.Write("a.bin", content);
        var b = tree.Write("sub/b.bin", content);

        var (withHidden, _) = await Scan.RunAsync(f => f.AddRoot(tree.Root));
        var (withoutHidden, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).IncludeHidden(false));

        Assert.Equal(Expect.Groups([hiddenFile, inHidden, a, b]), Scan.Canonical(withHidden));
        Assert.Equal(Expect.Groups([a, b]), Scan.Canonical(withoutHidden));
        Assert.Equal(2, summary.FilesScanned);
    }

    [Fact]
    public async Task Overlapping_roots_list_each_file_once()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(12_000, 14);
        var a = tree.Write("a.bin", content);
        var b = tree.Write("sub/b.bin", content);
        var c = tree.Write("sub/deeper/c.bin", content);

        foreach (var roots in new[] { new[] { tree.Root, tree.PathOf("sub") }, [tree.PathOf("sub/deeper"), tree.Root, tree.PathOf("sub")] })
        {
            var (groups, summary) = await Scan.RunAsync(f => f.AddRoots(roots));
            Assert.Equal(Expect.Groups([a, b, c]), Scan.Canonical(groups));
            Assert.Equal(3, summary.FilesScanned);
            Assert.All(groups.Single().Files, f => Assert.Empty(f.OtherLinks));
        }
    }

    [Fact]
    public async Task Summary_adds_up()
    {
        using var tree = new TempTree();
        var x = TempTree.RandomBytes(10_000, 15);
        var y = TempTree.RandomBytes(300, 16);
        tree.Write("x1", x);
        tree.Write("x2", x);
        tree.Write("x3", x);
        tree.Write("y1", y);
        tree.Write("y2", y);
        tree.Write("unique", TempTree.RandomBytes(10_000, 17));
        tree.Write("empty", []);

        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root));

        Assert.Equal(7, summary.FilesScanned);
        Assert.Equal(2, summary.Groups);
        Assert.Equal(groups.Count, summary.Groups);
        Assert.Equal(3, summary.DuplicateFiles);
        Assert.Equal((2 * 10_000) + 300, summary.WastedBytes);
        Assert.Equal(groups.Sum(g => g.WastedBytes), summary.WastedBytes);
        // At least every byte of every grouped file; at most twice every candidate byte.
        Assert.InRange(summary.BytesRead, (3 * 10_000) + (2 * 300), 2 * ((4 * 10_000) + (2 * 300)));
        Assert.Empty(summary.Errors);
        Assert.True(summary.Elapsed > TimeSpan.Zero);
    }

    [Fact]
    public async Task Finder_is_reusable_and_scans_can_run_at_once()
    {
        using var tree = new TempTree();
        var content = TempTree.RandomBytes(40_000, 18);
        for (var i = 0; i < 6; i++)
        {
            tree.Write($"d{i % 3}/f{i}.bin", i % 2 == 0 ? content : TempTree.RandomBytes(40_000, 100 + (i % 4)));
        }

        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).Build();
        var first = await Scan.RunAsync(finder);
        var second = await Scan.RunAsync(finder);
        var concurrent = await Task.WhenAll(Scan.RunAsync(finder), Scan.RunAsync(finder));

        Assert.NotEmpty(first.Groups);
        Assert.Equal(Expect.WithLinks(first.Groups), Expect.WithLinks(second.Groups));
        Assert.All(concurrent, r => Assert.Equal(Expect.WithLinks(first.Groups), Expect.WithLinks(r.Groups)));
        Assert.Equal(first.Summary.FilesScanned, second.Summary.FilesScanned);
        Assert.Equal(first.Summary.WastedBytes, second.Summary.WastedBytes);
    }

    [Fact]
    public async Task A_scan_can_be_enumerated_only_once()
    {
        using var tree = new TempTree();
        tree.Write("a", "same");
        tree.Write("b", "same");
        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync();

        Assert.False(scan.IsCompleted);
        Assert.Throws<InvalidOperationException>(() => scan.Summary);
        var enumerator = scan.GetAsyncEnumerator();
        Assert.Throws<InvalidOperationException>(() => scan.GetAsyncEnumerator());
        while (await enumerator.MoveNextAsync())
        {
        }

        await enumerator.DisposeAsync();
        Assert.True(scan.IsCompleted);
        Assert.Equal(1, scan.Summary.Groups);
        Assert.Throws<InvalidOperationException>(() => scan.GetAsyncEnumerator());
    }

    [Fact]
    public async Task Groups_are_streamed_before_the_scan_ends()
    {
        using var tree = new TempTree();

        // Two candidate sets above the whole-read limit, so each goes to the strategy.
        tree.Write("a1", TempTree.RandomBytes(20_000, 19));
        tree.Write("a2", TempTree.RandomBytes(20_000, 19));
        tree.Write("b1", TempTree.RandomBytes(30_000, 20));
        tree.Write("b2", TempTree.RandomBytes(30_000, 20));
        var strategy = new GatedStrategy();
        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).UseComparer(strategy).WithMaxDegreeOfParallelism(1).Build().FindAsync();

        var received = 0;
        var firstArrivedWhileSecondBlocked = false;
        await foreach (var group in scan)
        {
            if (received++ == 0)
            {
                Assert.False(scan.IsCompleted);
                Assert.Throws<InvalidOperationException>(() => scan.Summary);
                firstArrivedWhileSecondBlocked = Volatile.Read(ref strategy.Finished) < 2;
                strategy.Gate.Set();
            }
        }

        Assert.False(strategy.GateTimedOut, "The second set waited 30 s: groups were not streamed.");
        Assert.True(firstArrivedWhileSecondBlocked);
        Assert.Equal(2, received);
        Assert.Equal(2, scan.Summary.Groups);
    }

    /// <summary>Holds every set after the first until the test has received a group.</summary>
    private sealed class GatedStrategy : IComparerStrategy
    {
        public int Finished;
        private int _calls;

        public ManualResetEventSlim Gate { get; } = new(false);

        public bool GateTimedOut { get; private set; }

        public string Name => "gated";

        public void Partition(ComparisonSet set, CancellationToken cancellationToken = default)
        {
            if (Interlocked.Increment(ref _calls) > 1 && !Gate.Wait(TimeSpan.FromSeconds(30), cancellationToken))
            {
                GateTimedOut = true;
            }

            ComparerStrategies.Hybrid.Partition(set, cancellationToken);
            Interlocked.Increment(ref Finished);
        }
    }
}
