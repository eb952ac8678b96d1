using Dedup.Core.FileSystem;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.FileSystem;

/// <summary>Mutants the FileSystem mutation run of 2026-11-29 left alive, each killed here.</summary>
public sealed class WalkSurvivorTests
{
    [Fact]
    public void The_folder_table_finds_a_folder_stored_in_its_first_slot()
    {
        // 16 slots: some folder of the first few hundred lands in slot 0 (the slot is the hash code's low bits).
        AbsolutePath? first = null;
        for (var i = 0; first is null && i < 10_000; i++)
        {
            var table = new FolderDescriptorTable(capacity: 0);
            var folder = AbsolutePath.Parse("/s/" + i);
            if (table.TryAdd(folder, 42, out _) == 0)
            {
                first = folder;
                Assert.True(table.TryGetValue(folder, out var value));
                Assert.Equal(42, value);
            }
        }

        Assert.NotNull(first);
    }

    [LinuxFact]
    public void A_folder_that_vanished_does_not_stop_the_cache_only_running_out_of_descriptors_does()
    {
        using var tree = new TempTree();
        var root = AbsolutePath.Parse(tree.Root);
        var gone = root.Child(Directory.CreateDirectory(tree.PathOf("gone")).Name);
        var kept = root.Child(Directory.CreateDirectory(tree.PathOf("kept")).Name);
        Directory.Delete(tree.PathOf("gone")); // ENOENT at its open
        using var handles = new FolderHandles();

        Assert.Equal(-1, handles.Get(gone));
        Assert.True(handles.Get(kept) > 2); // still caching: only EMFILE or ENFILE makes the cache full
    }

    [LinuxFact]
    public void A_check_climbs_to_a_cached_ancestor_at_most_32_folders_up()
    {
        // c0/c1/…/c33, only c0 (and what is above it) cached: c32 reaches c0 in 32 steps up, c33 would need 33.
        using var tree = new TempTree();
        var root = AbsolutePath.Parse(tree.Root);
        var chain = new List<AbsolutePath> { root.Child("c0") };
        for (var i = 1; i <= 33; i++)
        {
            chain.Add(chain[^1].Child($"c{i}"));
        }

        Directory.CreateDirectory(chain[^1].ToString());
        using var handles = new FolderHandles();
        var top = handles.Get(chain[0]);
        Assert.True(top > 2);
        var buffer = new byte[4096];

        Assert.Equal(top, handles.LocateAtPath(chain[32], "x"u8, buffer));
        Assert.Equal(Dedup.Core.Interop.Libc.AT_FDCWD, handles.LocateAtPath(chain[33], "x"u8, buffer));
    }
}
