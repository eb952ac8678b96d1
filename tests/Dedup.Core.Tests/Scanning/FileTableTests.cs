using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.Scanning;

/// <summary>The compact file table (#17): rows written by many threads, names as bytes, the size barrier's dropping and folding.</summary>
public sealed class FileTableTests
{
    private static readonly AbsolutePath Folder = AbsolutePath.Parse("/data/folder");

    private static FileRow Row(long length, ulong inode, int links = 1, ulong device = 0x0000000800000001) => new()
    {
        Identity = new FileIdentity(device, inode),
        Length = length,
        LastWriteTimeNs = 1_700_000_000_123_456_789,
        ChangeTimeNs = 1_700_000_001_987_654_321,
        LinkCount = links,
        OwnerId = 1000,
    };

    [Fact]
    public async Task Rows_written_by_many_threads_are_all_there_once_sealed_with_their_names_as_bytes()
    {
        const int Threads = 6, PerThread = FileTable.BlockSize + 3000; // every writer fills a block and part of another
        long reported = 0;
        var table = new FileTable(filesAdded: n => Interlocked.Add(ref reported, n));
        await Task.WhenAll(Enumerable.Range(0, Threads).Select(t => Task.Run(() =>
        {
            var writer = table.CreateWriter();
            var folder = table.AddFolder(Folder.Child($"t{t}"));
            for (var i = 0; i < PerThread; i++)
            {
                byte[] name = [.. System.Text.Encoding.UTF8.GetBytes($"f{t}-{i}"), 0xFF]; // not valid UTF-8
                writer.Add(folder, name, Row(i + 1, (ulong)((t * PerThread) + i + 1)));
                if (i % 100 == 99)
                {
                    writer.EndFolder();
                }
            }

            writer.Complete();
        })));
        table.Seal();

        Assert.Equal(Threads * PerThread, table.Count);
        Assert.Equal(Threads * PerThread, Interlocked.Read(ref reported));
        var seen = new bool[Threads * PerThread];
        for (var r = 0; r < table.Count; r++)
        {
            var row = table[r];
            var index = (int)row.Identity.FileId - 1;
            Assert.False(seen[index]);
            seen[index] = true;
            var (t, i) = (index / PerThread, index % PerThread);
            Assert.Equal(i + 1, row.Length);
            Assert.Equal([.. System.Text.Encoding.UTF8.GetBytes($"f{t}-{i}"), 0xFF], table.Names.GetBytes(row.Name).ToArray());
            Assert.Equal($"/data/folder/t{t}/f{t}-{i}\uDCFF", table.GetPath(r).ToString());
        }
    }

    [Fact]
    public void A_row_becomes_a_scanned_file_with_every_field_and_its_path_only_when_asked()
    {
        var table = new FileTable();
        var writer = table.CreateWriter();
        writer.Add(table.AddFolder(Folder), "name.txt"u8, Row(42, 7, links: 3));
        writer.Complete();
        table.Seal();

        var file = table.ToScannedFile(0);
        Assert.Equal(42, file.Length);
        Assert.Equal(new FileIdentity(0x0000000800000001, 7), file.Identity);
        Assert.Equal(3, file.LinkCount);
        Assert.Equal(1000u, file.OwnerId);
        Assert.Equal(1_700_000_000_123_456_789, file.LastWriteTimeNs);
        Assert.Equal(1_700_000_001_987_654_321, file.ChangeTimeNs);
        Assert.Equal(new DateTime(2023, 11, 14, 22, 13, 20, DateTimeKind.Utc).AddTicks(1_234_567), file.LastWriteTimeUtc);
        Assert.Same(Folder, file.Folder);
        Assert.Equal("name.txt"u8.ToArray(), file.NameBytes.ToArray());
        Assert.Equal("/data/folder/name.txt", file.Path.ToString());
        Assert.Same(file.Path, file.Path);
    }

