using Dedup.Core.FileSystem;
using Dedup.Core.Interop;
using Dedup.Core.Paths;
using Dedup.Core.Tests.Infrastructure;
using Xunit;

namespace Dedup.Core.Tests.FileSystem;

/// <summary>
/// The walk's parts other than its opens (found by Stryker): the cursor keeping and closing the folders it walked
/// through, the policies' flags, the shared folder's reference count, and the reader's folder table.
/// </summary>
public sealed class WalkPartsTests
{
    [LinuxFact]
    public void A_cursor_walks_on_from_the_folders_it_holds_and_closes_those_it_leaves()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("a/b/c"));
        Directory.CreateDirectory(tree.PathOf("a/x"));
        var real = Libc.RealPathOf(tree.Root, out _)!;
        var root = AbsolutePath.Parse(tree.Root);
        var a = root.Child("a"); // the cursor shares a folder by its node, as the listing made it
        var b = a.Child("b");
        var c = b.Child("c");
        var x = a.Child("x");
        Assert.Equal(0, Libc.LStat(tree.PathOf("a/b"), out var original));
        using (var cursor = new FolderCursor([root], TreeWalkPolicy.ForActions))
        {
            var fd = cursor.Open(c);
            Assert.True(fd >= 0);
            Assert.Equal(fd, cursor.Open(c));

            // The folders above are held: a swap above them since does not change where they lead.
            Directory.Move(tree.PathOf("a"), tree.PathOf("a.moved"));
            Directory.CreateDirectory(tree.PathOf("a/b"));
            var held = cursor.Open(b);
            Assert.True(held >= 0);
            Assert.Equal(0, Libc.FStat(held, out var reached));
            Assert.True(RootedTree.IsSame(original, reached));
            Assert.DoesNotContain(real + "/a.moved/b/c", OpenDescriptors.Under(real, includeRoot: true));

            // A sibling is opened from the held parent, and the branch left is closed.
            Assert.True(cursor.Open(x) >= 0);
            var open = OpenDescriptors.Under(real, includeRoot: true);
            Assert.Equal([real, real + "/a.moved", real + "/a.moved/x"], open.Order(StringComparer.Ordinal));
        }

        Assert.Empty(OpenDescriptors.Under(real, includeRoot: true));
    }

    [LinuxFact]
    public void Nothing_below_a_folder_the_cursor_could_not_open_is_opened()
    {
        using var tree = new TempTree();
        Directory.CreateDirectory(tree.PathOf("a/b"));
        var root = AbsolutePath.Parse(tree.Root);
        using var cursor = new FolderCursor([root], TreeWalkPolicy.ForActions);
        Assert.True(cursor.Open(root.Child("a").Child("b")) >= 0);

        var missing = root.Child("gone");
        Assert.Equal(-1, cursor.Open(missing));
        Directory.CreateDirectory(tree.PathOf("gone/b"));
        Assert.Equal(-1, cursor.Open(missing.Child("b")));
        Assert.Equal(-1, cursor.Open(missing.Child("b").Child("c")));

        // A name the kernel cannot take (longer than a name may be) is -1 as well, not the opener's mark for it.
        Assert.Equal(-1, cursor.Open(root.Child(new string('n', 1100))));
    }

    [Fact]
    public void A_scan_refuses_swapped_links_unless_it_follows_links_and_actions_always_refuse_them()
    {
        Assert.Equal(new TreeWalkPolicy(true, false, 5), TreeWalkPolicy.ForScan(true, 5));
        Assert.Equal(new TreeWalkPolicy(false, true, TreeWalkPolicy.Unlimited), TreeWalkPolicy.ForScan(false));
        Assert.Equal(new TreeWalkPolicy(false, true, TreeWalkPolicy.Unlimited), TreeWalkPolicy.ForActions);

        var root = AbsolutePath.Parse("/r");
        var link = AbsolutePathSymlinkPoint.Create(root, "l", "/elsewhere");
        Assert.True(TreeWalkPolicy.ForScan(true).Follows(link));
        Assert.False(TreeWalkPolicy.ForScan(true).Follows(AbsolutePath.Parse("/r/d")));
        Assert.False(TreeWalkPolicy.ForScan(false).Follows(link));
    }

    [LinuxFact]
    public void A_shared_folder_is_closed_once_its_holder_and_every_borrower_are_done_and_holds_no_more_than_its_limit()
    {
        using var tree = new TempTree();
        var counter = new SharedFolder.Counter();
        var fd1 = Libc.OpenAt(Libc.AT_FDCWD, tree.Root, Libc.O_PATH | Libc.O_CLOEXEC, 0);
        var fd2 = Libc.OpenAt(Libc.AT_FDCWD, tree.Root, Libc.O_PATH | Libc.O_CLOEXEC, 0);
        var first = SharedFolder.TryHold(fd1, counter, max: 1);
        Assert.NotNull(first);
        Assert.Equal(fd1, first.Fd);
        Assert.Equal(1, counter.Value);
        Assert.Null(SharedFolder.TryHold(fd2, counter, max: 1));
        Assert.Equal(1, counter.Value);
        _ = Libc.Close(fd2);

        var borrowed = first.Lend();
        Assert.Same(first, borrowed);
        first.Release();
        Assert.True(File.Exists($"/proc/self/fd/{fd1}") || Directory.Exists($"/proc/self/fd/{fd1}"));
        Assert.Equal(1, counter.Value);
        borrowed.Release();
        Assert.False(File.Exists($"/proc/self/fd/{fd1}") || Directory.Exists($"/proc/self/fd/{fd1}"));
        Assert.Equal(0, counter.Value);
    }

    [Fact]
    public void The_folder_table_finds_every_folder_it_holds_and_refuses_more_than_half_its_slots()
    {
        var table = new FolderDescriptorTable(capacity: 0); // 16 slots, 8 entries
        var folders = Enumerable.Range(0, 9).Select(i => AbsolutePath.Parse("/t/" + i)).ToArray();
        Assert.Equal(-1, table.Find(folders[0]));
        Assert.False(table.TryGetValue(folders[0], out var none));
        Assert.Equal(0, none);
        Assert.Empty(table.Slots());

        var slots = new int[8];
        for (var i = 0; i < 8; i++)
        {
            slots[i] = table.TryAdd(folders[i], 100 + i, out var added, beneath: i % 2 == 0);
            Assert.True(slots[i] >= 0);
            Assert.Equal(100 + i, added);
        }

        Assert.Equal(-1, table.TryAdd(folders[8], 108, out var refused));
        Assert.Equal(FolderDescriptorTable.Closed, refused);
        Assert.Equal(-1, table.Find(folders[8]));
        Assert.Equal(-1, table.TryAdd(AbsolutePath.Parse("/t/3"), 999, out var existing));
        Assert.Equal(103, existing);
        Assert.Equal(slots.Order(), table.Slots().Order());

        for (var i = 0; i < 8; i++)
        {
            Assert.Equal(slots[i], table.Find(AbsolutePath.Parse("/t/" + i)));
            Assert.True(table.TryGetValue(folders[i], out var value));
            Assert.Equal(100 + i, value);
            Assert.Equal(100 + i, table.ValueAt(slots[i]));
            Assert.Equal(i % 2 == 0, table.IsBeneathRoot(slots[i]));
        }

        Assert.Equal(103, table.Take(slots[3]));
        Assert.Equal(FolderDescriptorTable.Closed, table.ValueAt(slots[3]));
        Assert.Equal(FolderDescriptorTable.Closed, table.Take(slots[3]));

        Assert.Equal(0, table.AtPath(slots[0]));
        Assert.True(table.SetAtPath(slots[0], atPath: true));
        Assert.True(table.SetAtPath(slots[0], atPath: false)); // the first answer stays
        Assert.Equal(1, table.AtPath(slots[0]));
        Assert.False(table.SetAtPath(slots[1], atPath: false));
        Assert.Equal(-1, table.AtPath(slots[1]));
    }

    [Fact]
    public void Two_folders_of_one_hash_code_keep_their_own_slots_and_values()
    {
        // Two paths whose 32-bit hash codes collide (found by search: about 80 000 names for even odds, each run's own
        // since string hashing is randomized): only the key's equality tells them apart.
        var root = AbsolutePath.Parse("/h");
        var seen = new Dictionary<int, AbsolutePath>();
        AbsolutePath first, second;
        for (var i = 0; ; i++)
        {
            var folder = root.Child("f" + i);
            if (seen.TryGetValue(folder.GetHashCode(), out var earlier))
            {
                (first, second) = (earlier, folder);
                break;
            }

            seen.Add(folder.GetHashCode(), folder);
        }

        var table = new FolderDescriptorTable(capacity: 4);
        var firstSlot = table.TryAdd(first, 1, out _);
        var secondSlot = table.TryAdd(second, 2, out _);
        Assert.True(firstSlot >= 0);
        Assert.True(secondSlot >= 0);
        Assert.NotEqual(firstSlot, secondSlot);
        Assert.Equal(secondSlot, table.Find(second));
        Assert.Equal(secondSlot, table.Find(AbsolutePath.Parse(second.ToString())));
        Assert.Equal(firstSlot, table.Find(first));
        Assert.True(table.TryGetValue(second, out var value));
        Assert.Equal(2, value);
    }

    [Fact]
    public void The_folder_table_has_room_for_twice_its_capacity()
    {
        var table = new FolderDescriptorTable(capacity: 8); // 2 * 8 + 16 = 32 slots: 16 entries
        for (var i = 0; i < 16; i++)
        {
            Assert.True(table.TryAdd(AbsolutePath.Parse("/t/" + i), i, out _) >= 0);
        }

        Assert.Equal(-1, table.TryAdd(AbsolutePath.Parse("/t/16"), 16, out var refused));
        Assert.Equal(FolderDescriptorTable.Closed, refused);
    }
}
