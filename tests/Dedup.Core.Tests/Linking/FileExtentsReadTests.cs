using System.Runtime.InteropServices;
using Dedup.Core.Enumeration;
using Dedup.Core.Linking.Prediction;
using Dedup.Core.Tests.Infrastructure;
using Extent = Dedup.Core.Linking.Prediction.FileExtents.Extent;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// <see cref="FileExtents.Of"/> on real files: the map read in batches of 256 must be exactly the kernel's, whatever
/// the number of extents, and only the file named (no link followed, no other kind of file) is mapped.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed unsafe partial class FileExtentsReadTests
{
    private const int Block = 4096;

    [LinuxFact(TempFileSystem = "ext4")]
    public void A_map_longer_than_one_batch_is_read_whole_and_in_order()
    {
        // 260 blocks 16 KiB apart (two batches), then 40 more 64 MiB further: holes keep each block its own extent, and
        // the far ones are found only by asking for the map up to the end of the file again from where the last batch stopped.
        using var tree = new TempTree();
        var offsets = Enumerable.Range(0, 260).Select(i => (long)i * 4 * Block)
            .Concat(Enumerable.Range(0, 40).Select(i => (64L << 20) + ((long)i * 4 * Block)))
            .ToList();
        var path = WriteBlocks(tree.PathOf("sparse.bin"), offsets);
        var expected = KernelMap(path);
        Assert.Equal(offsets.Count, expected.Count); // the layout is what the test means: one extent per block

        var extents = FileExtents.Of(path, IdentityOf(path));

        Assert.NotNull(extents);
        Assert.Equal(expected, extents);
        Assert.Equal(offsets.Select(o => (ulong)o), extents.Select(e => e.Logical));
        Assert.All(extents, e => Assert.Equal((ulong)Block, e.Length));
        Assert.All(extents, e => Assert.True(e.IsLocated));
        Assert.Equal(offsets.Count * (long)Block, FileExtents.UnsharedBytes(extents, new FileInfo(path).Length));
    }

    [LinuxFact(TempFileSystem = "ext4")]
    public void A_few_extents_end_at_the_last_one()
    {
        using var tree = new TempTree();
        var path = WriteBlocks(tree.PathOf("three.bin"), [0, 8 * Block, 20 * Block]);

        var extents = FileExtents.Of(path, IdentityOf(path));

        Assert.NotNull(extents);
        Assert.Equal(KernelMap(path), extents);
        Assert.Equal([0UL, 8UL * Block, 20UL * Block], extents.Select(e => e.Logical));
    }

    [LinuxFact(TempFileSystem = "ext4")]
    public void An_empty_file_has_an_empty_map()
    {
        using var tree = new TempTree();
        var path = tree.Write("empty.bin", []);

        Assert.Equal([], FileExtents.Of(path, IdentityOf(path)));
    }

    [LinuxFact]
    public void A_file_system_without_FIEMAP_gives_no_map_rather_than_an_empty_one()
    {
        // tmpfs has no FIEMAP: its files' whole length counts, never nothing.
        Assert.Equal("tmpfs", FileSystemOf("/dev/shm"));
        using var tree = new TempTree("/dev/shm");
        var path = tree.Write("a.bin", TempTree.RandomBytes(3 * Block, 351));

        Assert.Null(FileExtents.Of(path, IdentityOf(path)));
    }

    [LinuxFact(TempFileSystem = "ext4")]
    public void A_symbolic_link_or_a_fifo_is_not_mapped_and_nothing_is_left_open()
    {
        using var tree = new TempTree();
        var path = WriteBlocks(tree.PathOf("a.bin"), [0, 2 * Block]);
        var link = tree.Symlink(path, "link.bin");
        var fifo = tree.PathOf("fifo");
        TempTree.Run("mkfifo", fifo);

        Assert.Null(FileExtents.Of(link, IdentityOf(path)));  // the link's target is the file, but the link is not followed
        Assert.Null(FileExtents.Of(fifo, IdentityOf(fifo)));  // opened without waiting for a writer, and not a regular file
        Assert.NotNull(FileExtents.Of(path, IdentityOf(path)));
        Assert.Empty(OpenDescriptors.Under(tree.Root, includeRoot: true));
    }

    [LinuxFact(TempFileSystem = "ext4")]
    public void Only_the_file_with_both_the_device_and_the_inode_is_mapped()
    {
        using var tree = new TempTree();
        var path = WriteBlocks(tree.PathOf("a.bin"), [0, 2 * Block]);
        var identity = IdentityOf(path);

        Assert.Null(FileExtents.Of(path, new FileIdentity(identity.Device + 1, identity.FileId)));
        Assert.Null(FileExtents.Of(path, new FileIdentity(identity.Device, identity.FileId + 1)));
        Assert.Null(FileExtents.Of(tree.Root, IdentityOf(tree.Root)));
    }

    private static string WriteBlocks(string path, IEnumerable<long> offsets)
    {
        using (var stream = new FileStream(path, FileMode.CreateNew, FileAccess.Write))
        {
            var seed = 360;
            foreach (var offset in offsets)
            {
                stream.Position = offset;
                stream.Write(TempTree.RandomBytes(Block, seed++));
            }

            stream.Flush(flushToDisk: true); // located extents, not delayed allocations
        }

        return path;
    }

    private static FileIdentity IdentityOf(string path)
    {
        Assert.Equal(0, TestNative.FileStatusOf(path, out var status));
        return new FileIdentity(status.Device, status.Ino);
    }

    private static string? FileSystemOf(string folder) =>
        File.ReadLines("/proc/self/mounts").Select(l => l.Split(' ')).LastOrDefault(f => f.Length > 2 && f[1] == folder)?[2];

    [LibraryImport("libc", EntryPoint = "ioctl", SetLastError = true)]
    private static partial int Ioctl(int fd, ulong request, byte* argument);

    /// <summary>The kernel's map in one call with room for every extent (FIEMAP_FLAG_SYNC), as an independent reading.</summary>
    private static List<Extent> KernelMap(string path)
    {
        const int Count = 1024;
        var buffer = new byte[32 + (56 * Count)];
        using var handle = File.OpenHandle(path);
        fixed (byte* p = buffer)
        {
            *(ulong*)(p + 8) = ulong.MaxValue;
            *(uint*)(p + 16) = 1;
            *(uint*)(p + 24) = Count;
            Assert.True(Ioctl((int)handle.DangerousGetHandle(), 0xC020660B, p) == 0, "FIEMAP failed: " + Marshal.GetLastPInvokeError());
            var mapped = *(uint*)(p + 20);
            Assert.True(mapped < Count);
            var extents = new List<Extent>();
            for (var i = 0; i < mapped; i++)
            {
                var e = p + 32 + (56 * i);
                extents.Add(new Extent(*(ulong*)e, *(ulong*)(e + 8), *(ulong*)(e + 16), *(uint*)(e + 40)));
            }

            return extents;
        }
    }
}