    [Fact]
    public void Names_that_are_not_kernel_bytes_or_too_long_for_a_chunk_are_kept_exactly_as_strings()
    {
        var table = new FileTable();
        var writer = table.CreateWriter();
        var folder = table.AddFolder(Folder);
        var unpaired = "odd\uD800name"; // a Windows name with an unpaired high surrogate: no byte form
        var escaped = "caf\uDCE9";      // an escaped byte: stored as the byte 0xE9
        var longName = new string('x', 20_000);
        writer.Add(folder, unpaired, Row(1, 1));
        writer.Add(folder, escaped, Row(1, 2));
        writer.Add(folder, longName, Row(1, 3));
        writer.Add(folder, new byte[17_000].Select(_ => (byte)'y').ToArray(), Row(1, 4));
        writer.Complete();
        table.Seal();

        Assert.Equal(unpaired, table.GetName(0));
        Assert.True(table.Names.GetBytes(table[0].Name).IsEmpty);
        Assert.Equal(escaped, table.GetName(1));
        Assert.Equal(new byte[] { (byte)'c', (byte)'a', (byte)'f', 0xE9 }, table.Names.GetBytes(table[1].Name).ToArray());
        Assert.Equal(longName, table.GetName(2));
        Assert.Equal(new string('y', 17_000), table.GetName(3));
        Assert.True(table.ToScannedFile(0).NameBytes.IsEmpty); // the reader then opens by the path
        Assert.Equal("/data/folder/" + unpaired, table.ToScannedFile(0).Path.ToString());
    }

    [Fact]
    public void Empty_files_are_counted_but_not_kept_unless_asked()
    {
        long seen = 0;
        var table = new FileTable(includeEmptyFiles: false, filesAdded: n => seen += n);
        var writer = table.CreateWriter();
        var folder = table.AddFolder(Folder);
        writer.Add(folder, "empty"u8, Row(0, 1));
        writer.Add(folder, "full"u8, Row(5, 2));
        writer.Complete();
        table.Seal();

        Assert.Equal(2, seen);
        Assert.Equal(1, table.Count);
        Assert.Equal("full", table.GetName(0));
    }

    [Theory]
    [InlineData(0, 0)]
    [InlineData(150, 1)]
    [InlineData(199, 1)]
    [InlineData(-1, -1)]
    [InlineData(-100, -1)]
    [InlineData(-101, -2)]
    public void Nanoseconds_become_ticks_rounded_down_also_before_1970(long unixNs, long ticksFromEpoch)
    {
        Assert.Equal(DateTime.UnixEpoch.AddTicks(ticksFromEpoch), FileTable.ToDateTime(unixNs));
        Assert.Equal(DateTimeKind.Utc, FileTable.ToDateTime(unixNs).Kind);
    }

    [Fact]
    public void The_size_barrier_drops_unique_sizes_and_lone_links_folds_hard_links_and_renumbers_the_rest()
    {
        var table = new FileTable();
        var writer = table.CreateWriter();
        var folder = table.AddFolder(Folder);
        writer.Add(folder, "u20"u8, Row(20, 1));            // unique size: dropped
        writer.Add(folder, "a10"u8, Row(10, 2, links: 2));  // a10 and b10 are one file
        writer.Add(folder, "l30"u8, Row(30, 3, links: 2));  // l30 and m30: one file, no other of its size: dropped
        writer.Add(folder, "c10"u8, Row(10, 4));
        writer.Add(folder, "b10"u8, Row(10, 2, links: 2));
        writer.Add(folder, "m30"u8, Row(30, 3, links: 2));
        writer.Add(folder, "x40"u8, Row(40, 6));
        writer.Add(folder, "y40"u8, Row(40, 5));
        writer.Complete();

        var sets = SizeBarrier.Split(table, keepSingles: false).OrderBy(s => s.Size).ToList();

        Assert.Equal(5, table.Count); // the unique size and the lone file's two names are gone from the table
        Assert.Equal([10L, 40L], sets.Select(s => s.Size));
        var tens = sets[0];
        Assert.Equal(2, tens.Count);
        Assert.Equal(2 * 10, tens.Cost);
        var nodes = tens.Files;
        Assert.Equal(2, nodes.Count);
        var linked = Assert.Single(nodes, n => n.Primary.Identity.FileId == 2);
        Assert.Equal("/data/folder/a10", linked.Primary.Path.ToString()); // the first listed name opens the file
        Assert.Equal(["/data/folder/b10"], linked.OtherNames!.Select(p => p.ToString()));
        Assert.Equal("/data/folder/c10", Assert.Single(nodes, n => n.Primary.Identity.FileId == 4).Primary.Path.ToString());

        // Within a size, files are in identity order (inode order on one device).
        Assert.Equal([5UL, 6UL], sets[1].Files.Select(n => n.Primary.Identity.FileId));
        Assert.Equal(["/data/folder/y40", "/data/folder/x40"], sets[1].Files.Select(n => n.Primary.Path.ToString()));

        // Released nodes are made again, equal.
        tens.Release();
        Assert.NotSame(nodes, tens.Files);
        Assert.Equal(nodes.Select(n => n.Primary.Path), tens.Files.Select(n => n.Primary.Path));
    }

