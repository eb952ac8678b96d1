using Dedup.Core.Comparison;
using Dedup.Core.Enumeration;
using Dedup.Core.FileSystem;
using Dedup.Core.IO;
using Dedup.Core.Paths;
using Dedup.Core.Scanning;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.FileSystem;

/// <summary>
/// Files are opened relative to cached folder descriptors on Linux; the scan must find the same groups and
/// close every descriptor it opened, whether enumerated to the end or abandoned after the first group.
/// </summary>
public sealed class FolderHandlesTests
{
    [LinuxFact]
    public async Task Folder_descriptors_are_closed_when_the_scan_ends()
    {
        using var tree = BuildTree();
        var (groups, _) = await Scan.RunAsync(f => f.AddRoot(tree.Root));

        Assert.Equal(40, groups.Count);
        Assert.All(groups, g => Assert.Equal(3, g.Files.Count));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public async Task Folder_descriptors_are_closed_when_the_caller_stops_early()
    {
        using var tree = BuildTree();
        var scan = new DuplicateFinderBuilder().AddRoot(tree.Root).Build().FindAsync();
        var received = false;
        await foreach (var group in scan)
        {
            received = true;
            Assert.Equal(3, group.Files.Count);
            break;
        }

        Assert.True(received, "the scan yielded no group, so the caller never stopped early");
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public void The_cache_keeps_one_descriptor_per_folder_up_to_its_capacity_and_none_after_it_is_disposed()
    {
        using var tree = new TempTree();
        var handles = new FolderHandles();
        var capacity = handles.Capacity;
        Assert.InRange(capacity, 1, 16384);
        var root = AbsolutePath.Parse(tree.Root);
        var folders = Enumerable.Range(0, capacity + 20).Select(i => root.Child(Directory.CreateDirectory(tree.PathOf($"d{i}")).Name)).ToArray();

        var fds = folders.Select(handles.Get).ToArray();
        var given = fds.TakeWhile(fd => fd >= 0).ToArray();
        Assert.Equal(capacity, handles.Count); // full
        // The tree's root and its ancestors were opened first (each folder is opened relative to its parent).
        var ancestors = root.ToString().Count(c => c == '/') + 1;
        Assert.Equal(capacity - ancestors, given.Length);
        Assert.All(given, fd => Assert.True(fd > 2, $"descriptor {fd}"));
        Assert.Equal(given.Length, given.Distinct().Count());
        Assert.All(fds.Skip(given.Length), fd => Assert.Equal(-1, fd)); // full: opened from an ancestor
        Assert.Equal(fds, folders.Select(handles.Get)); // cached: the same descriptor again
        Assert.Equal(given.Length + 1, OpenDescriptors.Under(tree.Root, includeRoot: true).Count);
        Assert.Equal(folders[0].ToString(), DescriptorTarget(given[0]));

        handles.Dispose();
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
        Assert.Equal(-1, handles.Get(folders[0]));

        // A cache with room left opens nothing once the scan is torn down.
        var other = new FolderHandles();
        Assert.True(other.Get(folders[0]) > 2);
        other.Dispose();
        Assert.Equal(-1, other.Get(folders[1]));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public void A_file_is_located_by_its_name_in_its_folder_then_from_its_nearest_cached_ancestor_once_the_cache_is_full()
    {
        using var tree = new TempTree();
        var root = AbsolutePath.Parse(tree.Root);
        Directory.CreateDirectory(tree.PathOf("deep/a/b"));
        var deep = root.Child("deep");
        var b = deep.Child("a").Child("b");
        using var handles = new FolderHandles();
        var buffer = new byte[4096];

        // Room left: the folder gets its own descriptor, and the name alone is written.
        var fd = handles.Locate(deep, "x.bin"u8, buffer, out _);
        Assert.Equal(tree.PathOf("deep"), DescriptorTarget(fd));
        Assert.Equal("x.bin", Written(buffer));

        // Full: a folder without a descriptor is reached from its nearest cached ancestor by the components below it.
        for (var i = 0; handles.Count < handles.Capacity; i++)
        {
            Directory.CreateDirectory(tree.PathOf($"fill{i}"));
            Assert.True(handles.Get(root.Child($"fill{i}")) > 2);
        }

        fd = handles.Locate(b, "y.bin"u8, buffer, out _);
        Assert.Equal(tree.PathOf("deep"), DescriptorTarget(fd));
        Assert.Equal("a/b/y.bin", Written(buffer));
        Assert.Equal(-1, handles.Get(b));

        // A name that does not fit is refused, not cut.
        Assert.Equal(int.MinValue, handles.Locate(b, new byte[4092], buffer, out _));
    }

    [LinuxFact]
    public void A_folder_replaced_by_a_link_is_not_opened_through_it_and_is_reached_by_path_from_its_parent()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("real"));
        File.CreateSymbolicLink(tree.PathOf("moved"), tree.PathOf("real"));
        var root = AbsolutePath.Parse(tree.Root);
        using var handles = new FolderHandles();
        var buffer = new byte[4096];

        var fd = handles.Locate(root.Child("moved"), "x.bin"u8, buffer, out _);

        // The link is not followed to make a descriptor: the open goes through the parent's, where the kernel's walk (and
        // then the identity check of the file opened) applies.
        Assert.Equal(tree.Root, DescriptorTarget(fd));
        Assert.Equal("moved/x.bin", Written(buffer));
        Assert.Equal(-1, handles.Get(root.Child("moved")));
        Assert.DoesNotContain(tree.PathOf("real"), OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public void The_last_check_goes_through_a_folder_descriptor_only_while_that_folder_is_still_at_its_path()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("deep/a/b"));
        var root = AbsolutePath.Parse(tree.Root);
        var a = root.Child("deep").Child("a");
        var b = a.Child("b");
        var buffer = new byte[4096];

        // Still where it was listed: one name below the folder's descriptor, as the open used.
        using (var handles = new FolderHandles())
        {
            var fd = handles.Locate(a, "x.bin"u8, buffer, out _);
            Assert.Equal(fd, handles.LocateAtPath(a, "x.bin"u8, buffer));
            Assert.Equal("x.bin", Written(buffer));
        }

        // The folder renamed after its descriptor was made, and another made at its path: the descriptor still reaches
        // the old folder, so the check must go by the path the report will show.
        using (var handles = new FolderHandles())
        {
            Assert.True(handles.Get(a) > 2);
            Directory.Move(tree.PathOf("deep/a"), tree.PathOf("deep/moved"));
            Directory.CreateDirectory(tree.PathOf("deep/a"));
            Assert.Equal(Dedup.Core.Interop.Libc.AT_FDCWD, handles.LocateAtPath(a, "x.bin"u8, buffer));
            Assert.Equal(tree.PathOf("deep/a/x.bin"), Written(buffer));
        }

        // An ancestor renamed: the folder's own descriptor is not at its path either.
        using (var handles = new FolderHandles())
        {
            Directory.CreateDirectory(tree.PathOf("deep/a/b")); // in the folder made at the old path above
            Assert.True(handles.Get(b) > 2);
            Directory.Move(tree.PathOf("deep"), tree.PathOf("deep2"));
            Directory.CreateDirectory(tree.PathOf("deep/a/b"));
            Assert.Equal(Dedup.Core.Interop.Libc.AT_FDCWD, handles.LocateAtPath(b, "y.bin"u8, buffer));
            Assert.Equal(tree.PathOf("deep/a/b/y.bin"), Written(buffer));
        }
    }

    [LinuxFact]
    public void The_last_check_opens_no_descriptor_and_climbs_only_to_an_ancestor_still_at_its_path()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("deep/a/b"));
        var root = AbsolutePath.Parse(tree.Root);
        var deep = root.Child("deep");
        var b = deep.Child("a").Child("b");
        using var handles = new FolderHandles();
        var buffer = new byte[4096];

