using Dedup.Core.Diagnostics;
using Dedup.Core.Enumeration;
using Dedup.Core.Reporting;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// The key pass (#17 session 17): the small files of shared sizes that the listing could not key from the page cache
/// are keyed before the size barrier splits sizes by key, in table order, each one only if it is still the file listed,
/// reached without following a link the listing did not follow.
/// </summary>
public sealed class KeyPassTests
{
    [LinuxTheory]
    [InlineData(null)] // sizes counted
    [InlineData(1)]    // sizes sorted: a unique size is a run of one row there
    public async Task The_barrier_asks_the_pass_for_exactly_the_unkeyed_rows_of_small_shared_sizes_and_splits_by_its_keys(int? maxSizesCounted)
    {
        using var tree = new TempTree();
        tree.Write("a/b/c/one", "twelve bytes");   // a pair across folders
        tree.Write("a/e/two", "twelve bytes");
        tree.Write("a/b/d/three", "TWELVE BYTES"); // the same size, alone in its key
        tree.Write("a/b/c/four", "twelve BYTES");
        tree.Write("unique", "a size of its own");
        tree.Write("a/limit1", new byte[100]);     // the keyed length itself is keyed
        tree.Write("a/e/limit2", new byte[100]);
        tree.Write("a/big1", new byte[101]);       // beyond the keyed length: by size alone
        tree.Write("a/big2", new byte[101]);
        tree.Write("e1", []);                      // empty files are never keyed
        tree.Write("e2", []);
        var table = await Fill(tree, keyedLength: 100);
        var names = Enumerable.Range(0, table.Count).Select(table.GetName).ToList(); // row numbers change when rows are dropped

        ulong[]? asked = null;
        long bytes = 0;
        List<CandidateSet>? sets = null;
        await using (var threads = new ScanThreads(2))
        {
            await threads.RunAsync(() => sets = SizeBarrier.Split(table, keepSingles: false, maxSizesCounted, keyMissing: rows =>
            {
                asked = (ulong[])rows.Clone();
                KeyPass.Run(table, rows, [Dedup.Core.Paths.AbsolutePath.Parse(tree.Root)], followLinks: false, threads, n => Interlocked.Add(ref bytes, n), default);
            }));
        }

        Assert.Equal(["four", "limit1", "limit2", "one", "three", "two"], RowsIn(asked!, names).Order(StringComparer.Ordinal));
        Assert.Equal((4 * 12) + (2 * 100), bytes);
        Assert.Equal(["a/b/c/one,a/e/two", "a/big1,a/big2", "a/e/limit2,a/limit1", "e1,e2"], Canonical(sets!, tree));
        Assert.Equal(8, table.Count); // "three", "four" and "unique" dropped
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public async Task The_pass_is_not_asked_with_singles_kept_nor_when_the_listing_keyed_every_file()
    {
        using var tree = new TempTree();
        tree.Write("a", "same length");
        tree.Write("b", "SAME LENGTH");
        var called = 0;

        var singles = await Fill(tree, keyedLength: 100);
        _ = SizeBarrier.Split(singles, keepSingles: true, keyMissing: _ => called++);
        Assert.Equal(0, called);

        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).Build();
        var keyed = new FileTable { KeyedLength = 100 };
        await new ParallelFileEnumerator().FillAsync(EnumerationContexts.Create(finder.Options, new ScanErrorSink()), keyed, default);
        Assert.Empty(SizeBarrier.Split(keyed, keepSingles: false, keyMissing: _ => called++)); // split by the listing's keys
        Assert.Equal(0, called);

        var unkeyed = await Fill(tree, keyedLength: 100);
        Assert.Single(SizeBarrier.Split(unkeyed, keepSingles: false, keyMissing: _ => called++)); // asked, keyed nothing
        Assert.Equal(1, called);
    }