    [Fact]
    public void Media_mode_keeps_every_size_including_lone_files()
    {
        var table = new FileTable();
        var writer = table.CreateWriter();
        var folder = table.AddFolder(Folder);
        writer.Add(folder, "u20"u8, Row(20, 1));
        writer.Add(folder, "l30"u8, Row(30, 3, links: 2));
        writer.Add(folder, "m30"u8, Row(30, 3, links: 2));
        writer.Complete();

        var sets = SizeBarrier.Split(table, keepSingles: true).OrderBy(s => s.Size).ToList();

        Assert.Equal(3, table.Count);
        Assert.Equal([(20L, 1), (30L, 1)], sets.Select(s => (s.Size, s.Count)));
        Assert.Equal(["/data/folder/m30"], Assert.Single(sets[1].Files).OtherNames!.Select(p => p.ToString()));
    }

    [Fact]
    public void Dropping_rows_frees_whole_blocks_and_keeps_every_kept_row_addressable()
    {
        var table = new FileTable();
        var writer = table.CreateWriter();
        var folder = table.AddFolder(Folder);
        const int Rows = (3 * FileTable.BlockSize) + 100;
        for (var i = 0; i < Rows; i++)
        {
            // Every 1000th row shares its size with the next one; the rest are unique.
            var size = i % 1000 == 1 ? i - 1 : i;
            writer.Add(folder, System.Text.Encoding.UTF8.GetBytes($"n{i}"), Row(size + 1, (ulong)i + 1));
        }

        writer.Complete();
        var sets = SizeBarrier.Split(table, keepSingles: false);

        var expectedPairs = Enumerable.Range(0, Rows).Count(i => i % 1000 == 1);
        Assert.Equal(expectedPairs, sets.Count);
        Assert.Equal(2 * expectedPairs, table.Count);
        foreach (var set in sets)
        {
            var names = set.Files.Select(n => n.Primary.Path.Name).Order().ToArray();
            var first = int.Parse(names[0].AsSpan(1), System.Globalization.CultureInfo.InvariantCulture);
            Assert.Equal([$"n{first}", $"n{first + 1}"], names);
            Assert.Equal(first + 1, set.Size);
        }
    }

    [Theory]
    [InlineData(false, int.MaxValue)]   // placed by counting sizes
    [InlineData(false, 0)]              // sorted: too many sizes to count
    [InlineData(false, null)]           // the default: this tree has more sizes than an eighth of its rows, so sorted
    [InlineData(true, int.MaxValue)]
    [InlineData(true, 0)]
    public void The_size_barrier_keeps_exactly_the_rows_that_can_have_a_duplicate_whether_it_counts_or_sorts(bool keepSingles, int? maxSizesCounted)
    {
        // Three blocks and more of rows: few shared sizes, lone sizes, hard-link pairs alone in their size or beside a
        // copy, in an order unrelated to size, so that kept rows are spread over every 64-row word of the keep bits.
        var random = new Random(17);
        var model = new List<(string Name, long Size, ulong Inode)>();
        var table = new FileTable();
        var writer = table.CreateWriter();
        var folder = table.AddFolder(Folder);
        for (var i = 0; i < (3 * FileTable.BlockSize) + 777; i++)
        {
            var (size, inode) = random.Next(10) switch
            {
                < 4 => (random.Next(1, 300), (ulong)i + 1),                  // shared sizes
                < 8 => (1_000_000L + i, (ulong)i + 1),                       // a size of its own
                8 => (2_000_000L + (i / 2), 10_000_000UL + (ulong)(i / 2)),  // two names of one file, alone in their size
                _ => (random.Next(1, 300), 20_000_000UL + (ulong)random.Next(50)), // links among the shared sizes
            };
            var name = $"n{i}";
            model.Add((name, size, inode));
            writer.Add(folder, System.Text.Encoding.UTF8.GetBytes(name), Row(size, inode));
        }

        writer.Complete();
        var sets = SizeBarrier.Split(table, keepSingles, maxSizesCounted);

        var expected = model.GroupBy(f => f.Size)
            .Where(g => keepSingles || g.Select(f => f.Inode).Distinct().Count() >= 2)
            .OrderBy(g => g.Key)
            .Select(g => (g.Key, Names: g.OrderBy(f => f.Inode).ThenBy(f => int.Parse(f.Name.AsSpan(1), System.Globalization.CultureInfo.InvariantCulture)).Select(f => f.Name).ToArray()))
            .ToList();
        Assert.Equal(expected.Select(e => e.Key), sets.Select(s => s.Size));
        Assert.Equal(expected.Sum(e => e.Names.Length), table.Count);
        for (var s = 0; s < sets.Count; s++)
        {
            // Rows renumbered after the drop still address their own files, in identity then listing order.
            Assert.Equal(expected[s].Names, sets[s].Rows.ToArray().Select(table.GetName));
            Assert.All(sets[s].Rows.ToArray(), r => Assert.Equal(sets[s].Size, table[r].Length));
            Assert.Equal(expected[s].Names.Length, sets[s].Files.Sum(n => 1 + (n.OtherNames?.Count ?? 0)));
        }

        Assert.Equal(model.Count, keepSingles ? table.Count : model.Count); // nothing dropped when every size is kept
    }

