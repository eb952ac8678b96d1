using System.Runtime.CompilerServices;
using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.WindowsTests.Infrastructure;

namespace Dedup.Core.WindowsTests;

/// <summary>The Windows build scanning real trees (the portable enumerator and reader): exact groups, as on Linux.</summary>
public sealed class ScanTests
{
    [Fact]
    public async Task Finds_exact_groups_across_sizes_and_prefixes()
    {
        using var tree = new TempTree();
        var big = TempTree.RandomBytes(200_000, 7);
        var bigOther = (byte[])big.Clone();
        bigOther[150_000] ^= 1; // same size, prefix and suffix: only a full comparison tells them apart
        tree.Write("a/one.txt", "hello world");
        tree.Write("b/one-copy.txt", "hello world");
        tree.Write("b/other.txt", "hello there");
        tree.Write("c/big.bin", big);
        tree.Write("c/big-copy.bin", big);
        tree.Write("d/big-differs.bin", bigOther);
        tree.Write("d/unique.txt", "only me");

        var groups = await Scans.GroupsAsync(tree);

        Assert.Equal(2, groups.Count);
        Assert.Equal(["a/one.txt", "b/one-copy.txt"], groups[0]);
        Assert.Equal(["c/big-copy.bin", "c/big.bin"], groups[1]);
    }

    [Fact]
    public async Task Empty_files_only_when_asked_for()
    {
        using var tree = new TempTree();
        tree.Write("e1", string.Empty);
        tree.Write("e2", string.Empty);

        Assert.Empty(await Scans.GroupsAsync(tree));
        Assert.Equal(["e1", "e2"], Assert.Single(await Scans.GroupsAsync(tree, b => b.IncludeEmptyFiles())));
    }

    [Fact]
    public async Task Size_filters_apply()
    {
        using var tree = new TempTree();
        tree.Write("small1", "abc");
        tree.Write("small2", "abc");
        tree.Write("mid1", new string('m', 100));
        tree.Write("mid2", new string('m', 100));
        tree.Write("large1", new string('l', 10_000));
        tree.Write("large2", new string('l', 10_000));

        var groups = await Scans.GroupsAsync(tree, b => b.WithMinSize(10).WithMaxSize(1000));

        Assert.Equal(["mid1", "mid2"], Assert.Single(groups));
    }

    [Fact]
    public async Task Excluded_folders_and_dot_names_are_not_scanned()
    {
        using var tree = new TempTree();
        tree.Write("keep/a.txt", "twin");
        tree.Write("keep/b.txt", "twin");
        tree.Write("node_modules/c.txt", "twin");
        tree.Write("deep/node_modules/d.txt", "twin");
        tree.Write(".hidden/e.txt", "twin");

        var groups = await Scans.GroupsAsync(tree, b => b.Exclude("node_modules").IncludeHidden(false));

        Assert.Equal(["keep/a.txt", "keep/b.txt"], Assert.Single(groups));
        // Dot names are scanned by default (a dot name is hidden by convention only on Unix).
        Assert.Equal([".hidden/e.txt", "keep/a.txt", "keep/b.txt", "node_modules/c.txt"], Assert.Single(await Scans.GroupsAsync(tree, b => b.Exclude("deep"))));
    }

    [Fact]
    public async Task Names_with_unusual_characters_are_scanned_and_reported_unchanged()
    {
        using var tree = new TempTree();
        // What NTFS accepts but is easy to mangle: spaces, non-Latin scripts, an astral-plane character (a surrogate pair
        // in UTF-16), combining marks, shell and glob metacharacters legal in Windows names.
        string[] names = ["with space.txt", "ünïcödé ñ.txt", "日本語.txt", "emoji-😀.txt", "e\u0301-combining.txt", "#%&'()+,;=@[]^`{}~!$.txt"];
        foreach (var name in names)
        {
            tree.Write("u/" + name, "same bytes in every file");
        }

        var group = Assert.Single(await Scans.GroupsAsync(tree));

        Assert.Equal(names.Select(n => "u/" + n).Order(StringComparer.Ordinal), group);
    }

