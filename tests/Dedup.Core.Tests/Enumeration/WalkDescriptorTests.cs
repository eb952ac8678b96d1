using Dedup.Core.Diagnostics;
using Dedup.Core.Enumeration;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.EnumerationTests;

/// <summary>
/// The walk opens each sub-folder by its name relative to its parent's descriptor, which stays open until every
/// sub-folder queued from its listing is open: the listing must be complete and exact, and no descriptor may outlive
/// the walk, whether it ends or is abandoned midway.
/// </summary>
public sealed class WalkDescriptorTests
{
    [LinuxFact]
    public async Task A_deep_and_wide_tree_is_listed_whole_and_every_folder_descriptor_is_closed()
    {
        using var tree = new TempTree();
        var expected = new HashSet<string>(StringComparer.Ordinal);
        for (var a = 0; a < 30; a++)
        {
            for (var b = 0; b < 12; b++)
            {
                var relative = $"a{a}/b{b}/c/d{b % 3}/f{a}_{b}.txt";
                tree.Write(relative, [(byte)a, (byte)b]);
                expected.Add(tree.PathOf(relative));
            }
        }

        var listed = new List<string>();
        await foreach (var file in Enumerate(tree))
        {
            listed.Add(file.Path.ToString());
        }

        Assert.Equal(expected.Count, listed.Count);
        Assert.True(expected.SetEquals(listed));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public async Task A_walk_abandoned_after_its_first_files_closes_the_descriptors_its_queued_folders_held()
    {
        using var tree = new TempTree();
        // Large enough that the walk is still going when the first files arrive (it runs ahead of its reader).
        for (var a = 0; a < 100; a++)
        {
            for (var b = 0; b < 150; b++)
            {
                Directory.CreateDirectory(tree.PathOf($"a{a}/b{b}/c"));
            }
        }

        // At the root: its batch comes once the root's 100 sub-folders are queued, each holding the root's descriptor.
        tree.Write("f.txt", [1]);

        var seen = 0;
        await foreach (var file in Enumerate(tree))
        {
            seen++;
            break; // thousands of folders still queued, each holding its parent's descriptor
        }

        Assert.Equal(1, seen);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact]
    public void A_walk_holds_at_most_its_limit_of_folder_descriptors_and_closes_each_when_its_last_borrower_is_done()
    {
        using var tree = new TempTree();
        var held = new Dedup.Core.FileSystem.SharedFolder.Counter();
        var folders = new List<Dedup.Core.FileSystem.SharedFolder>();
        for (var i = 0; i < Dedup.Core.FileSystem.SharedFolder.MaxHeld; i++)
        {
            var folder = Dedup.Core.FileSystem.SharedFolder.TryHold(OpenFolder(tree, $"d{i}"), held);
            Assert.NotNull(folder);
            folders.Add(folder);
        }

        var extra = OpenFolder(tree, "extra");
        Assert.Null(Dedup.Core.FileSystem.SharedFolder.TryHold(extra, held)); // the caller keeps and closes it
        Assert.Equal(Dedup.Core.FileSystem.SharedFolder.MaxHeld, held.Value);
        _ = Dedup.Core.Interop.Libc.Close(extra);

        var first = folders[0];
        var borrowed = first.Lend();
        first.Release(); // the listing is done; a queued sub-folder still borrows it
        Assert.Contains(tree.PathOf("d0"), OpenDescriptors.Under(tree.Root, includeRoot: false));
        borrowed.Release();
        Assert.DoesNotContain(tree.PathOf("d0"), OpenDescriptors.Under(tree.Root, includeRoot: false));
        Assert.Equal(Dedup.Core.FileSystem.SharedFolder.MaxHeld - 1, held.Value);
        var again = Dedup.Core.FileSystem.SharedFolder.TryHold(OpenFolder(tree, "again"), held);
        Assert.NotNull(again);
        again.Release();

        foreach (var folder in folders.Skip(1))
        {
            folder.Release();
        }

        Assert.Equal(0, held.Value);
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    private static IAsyncEnumerable<ScannedFile> Enumerate(TempTree tree)
    {
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).Build();
        return new ParallelFileEnumerator().EnumerateAsync(Dedup.Core.Scanning.EnumerationContexts.Create(finder.Options, new ScanErrorSink()));
    }

    private static int OpenFolder(TempTree tree, string name)
    {
        var path = Directory.CreateDirectory(tree.PathOf(name)).FullName;
        var fd = Open([.. System.Text.Encoding.UTF8.GetBytes(path), 0], Dedup.Core.Interop.Libc.O_DIRECTORY | Dedup.Core.Interop.Libc.O_CLOEXEC);
        Assert.True(fd >= 0, $"open {path}: errno {System.Runtime.InteropServices.Marshal.GetLastPInvokeError()}");
        return fd;
    }

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "open", SetLastError = true)]
    private static extern int Open(byte[] path, int flags);
}