    [LinuxFact(RequiresRoot = true)]
    public async Task A_folder_bind_mounted_inside_itself_is_listed_once_without_the_folder_set()
    {
        using var tree = new TempTree();
        tree.Write("a/one.bin", "same");
        tree.Write("a/two.bin", "same");
        Directory.CreateDirectory(tree.PathOf("a/inner/mnt"));
        TempTree.Run("mount", "--bind", tree.PathOf("a"), tree.PathOf("a/inner/mnt"));
        try
        {
            var (groups, summary) = await Scan.RunAsync(b => b.AddRoot(tree.PathOf("a")));

            // The bind mount shows folder a again (same device and inode): an enclosing folder, so not entered.
            var group = Assert.Single(groups);
            Assert.Equal([tree.PathOf("a/one.bin"), tree.PathOf("a/two.bin")], group.Files.Select(f => f.Path.ToString()));
            Assert.All(group.Files, f => Assert.Empty(f.OtherLinks));
            Assert.Equal(2, summary.FilesScanned);
        }
        finally
        {
            TempTree.Run("umount", tree.PathOf("a/inner/mnt"));
        }
    }

    [Fact]
    public void A_writer_fills_a_block_before_starting_the_next_and_packing_after_drops_frees_the_rest()
    {
        var table = new FileTable();
        var a = table.CreateWriter();
        var b = table.CreateWriter();
        var folder = table.AddFolder(Folder);
        for (var i = 0; i < FileTable.BlockSize + 1; i++)
        {
            a.Add(folder, "a"u8, Row(i + 1, (ulong)i + 1));
        }

        b.Add(folder, "b"u8, Row(1, 1_000_000));
        a.Complete();
        b.Complete();
        Assert.Equal(3, table.BlockCount); // a's full block, a's one-row block, b's one-row block

        var sets = SizeBarrier.Split(table, keepSingles: false); // only size 1 has two files
        Assert.Equal(2, table.Count);
        Assert.Equal(1, table.BlockCount);
        Assert.Equal(["a", "b"], Assert.Single(sets).Files.Select(n => n.Primary.Path.Name).Order());

        var again = new FileTable();
        var c = again.CreateWriter();
        var d = again.CreateWriter();
        var f = again.AddFolder(Folder);
        for (var i = 0; i < 10; i++)
        {
            c.Add(f, "c"u8, Row(7, (ulong)i + 1));
            d.Add(f, "d"u8, Row(8, (ulong)i + 100));
        }

        c.Complete();
        d.Complete();
        again.Seal();
        Assert.Equal(1, again.BlockCount); // two partial blocks packed into one
        Assert.Equal(20, again.Count);
        Assert.Equal(10, Enumerable.Range(0, 20).Count(r => again[r].Length == 8 && again.GetName(r) == "d"));
    }