    [LinuxFact]
    public async Task Over_many_blocks_of_rows_the_pass_keys_exactly_the_rows_asked_for_once_each()
    {
        using var tree = new TempTree();
        const int Files = 4200; // more than one chunk of rows
        var longName = new string('n', 255); // NAME_MAX
        for (var i = 0; i < Files; i++)
        {
            tree.Write(i == 4000 ? $"d{i % 61}/{longName}" : $"d{i % 61}/e{i % 7}/f{i}", $"file {i}");
        }

        var table = await Fill(tree, keyedLength: 100);
        Assert.Equal(Files, table.Count);
        var expected = new Dictionary<int, uint>();
        var rows = new ulong[(table.Count + 63) >> 6];
        long expectedBytes = 0;
        for (var r = 0; r < table.Count; r++)
        {
            // None of the first 130 rows (whole words of the mask empty at a chunk's start), then two of every three, and
            // the longest name a file can have.
            if (table.GetName(r) == longName || (r >= 130 && r % 3 != 0))
            {
                rows[r >> 6] |= 1UL << r;
                var bytes = System.Text.Encoding.UTF8.GetBytes(File.ReadAllText(table.GetPath(r).ToString()));
                expected[r] = ContentKeys.Of(bytes);
                expectedBytes += bytes.Length;
            }
        }

        Assert.Contains(Enumerable.Range(0, table.Count), r => table.GetName(r) == longName && expected.ContainsKey(r));
        long read = 0;
        var root = Dedup.Core.Paths.AbsolutePath.Parse(tree.Root);
        await using (var threads = new ScanThreads(2))
        {
            // Nothing asked, and rows outside the roots given: nothing read, nothing keyed.
            await threads.RunAsync(() => KeyPass.Run(table, new ulong[rows.Length], [root], false, threads, n => Interlocked.Add(ref read, n), default));
            Directory.CreateDirectory(tree.PathOf("elsewhere"));
            await threads.RunAsync(() => KeyPass.Run(table, rows, [Dedup.Core.Paths.AbsolutePath.Parse(tree.PathOf("elsewhere"))], false, threads, n => Interlocked.Add(ref read, n), default));
            Assert.Equal(0, Interlocked.Read(ref read));
            Assert.All(Enumerable.Range(0, table.Count), r => Assert.Equal(0u, table[r].ContentKey));

            await threads.RunAsync(() => KeyPass.Run(table, rows, [root], false, threads, n => Interlocked.Add(ref read, n), default));
        }

        Assert.All(Enumerable.Range(0, table.Count), r => Assert.Equal(expected.GetValueOrDefault(r), table[r].ContentKey));
        Assert.Equal(expectedBytes, Interlocked.Read(ref read)); // each row read once
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public async Task The_pass_keys_a_row_only_when_its_file_is_still_the_file_listed()
    {
        using var tree = new TempTree();
        foreach (var name in new[] { "kept", "changed", "replaced", "gone", "fifo", "link" })
        {
            tree.Write($"d/{name}", "same length");
        }

        var table = await Fill(tree, keyedLength: 100);

        File.WriteAllText(tree.PathOf("d/changed"), "SAME LENGTH");
        File.SetLastWriteTimeUtc(tree.PathOf("d/changed"), File.GetLastWriteTimeUtc(tree.PathOf("d/changed")).AddSeconds(5));
        var times = File.GetLastWriteTimeUtc(tree.PathOf("d/replaced"));
        tree.Write("other", "same length");
        File.SetLastWriteTimeUtc(tree.PathOf("other"), times);
        File.Move(tree.PathOf("other"), tree.PathOf("d/replaced"), overwrite: true); // another inode, same size and time
        File.Delete(tree.PathOf("d/gone"));
        File.Delete(tree.PathOf("d/fifo"));
        TempTree.Run("mkfifo", tree.PathOf("d/fifo"));                                 // never waited on
        File.Move(tree.PathOf("d/link"), tree.PathOf("target"));
        File.CreateSymbolicLink(tree.PathOf("d/link"), tree.PathOf("target"));         // the same file, through a link: not followed

        var keys = await KeyAll(tree, table);

        Assert.Equal(ContentKeys.Of("same length"u8), keys["kept"]);
        Assert.All(new[] { "changed", "replaced", "gone", "fifo", "link" }, name => Assert.Equal(0u, keys[name]));
    }

    [LinuxFact]
    public async Task A_folder_swapped_for_a_link_since_the_listing_is_not_gone_through()
    {
        using var tree = new TempTree();
        tree.Write("outer/inner/x", "same length");
        tree.Write("outer/inner/y", "same length");
        tree.Write("outer/z", "same length");
        var table = await Fill(tree, keyedLength: 100);

        // The folder now lives elsewhere and a link stands in its place: its files are the very files listed, but reached
        // through a link the listing did not follow, so they get no key (the compare stage, which refuses it too, reports them).
        Directory.Move(tree.PathOf("outer/inner"), tree.PathOf("moved"));
        Directory.CreateSymbolicLink(tree.PathOf("outer/inner"), tree.PathOf("moved"));

        var keys = await KeyAll(tree, table);

        Assert.Equal(0u, keys["x"]);
        Assert.Equal(0u, keys["y"]);
        Assert.Equal(ContentKeys.Of("same length"u8), keys["z"]);
    }

    [LinuxFact]
    public async Task Folders_reached_through_a_followed_link_are_keyed_when_links_are_followed()
    {
        using var tree = new TempTree();
        tree.Write("real/x", "same length");
        tree.Write("real/y", "same length");
        var root = Path.Combine(tree.Root, "root");
        Directory.CreateDirectory(root);
        Directory.CreateSymbolicLink(Path.Combine(root, "via"), tree.PathOf("real"));

        var finder = new DuplicateFinderBuilder().AddRoot(root).FollowSymbolicLinks().Build();
        var table = new FileTable { KeyedLength = 100, KeysWhileListing = false };
        await new ParallelFileEnumerator().FillAsync(EnumerationContexts.Create(finder.Options, new ScanErrorSink()), table, default);
        table.Seal();
        Assert.Equal(2, table.Count);

        var followed = await KeyAll(table, root, followLinks: true);
        Assert.All(followed.Values, key => Assert.Equal(ContentKeys.Of("same length"u8), key));
    }

    [LinuxFact]
    public async Task A_scan_whose_listing_keys_nothing_reads_each_small_file_once_in_the_pass_and_only_shared_keys_again()
    {
        using var tree = new TempTree();
        const int Files = 40;
        for (var i = 0; i < Files; i++)
        {
            tree.Write($"d{i % 7}/f{i:D2}", $"content {i:D2}"); // one size, every file different, in seven folders
        }

        tree.Write("copy05", "content 05");
        tree.Write("d3/copy17", "content 17");
        var watches = Enumerable.Range(0, 7).Select(d => new OpenEvents(tree.PathOf($"d{d}"))).Append(new OpenEvents(tree.Root)).ToList();

        DuplicateScanner.ListingReadsOffInThisFlow.Value = true;
        List<DuplicateGroup> groups;
        ScanSummary summary;
        try
        {
            (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root));
        }
        finally
        {
            DuplicateScanner.ListingReadsOffInThisFlow.Value = false;
        }

        Assert.Equal(
            [$"{tree.Root}/copy05 | {tree.Root}/d5/f05", $"{tree.Root}/d3/copy17 | {tree.Root}/d3/f17"],
            Scan.Canonical(groups));
        Assert.Equal((Files + 2 + 4) * 10, summary.BytesRead); // every file keyed by the pass, the two pairs read again
        var counts = watches.SelectMany(w => w.Counts()).Where(c => c.Key.Length > 0).ToDictionary(c => c.Key, c => c.Value);
        watches.ForEach(w => w.Dispose());
        Assert.All(new[] { "f05", "copy05", "f17", "copy17" }, name => Assert.True(2 == counts.GetValueOrDefault(name), string.Join(" ", counts.OrderBy(c => c.Key).Select(c => $"{c.Key}={c.Value}"))));
        Assert.All(Enumerable.Range(0, Files).Where(i => i is not (5 or 17)), i => Assert.Equal(1, counts.GetValueOrDefault($"f{i:D2}")));
    }

