using Dedup.Core.Enumeration;
using Dedup.Core.Linking.Prediction;
using Dedup.Core.Tests.Infrastructure;
using Extent = Dedup.Core.Linking.Prediction.FileExtents.Extent;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The extent arithmetic behind clone and dedupe's reclaimable bytes (issue #34 point 10), on extent maps written out,
/// including the shapes a btrfs test cannot make on demand: extents at unlike offsets, past the file's end, unlocated.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public sealed class FileExtentsTests
{
    private const uint Shared = 0x2000;
    private const uint Unknown = 0x2;
    private const ulong K = 4096;

    [LinuxFact]
    public void Only_unshared_extents_within_the_length_count()
    {
        List<Extent> extents =
        [
            new(0, 100 * K, 2 * K, Shared),
            new(2 * K, 200 * K, 3 * K, 0),
            new(5 * K, 300 * K, 4 * K, 0), // runs past the length: only its first 2 K count
            new(12 * K, 400 * K, K, 0),    // wholly past the length
        ];

        Assert.Equal((long)(5 * K), FileExtents.UnsharedBytes(extents, (long)(7 * K)));
        Assert.Equal((long)(3 * K + 1), FileExtents.UnsharedBytes(extents, (long)(5 * K + 1)));
        Assert.Equal(0, FileExtents.UnsharedBytes(extents, (long)(2 * K)));
        Assert.Equal(0, FileExtents.UnsharedBytes([], 100));
    }

    [LinuxFact]
    public void A_duplicate_lying_on_the_kept_files_bytes_at_the_same_offsets_is_all_shared()
    {
        List<Extent> kept = [new(0, 100 * K, 4 * K, Shared), new(4 * K, 500 * K, 4 * K, Shared)];

        // One kept extent may hold several of the duplicate's, at the matching disk offset.
        Assert.True(FileExtents.AllSharedWith([new(0, 100 * K, K, Shared), new(K, 101 * K, 3 * K, Shared), new(4 * K, 500 * K, 4 * K, Shared)], kept));
        Assert.True(FileExtents.AllSharedWith([new(4 * K, 500 * K, 2 * K, Shared), new(6 * K, 502 * K, 2 * K, Shared)], kept));
    }

    [LinuxFact]
    public void Anything_else_is_not_a_clone_already_done()
    {
        List<Extent> kept = [new(0, 100 * K, 4 * K, Shared), new(4 * K, 500 * K, 4 * K, Shared)];

        Assert.False(FileExtents.AllSharedWith([], kept));                                              // nothing mapped
        Assert.False(FileExtents.AllSharedWith([new(0, 100 * K, 4 * K, 0)], kept));                     // not shared
        Assert.False(FileExtents.AllSharedWith([new(0, 100 * K, 4 * K, Shared | Unknown)], kept));      // not located
        Assert.False(FileExtents.AllSharedWith([new(0, 101 * K, 4 * K, Shared)], kept));                // other disk bytes
        Assert.False(FileExtents.AllSharedWith([new(K, 100 * K, K, Shared)], kept));                    // same bytes, other offset
        Assert.False(FileExtents.AllSharedWith([new(2 * K, 102 * K, 4 * K, Shared)], kept));            // runs past its holder
        Assert.False(FileExtents.AllSharedWith([new(8 * K, 504 * K, K, Shared)], kept));                // past the kept file's end
        Assert.False(FileExtents.AllSharedWith([new(0, 100 * K, 4 * K, Shared)], [new(0, 100 * K, 4 * K, Shared | Unknown)]));
        Assert.False(FileExtents.AllSharedWith([new(0, 100 * K, 4 * K, Shared), new(4 * K, 600 * K, 4 * K, Shared)], kept)); // the second half differs
    }

    [LinuxFact]
    public void A_real_file_is_mapped_only_while_it_is_the_file_named()
    {
        using var tree = new TempTree();
        var path = tree.Write("a.bin", TempTree.RandomBytes(64 << 10, 350));
        Assert.Equal(0, TestNative.FileStatusOf(path, out var status));
        var identity = new FileIdentity(status.Device, status.Ino);

        Assert.NotNull(FileExtents.Of(path, identity));
        Assert.Null(FileExtents.Of(path, new FileIdentity(status.Device, status.Ino + 1)));
        Assert.Null(FileExtents.Of(tree.PathOf("missing.bin"), identity));
        Assert.Null(FileExtents.Of(tree.Root, identity));
    }
}