        Assert.Equal(Dedup.Core.Interop.Libc.AT_FDCWD, handles.LocateAtPath(b, "y.bin"u8, buffer));
        Assert.Equal(tree.PathOf("deep/a/b/y.bin"), Written(buffer));
        Assert.Equal(0, handles.Count);

        // Only an ancestor has a descriptor: the components below it are written, as for an open.
        var fd = handles.Get(deep);
        Assert.Equal(fd, handles.LocateAtPath(b, "y.bin"u8, buffer));
        Assert.Equal("a/b/y.bin", Written(buffer));
    }

    [LinuxFact]
    public void The_cache_leaves_room_for_every_scan_threads_open_files()
    {
        // 96 files open per thread at most: more threads, fewer cached folders; none when the limit leaves no room.
        Assert.True(FolderHandles.CapacityFor(32 * OpenFileSet.MaxOpen) <= FolderHandles.CapacityFor(OpenFileSet.MaxOpen));
        Assert.Equal(0, FolderHandles.CapacityFor(int.MaxValue));
        var limit = Dedup.Core.Interop.OpenFileLimit.Current;
        var capacity = FolderHandles.CapacityFor(8 * OpenFileSet.MaxOpen);
        Assert.True(capacity == 0 || (capacity * 2) + (8 * 96) + 256 <= limit, $"capacity {capacity}, limit {limit}");
    }

    [LinuxFact]
    public async Task A_scan_whose_progress_receiver_fails_still_closes_its_folder_descriptors()
    {
        // The progress task fails while the comparer holds the scan for 400 ms: its failure reaches the caller only
        // from the scan's cleanup, which must still close the folder descriptors (it stopped at the failure before).
        using var tree = BuildTree();
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).UseComparer(new Slow()).ReportProgress(new Failing()).Build();

        var failure = await Assert.ThrowsAnyAsync<Exception>(async () =>
        {
            await foreach (var group in finder.FindAsync())
            {
            }
        });

        Assert.Contains("the progress receiver failed", failure.ToString(), StringComparison.Ordinal);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    private sealed class Failing : IProgress<Dedup.Core.Reporting.ScanProgress>
    {
        public void Report(Dedup.Core.Reporting.ScanProgress value) => throw new InvalidOperationException("the progress receiver failed");
    }

    private sealed class Slow : Dedup.Core.Comparison.IComparerStrategy
    {
        private int _slept;

        public string Name => "slow";

        public void Partition(Dedup.Core.Comparison.ComparisonSet set, CancellationToken cancellationToken = default)
        {
            if (Interlocked.Exchange(ref _slept, 1) == 0)
            {
                Thread.Sleep(400);
            }
        }
    }

    private static string DescriptorTarget(int fd) => new FileInfo($"/proc/self/fd/{fd}").LinkTarget!;

    private static string Written(byte[] buffer) => System.Text.Encoding.UTF8.GetString(buffer, 0, Array.IndexOf(buffer, (byte)0));

    [LinuxFact]
    public async Task More_folders_than_the_descriptor_cache_holds_are_opened_by_full_path()
    {
        // More folders than the cache holds (at most 16,384, fewer under this process's open-file limit): files in the
        // rest are opened by full path, or below an ancestor, same results.
        using var tree = new TempTree();
        var Folders = (FolderHandles.CapacityFor(OpenFileSet.MaxOpen) + 200) / 2 * 2;
        for (var i = 0; i < Folders; i++)
        {
            // Folders i and i + Folders/2 hold files of one size and the same bytes (probed, then compared).
            var content = new byte[9000 + (i % (Folders / 2))];
            content[0] = (byte)(i % (Folders / 2));
            content[^1] = (byte)(i % (Folders / 2) % 251);
            tree.Write($"f{i}/x.bin", content);
        }

        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root));

        Assert.Equal(Folders / 2, groups.Count);
        Assert.All(groups, g => Assert.Equal(2, g.Files.Count));
        Assert.Empty(summary.Errors);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public void Folders_without_a_parent_weigh_their_own_candidates_and_only_those_that_fit_are_opened()
    {
        // A custom enumerator's table has no parents. One folder of 9 candidates, three of 5, more of 4 than the tree
        // has ancestors, ten of 1, one with only a file of a unique size. Room for the ancestors and 4 more: 5 is the
        // least weight taken (with the folders of 4 there would be more than the room), so the four of 5 or more are
        // opened, those of 4 not, and no folder without candidates.
        using var tree = new TempTree();
        var root = AbsolutePath.Parse(tree.Root);
        var ancestors = root.ToString().Count(c => c == '/') + 1;
        var table = new FileTable();
        var writer = table.CreateWriter();
        ulong inode = 0;
        foreach (var (name, files, size) in Enumerable.Range(0, 10).Select(i => ($"quiet{i}", 1, 10L))
            .Append(("lonely", 1, 11L)).Concat(Enumerable.Range(0, ancestors + 1).Select(i => ($"middling{i}", 4, 10L)))
            .Concat(Enumerable.Range(0, 3).Select(i => ($"busy{i}", 5, 10L))).Append(("busiest", 9, 10L)))
        {
            var number = table.AddFolder(root.Child(Directory.CreateDirectory(tree.PathOf(name)).Name));
            AddFiles(writer, number, files, size, ref inode);
        }

        writer.Complete();

        using var handles = new FolderHandles(capacity: ancestors + 4);
        _ = SizeBarrier.Split(table, keepSingles: false);
        BusiestFolders.Open(handles, table);

        Assert.Equal(ancestors + 4, handles.Count);
        Assert.Equal(
            new[] { tree.Root.TrimEnd('/'), tree.PathOf("busiest"), tree.PathOf("busy0"), tree.PathOf("busy1"), tree.PathOf("busy2") },
            OpenDescriptors.Under(tree.Root.TrimEnd('/'), includeRoot: true).Order(StringComparer.Ordinal));
    }

    [LinuxFact]
    public void A_folder_weighs_the_candidates_below_it_so_one_above_many_is_opened_before_one_holding_more_itself()
    {
        // top holds no file and five folders of 2 candidates; solo holds 5. Room for the tree's root and one more: top
        // (10 below it) is opened, solo (5) is not; by their own files alone solo would be first and top never.
        using var tree = new TempTree();
        var root = AbsolutePath.Parse(tree.Root);
        var table = new FileTable();
        var writer = table.CreateWriter();
        ulong inode = 0;
        var rootNumber = table.AddFolder(root, -1);
        var top = table.AddFolder(root.Child(Directory.CreateDirectory(tree.PathOf("top")).Name), rootNumber);
        for (var i = 0; i < 5; i++)
        {
            var folder = AbsolutePath.Parse(Directory.CreateDirectory(tree.PathOf($"top/f{i}")).FullName);
            AddFiles(writer, table.AddFolder(folder, top), 2, 10, ref inode);
        }

        AddFiles(writer, table.AddFolder(root.Child(Directory.CreateDirectory(tree.PathOf("solo")).Name), rootNumber), 5, 10, ref inode);
        writer.Complete();
        var ancestors = root.ToString().Count(c => c == '/') + 1; // the root and the folders above it

        using var handles = new FolderHandles(capacity: ancestors + 1);
        _ = SizeBarrier.Split(table, keepSingles: false);
        BusiestFolders.Open(handles, table);

        Assert.Equal(
            new[] { tree.Root.TrimEnd('/'), tree.PathOf("top") },
            OpenDescriptors.Under(tree.Root.TrimEnd('/'), includeRoot: true).Order(StringComparer.Ordinal));
    }

    [Fact]
    public void The_least_weight_taken_is_the_least_that_no_more_folders_than_there_is_room_for_reach()
    {
        int[] weights = [0, 7, 3, 3, 9, 1, 3];
        Assert.Equal(10, FolderHandles.LeastWeightTaken(weights, 0));
        Assert.Equal(8, FolderHandles.LeastWeightTaken(weights, 1)); // the least threshold: no folder weighs 8
        Assert.Equal(4, FolderHandles.LeastWeightTaken(weights, 2)); // 9 and 7; three of 3 would not fit in 3 or 4
        Assert.Equal(4, FolderHandles.LeastWeightTaken(weights, 4));
        Assert.Equal(2, FolderHandles.LeastWeightTaken(weights, 5)); // 9, 7 and the three of 3
        Assert.Equal(1, FolderHandles.LeastWeightTaken(weights, 6)); // never a folder of weight 0
        Assert.Equal(1, FolderHandles.LeastWeightTaken(weights, 100));
    }

    private static void AddFiles(FileTable.Writer writer, int folder, int files, long size, ref ulong inode)
    {
        for (var i = 0; i < files; i++)
        {
            writer.Add(folder, System.Text.Encoding.UTF8.GetBytes($"f{i}"), new FileRow { Identity = new FileIdentity(1, ++inode), Length = size, LinkCount = 1 });
        }

        writer.EndFolder();
    }

    [LinuxFact]
    public async Task A_scan_opens_its_candidates_folders_before_it_compares()
    {
        // On one thread the 1 MiB pair is compared first; when the strategy reads it, the folder of the small pair,
        // not read yet, already has its descriptor.
        using var tree = new TempTree();
        var big = TempTree.RandomBytes(1024 * 1024, 8);
        tree.Write("first/big1", big);
        tree.Write("first/big2", big);
        var small = TempTree.RandomBytes(100, 9);
        tree.Write("later/small1", small);
        tree.Write("later/small2", small);
        tree.Write("none/unique", TempTree.RandomBytes(77, 10));
        List<string>? seen = null;
        var strategy = new Watching(() => seen ??= OpenDescriptors.Under(tree.Root, includeRoot: true));

        var (groups, summary) = await Scan.RunAsync(f => f.AddRoot(tree.Root).UseComparer(strategy).WithMaxDegreeOfParallelism(1));

        Assert.Empty(summary.Errors);
        Assert.Equal(2, groups.Count);
        Assert.NotNull(seen);
        Assert.Contains(tree.PathOf("later"), seen);
        Assert.DoesNotContain(tree.PathOf("none"), seen);
    }

    /// <summary>The real Hybrid strategy; runs an action on each call.</summary>
    private sealed class Watching(Action onCall) : IComparerStrategy
    {
        public string Name => "watching";

        public void Partition(Dedup.Core.Comparison.ComparisonSet set, CancellationToken cancellationToken = default)
        {
            onCall();
            ComparerStrategies.Hybrid.Partition(set, cancellationToken);
        }
    }

    [LinuxFact(Tool = "prlimit")]
    public async Task A_low_open_file_limit_is_respected_by_the_descriptor_cache()
    {
        // 600 folders, each with a duplicate pair, scanned by the CLI under a limit of 256 open files: the cache must
        // leave room for the scan's own opens and the runtime's (a fixed 4,096 exhausted them: EMFILE, crash).
        using var tree = new TempTree();
        for (var i = 0; i < 600; i++)
        {
            var content = TempTree.RandomBytes(10_000 + i, 2000 + i);
            tree.Write($"d{i}/a.bin", content);
            tree.Write($"d{i}/b.bin", content);
        }

        var dotnet = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? RequiresToolFactAttribute.FindOnPath("dotnet") ?? "dotnet";
        var cli = Path.Combine(AppContext.BaseDirectory, "dedup.dll");
        var (exitCode, stdout, stderr) = await ProcessRunner.RunAsync(
            "prlimit", ["--nofile=256:256", dotnet, cli, "find", tree.Root, "--format", "json"]);

        Assert.True(exitCode == 0, $"exit code {exitCode}; stderr: {stderr}");
        using var json = System.Text.Json.JsonDocument.Parse(stdout);
        Assert.Equal(600, json.RootElement.GetProperty("groups").GetArrayLength());
        Assert.Equal(0, json.RootElement.GetProperty("summary").GetProperty("errors").GetArrayLength());
    }

    private static TempTree BuildTree()
    {
        // 40 contents, each in three different folders, large enough to be probed and compared (not read whole).
        var tree = new TempTree();
        for (var i = 0; i < 40; i++)
        {
            var content = TempTree.RandomBytes(20_000 + i, 900 + i);
            for (var copy = 0; copy < 3; copy++)
            {
                tree.Write($"d{(i + copy) % 25}/sub{copy}/f{i}.bin", content);
            }
        }

        return tree;
    }
}