    private static async Task<FileTable> Fill(TempTree tree, int keyedLength)
    {
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).IncludeEmptyFiles().Build();
        var table = new FileTable { KeyedLength = keyedLength, KeysWhileListing = false };
        await new ParallelFileEnumerator().FillAsync(EnumerationContexts.Create(finder.Options, new ScanErrorSink()), table, default);
        table.Seal();
        Assert.All(Enumerable.Range(0, table.Count), r => Assert.Equal(0u, table[r].ContentKey)); // the listing read nothing
        return table;
    }

    private static Task<Dictionary<string, uint>> KeyAll(TempTree tree, FileTable table) => KeyAll(table, tree.Root, followLinks: false);

    /// <summary>Runs the pass over every row and returns each row's key by name.</summary>
    private static async Task<Dictionary<string, uint>> KeyAll(FileTable table, string root, bool followLinks)
    {
        var rows = new ulong[(table.Count + 63) >> 6];
        for (var r = 0; r < table.Count; r++)
        {
            rows[r >> 6] |= 1UL << r;
        }

        await using (var threads = new ScanThreads(2))
        {
            await threads.RunAsync(() => KeyPass.Run(table, rows, [Dedup.Core.Paths.AbsolutePath.Parse(root)], followLinks, threads, null, default));
        }

        Assert.Empty(OpenDescriptors.Under(root, includeRoot: true)); // every folder's and file's descriptor is closed
        return Enumerable.Range(0, table.Count).ToDictionary(table.GetName, r => table[r].ContentKey);
    }

    private static IEnumerable<string> RowsIn(ulong[] mask, List<string> names) =>
        Enumerable.Range(0, names.Count).Where(r => (mask[r >> 6] & (1UL << r)) != 0).Select(r => names[r]);

    private static List<string> Canonical(List<CandidateSet> sets, TempTree tree) => sets
        .Select(s => string.Join(",", s.Files.Select(n => Path.GetRelativePath(tree.Root, n.Primary.Path.ToString())).Order(StringComparer.Ordinal)))
        .Order(StringComparer.Ordinal).ToList();
}