    [Fact]
    public void Names_of_every_length_up_to_the_chunk_limit_and_across_many_chunks_come_back_exactly()
    {
        var table = new FileTable();
        var writer = table.CreateWriter();
        var folder = table.AddFolder(Folder);
        var names = new List<byte[]>();
        var random = new Random(17);
        foreach (var length in new[] { 1, 255, 256, 257, 300, 4096, 16 * 1024, (16 * 1024) + 1, 65_000 })
        {
            var name = new byte[length];
            random.NextBytes(name);
            for (var i = 0; i < name.Length; i++)
            {
                name[i] = name[i] is 0 or (byte)'/' ? (byte)'z' : name[i];
            }

            names.Add(name);
        }

        // Enough names to need more than the arena's first 16 chunks, each crossing chunk ends at odd places.
        for (var i = 0; i < 12_000; i++)
        {
            names.Add(System.Text.Encoding.UTF8.GetBytes(new string((char)('a' + (i % 26)), 1 + (i % 200))));
        }

        for (var i = 0; i < names.Count; i++)
        {
            writer.Add(folder, names[i], Row(1, (ulong)i + 1));
        }

        writer.Complete();
        table.Seal();

        Assert.True(table.Names.ChunkCount > 16);
        for (var i = 0; i < names.Count; i++)
        {
            var expected = KernelNames.GetString(names[i]);
            Assert.Equal(expected, table.GetName(i));
            if (names[i].Length <= 16 * 1024)
            {
                Assert.Equal(names[i], table.Names.GetBytes(table[i].Name).ToArray());
            }
            else
            {
                Assert.True(table.Names.GetBytes(table[i].Name).IsEmpty); // kept as a string beside the chunks
            }
        }
    }

    [Fact]
    public void A_custom_enumerators_files_are_copied_in_numbering_each_folder_once()
    {
        long seen = 0;
        var table = new FileTable(includeEmptyFiles: false, filesAdded: n => seen += n);
        var other = Folder.Child("other");
        table.Add(new ScannedFile(Folder.Child("x"), 5, new FileIdentity(1, 1), 1, DateTime.UnixEpoch.AddTicks(10)));
        table.Add(new ScannedFile(other.Child("y"), 5, new FileIdentity(1, 2), 1, DateTime.UnixEpoch));
        table.Add(new ScannedFile(Folder.Child("z"), 5, new FileIdentity(1, 3), 1, DateTime.UnixEpoch));
        table.Add(new ScannedFile(Folder.Child("empty"), 0, new FileIdentity(1, 4), 1, DateTime.UnixEpoch));
        table.Seal();

        Assert.Equal(4, seen);
        Assert.Equal(3, table.Count);
        Assert.Equal(2, table.FolderCount);
        Assert.Equal(table[0].Folder, table[2].Folder);
        Assert.NotEqual(table[0].Folder, table[1].Folder);
        Assert.Equal(["/data/folder/x", "/data/folder/other/y", "/data/folder/z"], Enumerable.Range(0, 3).Select(r => table.GetPath(r).ToString()));
        Assert.Equal(1000, table[0].LastWriteTimeNs);
    }

    [Fact]
    public void A_sets_nodes_are_made_once_until_released()
    {
        var table = new FileTable();
        var writer = table.CreateWriter();
        var folder = table.AddFolder(Folder);
        writer.Add(folder, "a"u8, Row(3, 1));
        writer.Add(folder, "b"u8, Row(3, 2));
        writer.Complete();
        var set = Assert.Single(SizeBarrier.Split(table, keepSingles: false));

        Assert.Same(set.Files, set.Files);
        Assert.Same(set.Files[0], set.Files[0]);
    }

    [Fact]
    public void Of_many_names_of_one_file_the_first_listed_opens_it()
    {
        var table = new FileTable();
        var writer = table.CreateWriter();
        var folder = table.AddFolder(Folder);
        writer.Add(folder, "other"u8, Row(9, 1));
        for (var i = 0; i < 60; i++)
        {
            writer.Add(folder, System.Text.Encoding.UTF8.GetBytes($"link{i:D2}"), Row(9, 2, links: 60));
        }

        writer.Complete();
        var node = Assert.Single(Assert.Single(SizeBarrier.Split(table, keepSingles: false)).Files, n => n.Primary.Identity.FileId == 2);

        Assert.Equal("link00", node.Primary.Path.Name);
        Assert.Equal(Enumerable.Range(1, 59).Select(i => $"link{i:D2}"), node.OtherNames!.Select(p => p.Name));
    }
}
