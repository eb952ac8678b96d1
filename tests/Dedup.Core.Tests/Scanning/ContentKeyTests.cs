using Dedup.Core.Diagnostics;
using Dedup.Core.Enumeration;
using Dedup.Core.Interop;
using Dedup.Core.Paths;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>
/// Small files keyed while their folder is listed (#17 session 16): the key is a hash of the bytes of the file that was
/// listed, or none; the size barrier drops files whose key no other file of their size has, and still leaves every
/// possible duplicate to the byte comparison; a scan opens a small file a second time only when its key is shared.
/// </summary>
public sealed class ContentKeyTests
{
    [LinuxFact]
    public async Task The_walk_keys_small_files_by_their_bytes_and_counts_what_it_read()
    {
        using var tree = new TempTree();
        tree.Write("a", "same bytes");
        tree.Write("sub/b", "same bytes");
        tree.Write("c", "other byte");
        tree.Write("limit", new byte[100]);
        tree.Write("over", new byte[101]);
        tree.Write("empty", []);

        long read = 0;
        var table = new FileTable(bytesRead: n => Interlocked.Add(ref read, n)) { KeyedLength = 100 };
        await Fill(tree, table);
        var keys = Keys(table);

        Assert.Equal(ContentKeys.Of("same bytes"u8), keys["a"]);
        Assert.Equal(keys["a"], keys["b"]);
        Assert.Equal(ContentKeys.Of("other byte"u8), keys["c"]);
        Assert.NotEqual(keys["a"], keys["c"]);
        Assert.Equal(ContentKeys.Of(new byte[100]), keys["limit"]);
        Assert.Equal(0u, keys["over"]);
        Assert.Equal(0u, keys["empty"]);
        Assert.Equal(10 + 10 + 10 + 100, Interlocked.Read(ref read));

        var plain = new FileTable();
        await Fill(tree, plain);
        Assert.All(Keys(plain).Values, key => Assert.Equal(0u, key));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true)); // every key's descriptor is closed
    }

    [LinuxFact]
    public async Task A_file_of_exactly_the_largest_keyed_length_is_keyed()
    {
        using var tree = new TempTree();
        var largest = TempTree.RandomBytes(FileTable.MaxKeyedLength, 7);
        tree.Write("largest", largest);
        tree.Write("larger", TempTree.RandomBytes(FileTable.MaxKeyedLength + 1, 8));

        var table = new FileTable { KeyedLength = FileTable.MaxKeyedLength };
        await Fill(tree, table);

        Assert.Equal(ContentKeys.Of(largest), Keys(table)["largest"]);
        Assert.Equal(0u, Keys(table)["larger"]);
    }

    [LinuxFact]
    public unsafe void A_file_is_keyed_only_if_it_is_still_the_file_listed()
    {
        using var tree = new TempTree();
        var path = tree.Write("f", "listed bytes");
        var folder = Libc.OpenAt(Libc.AT_FDCWD, tree.Root, Libc.O_RDONLY | Libc.O_DIRECTORY | Libc.O_CLOEXEC, 0);
        Assert.True(folder >= 0);
        try
        {
            var listed = StatOf(folder);
            Assert.Equal(ContentKeys.Of("listed bytes"u8), KeyOf(folder, &listed));

            // Same size, other bytes, a later modification time: changed since it was listed.
            File.WriteAllText(path, "listed BYTES");
            File.SetLastWriteTimeUtc(path, File.GetLastWriteTimeUtc(path).AddSeconds(5));
            Assert.Equal(0u, KeyOf(folder, &listed));

            // Replaced by another file (another inode) of the same size and time.
            listed = StatOf(folder);
            tree.Write("g", "listed BYTES");
            File.SetLastWriteTimeUtc(tree.PathOf("g"), File.GetLastWriteTimeUtc(path));
            File.Move(tree.PathOf("g"), path, overwrite: true);
            Assert.Equal(0u, KeyOf(folder, &listed));

            // A link or a FIFO swapped in is neither followed nor waited on.
            listed = StatOf(folder);
            File.Delete(path);
            File.CreateSymbolicLink(path, tree.Write("target", "listed BYTES"));
            Assert.Equal(0u, KeyOf(folder, &listed));
            File.Delete(path);
            TempTree.Run("mkfifo", path);
            Assert.Equal(0u, KeyOf(folder, &listed));
        }
        finally
        {
            _ = Libc.Close(folder);
        }

        static StatxBuffer StatOf(int folder)
        {
            Assert.Equal(0, Libc.Statx(folder, "f", Libc.AT_SYMLINK_NOFOLLOW, Libc.STATX_BASIC_STATS, out var stat));
            return stat;
        }

        static uint KeyOf(int folder, StatxBuffer* listed)
        {
            fixed (byte* name = "f\0"u8)
            {
                return ContentKeys.Read(folder, name, listed);
            }
        }
    }

    [Fact]
    public void The_barrier_splits_a_size_by_key_only_where_every_row_has_one()
    {
        var table = new FileTable { KeyedLength = 1000 };
        var writer = table.CreateWriter();
        var folder = table.AddFolder(AbsolutePath.Parse("/data"));
        void Add(string name, long length, ulong inode, uint key) => writer.Add(folder, System.Text.Encoding.UTF8.GetBytes(name), new FileRow
        {
            Identity = new FileIdentity(1, inode),
            Length = length,
            LinkCount = 1,
            ContentKey = key,
        });

        Add("a1", 100, 1, 7); // a pair by key, beside two that are alone in theirs
        Add("a2", 100, 2, 7);
        Add("a3", 100, 3, 8);
        Add("a4", 100, 4, 9);
        Add("b1", 200, 5, 3); // two names of one file: no duplicate
        Add("b2", 200, 5, 3);
        Add("c1", 300, 6, 4); // one row without a key: the size stays whole
        Add("c2", 300, 7, 0);
        Add("c3", 300, 8, 5);
        Add("d1", 2000, 9, 1); // beyond the keyed length: by size alone
        Add("d2", 2000, 10, 2);
        Add("e1", 400, 11, 1); // a size of two files with different keys: both dropped
        Add("e2", 400, 12, 2);
        Add("f1", 1000, 13, 1); // the keyed length itself is split too
        Add("f2", 1000, 14, 2);
        Add("g1", 500, 15, 6); // two names of one file apart in listing order, and another file of the same key
        Add("g2", 500, 16, 6);
        Add("g3", 500, 15, 6);
        writer.Complete();

        var sets = SizeBarrier.Split(table, keepSingles: false);

        var byName = sets.Select(s => string.Join(",", s.Files.SelectMany(n => (n.OtherNames ?? []).Prepend(n.Primary.Path)).Select(p => p.Name).Order(StringComparer.Ordinal)))
            .Order(StringComparer.Ordinal).ToList();
        Assert.Equal(["a1,a2", "c1,c2,c3", "d1,d2", "g1,g2,g3"], byName);
        Assert.Equal(10, table.Count); // a3, a4, b1, b2, e1, e2, f1 and f2 dropped
        Assert.Equal(2, sets.Single(s => s.Size == 500).Files.Count); // g1 and g3 are one file with two names
    }

    [Fact]
    public void With_singles_kept_the_barrier_does_not_split_by_key()
    {
        var table = new FileTable { KeyedLength = 1000 };
        var writer = table.CreateWriter();
        var folder = table.AddFolder(AbsolutePath.Parse("/data"));
        writer.Add(folder, "x"u8, new FileRow { Identity = new FileIdentity(1, 1), Length = 10, LinkCount = 1, ContentKey = 1 });
        writer.Add(folder, "y"u8, new FileRow { Identity = new FileIdentity(1, 2), Length = 10, LinkCount = 1, ContentKey = 2 });
        writer.Complete();

        var sets = SizeBarrier.Split(table, keepSingles: true);

        Assert.Equal(2, Assert.Single(sets).Files.Count);
    }

    [LinuxFact]
    public async Task A_scan_opens_a_small_file_again_only_when_another_of_its_size_has_its_key()
    {
        using var tree = new TempTree();
        const int Files = 40;
        for (var i = 0; i < Files; i++)
        {
            tree.Write($"f{i:D2}", $"content {i:D2}"); // one size, every file different
        }

        tree.Write("copy05", "content 05");
        tree.Write("copy17", "content 17");
        using var opens = new OpenEvents(tree.Root);

        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root));

        Assert.Equal(
            [$"{tree.Root}/copy05 | {tree.Root}/f05", $"{tree.Root}/copy17 | {tree.Root}/f17"],
            Scan.Canonical(groups));
        var counts = opens.Counts();
        foreach (var name in new[] { "f05", "copy05", "f17", "copy17" })
        {
            Assert.Equal(2, counts.GetValueOrDefault(name)); // keyed while listed, then compared byte for byte
        }

        Assert.All(Enumerable.Range(0, Files).Where(i => i is not (5 or 17)), i => Assert.Equal(1, counts.GetValueOrDefault($"f{i:D2}")));
        Assert.Equal((Files + 2 + 4) * 10, summary.BytesRead); // every key's read, and the two pairs read again
    }

    [LinuxFact]
    public void Only_a_plain_whole_file_scan_off_rotational_disks_reads_while_listing()
    {
        using var tree = new TempTree();
        Assert.True(Keys(b => b.AddRoot(tree.Root)));
        Assert.False(Keys(b => b.AddRoot(tree.Root).UseCache(new Dedup.Core.Caching.Sqlite.SqliteHashCache(Path.Combine(tree.Root, "cache.db")))));
        Assert.False(Keys(b => b.AddRoot(tree.Root).WithDriveKind(tree.Root, Dedup.Core.Topology.DriveKind.Hdd)));
        Assert.False(Keys(b => b.AddRoot(tree.Root).UseFolderMode()));
        Assert.False(Keys(b => b.AddRoot(tree.Root).UseFileEnumerator(new ListingEnumerator())));
        Assert.False(Keys(b => b.AddRoot(tree.Root), new Dedup.Core.Folders.FolderScan(new DuplicateFinderBuilder().AddRoot(tree.Root).Build().Options)));

        static bool Keys(Action<DuplicateFinderBuilder> configure, ICompareStage? stage = null)
        {
            var builder = new DuplicateFinderBuilder();
            configure(builder);
            var finder = (BuiltDuplicateFinder)builder.Build();
            var options = finder.Options;
            var composed = ScanComposition.Compose(options, finder.Stores, callbacks: null);
            var run = stage is null ? composed : new ScanRun(options, stage, composed.Features);
            run.Context.CaptureRoots();
            run.Context.CaptureDrives(); // as a scan does when it starts: declared drive kinds apply from then
            return DuplicateScanner.KeysWhileListing(run);
        }
    }

    /// <summary>A custom enumerator: the walk's rows are not its rows, so nothing is keyed.</summary>
    private sealed class ListingEnumerator : IFileEnumerator
    {
        public IAsyncEnumerable<ScannedFile> EnumerateAsync(FileEnumerationContext context, CancellationToken cancellationToken = default) =>
            new ParallelFileEnumerator().EnumerateAsync(context, cancellationToken);
    }

    private static async Task Fill(TempTree tree, FileTable table)
    {
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).IncludeEmptyFiles().Build();
        await new ParallelFileEnumerator().FillAsync(EnumerationContexts.Create(finder.Options, new ScanErrorSink()), table, default);
        table.Seal();
    }

    private static Dictionary<string, uint> Keys(FileTable table) =>
        Enumerable.Range(0, table.Count).ToDictionary(r => table.GetName(r), r => table[r].ContentKey);
}