    [Fact]
    public async Task Paths_longer_than_MAX_PATH_are_scanned()
    {
        using var tree = new TempTree();
        var deep = string.Join('/', Enumerable.Repeat(new string('d', 60), 5)); // 300+ characters below the root
        tree.Write(deep + "/a.txt", "long path");
        tree.Write(deep + "/b.txt", "long path");

        var group = Assert.Single(await Scans.GroupsAsync(tree));

        Assert.Equal([deep + "/a.txt", deep + "/b.txt"], group);
    }

    [Fact]
    public async Task Cancellation_stops_the_scan()
    {
        using var tree = new TempTree();
        for (var i = 0; i < 200; i++)
        {
            tree.Write($"f/{i % 20}/{i}.txt", "same " + (i % 10));
        }

        using var cancellation = new CancellationTokenSource();
        await cancellation.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => Scans.GroupsAsync(tree, cancellationToken: cancellation.Token));
    }

    [Fact]
    public async Task Missing_root_throws_when_the_scan_starts()
    {
        var missing = Path.Combine(Path.GetTempPath(), "dedup-wintests-missing-" + Guid.NewGuid().ToString("N"));
        var finder = new DuplicateFinderBuilder().AddRoot(missing).Build();

        await Assert.ThrowsAsync<DirectoryNotFoundException>(async () =>
        {
            await foreach (var _ in finder.FindAsync())
            {
            }
        });
    }

    [Fact]
    public async Task A_file_that_vanishes_is_an_error_not_a_group()
    {
        using var tree = new TempTree();
        tree.Write("keep1.txt", "present");
        tree.Write("keep2.txt", "present");
        var vanishing = tree.Write("gone1.txt", "vanishes");
        tree.Write("gone2.txt", "vanishes");
        var errors = new List<ScanError>();

        // Listed, then deleted before anything is read: the enumeration ends before the first read.
        var groups = await Scans.GroupsAsync(tree, b => b.UseFileEnumerator(new ListThenDelete(vanishing)), errors);

        Assert.Equal(["keep1.txt", "keep2.txt"], Assert.Single(groups));
        Assert.Contains(errors, e => e.Path.EndsWith("gone1.txt", StringComparison.Ordinal) && e.Kind == ScanErrorKind.NotFound);
    }

    [Fact]
    public async Task A_file_open_without_sharing_is_an_error_not_a_group()
    {
        using var tree = new TempTree();
        tree.Write("free1.txt", "readable");
        tree.Write("free2.txt", "readable");
        var locked = tree.Write("locked1.txt", "held open");
        tree.Write("locked2.txt", "held open");
        var errors = new List<ScanError>();

        // Windows enforces share modes: another handle without FILE_SHARE_READ makes every open of the file fail.
        using (new FileStream(locked, FileMode.Open, FileAccess.ReadWrite, FileShare.None))
        {
            var groups = await Scans.GroupsAsync(tree, errors: errors);
            Assert.Equal(["free1.txt", "free2.txt"], Assert.Single(groups));
        }

        Assert.Contains(errors, e => e.Path.EndsWith("locked1.txt", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Files_report_their_volume_serial_as_device()
    {
        using var tree = new TempTree();
        var a = tree.Write("a.bin", TempTree.RandomBytes(5000, 3));
        tree.Write("b.bin", TempTree.RandomBytes(5000, 3));

        var group = Assert.Single(await Scans.RawGroupsAsync(tree.Root));

        var serial = Win32.VolumeSerial(Path.GetPathRoot(a)!);
        Assert.All(group.Files, f => Assert.Equal(serial, f.Identity.Device));
    }

    /// <summary>Lists the root's files (synthetic identities, as the portable enumerator gives), then deletes one.</summary>
    private sealed class ListThenDelete(string toDelete) : IFileEnumerator
    {
        public async IAsyncEnumerable<ScannedFile> EnumerateAsync(FileEnumerationContext context, [EnumeratorCancellation] CancellationToken cancellationToken = default)
        {
            ulong id = 0;
            foreach (var root in context.Roots)
            {
                foreach (var path in Directory.GetFiles(root.ToString()))
                {
                    var info = new FileInfo(path);
                    yield return new ScannedFile(AbsolutePath.Parse(path), info.Length, new FileIdentity(1, ++id), 1, info.LastWriteTimeUtc);
                }
            }

            await Task.Yield();
            File.Delete(toDelete);
        }
    }
}
