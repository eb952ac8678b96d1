using System.Buffers.Binary;
using System.Text;
using Dedup.Core.Enumeration;
using Dedup.Core.Linking.Trash;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.PortableUndo;

/// <summary>
/// The edges of the <c>$I…</c> parser and of the Recycle Bin search, each one byte either side of its limit: the name's
/// length in UTF-16 units (1 is the NUL alone, 32,768 the longest), the deletion time's range, the size's sign, the
/// 70,000-byte cap on what is read, and entries that cannot be read at all.
/// </summary>
public sealed class RecycleBinInfoEdgeTests
{
    private static readonly DateTime Deleted = new(2026, 11, 30, 3, 4, 5, DateTimeKind.Utc);

    [Fact]
    public void A_length_of_one_unit_is_the_NUL_alone_even_when_a_character_stands_there()
    {
        var bytes = Version2Units("A", 1); // units = 1, but the unit is 'A', not NUL

        Assert.Null(RecycleBin.ParseInfo(bytes));
        Assert.Equal("AB", RecycleBin.ParseInfo(Version2Units("AB", 2))?.OriginalPath); // two units, no NUL: the whole name
    }

    [Fact]
    public void The_longest_name_is_32768_units_and_one_more_is_refused()
    {
        var longest = new string('x', 32_767); // + NUL = 32,768 units

        Assert.Equal(longest, RecycleBin.ParseInfo(RecycleBinInfoTests.Version2(longest, 1, Deleted))?.OriginalPath);
        Assert.Null(RecycleBin.ParseInfo(RecycleBinInfoTests.Version2(longest + "y", 1, Deleted)));
    }

    [Fact]
    public void A_name_cut_one_byte_short_is_refused_and_bytes_after_it_are_ignored()
    {
        var good = RecycleBinInfoTests.Version2(@"C:\x\a.bin", 1, Deleted);

        Assert.Null(RecycleBin.ParseInfo(good[..^1]));
        Assert.Equal(@"C:\x\a.bin", RecycleBin.ParseInfo([.. good, 0x41, 0x00])?.OriginalPath);
    }

    [Fact]
    public void A_version_1_file_one_byte_short_of_its_fixed_name_is_refused()
    {
        var bytes = Version1(@"D:\data\a.bin", 1234, Deleted.ToFileTimeUtc());

        Assert.Equal(@"D:\data\a.bin", RecycleBin.ParseInfo(bytes)?.OriginalPath);
        Assert.Null(RecycleBin.ParseInfo(bytes[..^1]));
    }

    [Fact]
    public void A_name_that_starts_with_NUL_is_empty_and_refused()
    {
        Assert.Null(RecycleBin.ParseInfo(RecycleBinInfoTests.Version2("\0abc", 1, Deleted)));
        Assert.Null(RecycleBin.ParseInfo(Version1("\0abc", 1, Deleted.ToFileTimeUtc())));
    }

    [Fact]
    public void Sizes_and_times_at_the_ends_of_their_range()
    {
        var maxTime = DateTime.MaxValue.ToFileTimeUtc();

        Assert.Equal(0, RecycleBin.ParseInfo(Version1(@"C:\a", 0, 0))?.Size);
        Assert.Equal(DateTime.FromFileTimeUtc(0), RecycleBin.ParseInfo(Version1(@"C:\a", 0, 0))?.DeletedUtc);
        Assert.Equal(DateTime.FromFileTimeUtc(maxTime), RecycleBin.ParseInfo(Version1(@"C:\a", 0, maxTime))?.DeletedUtc);
        Assert.Null(RecycleBin.ParseInfo(Version1(@"C:\a", 0, maxTime + 1))); // past DateTime: refused, not thrown
        Assert.Null(RecycleBin.ParseInfo(Version1(@"C:\a", -1, 0)));
    }

    [Fact]
    public void Exactly_24_bytes_are_too_few_for_either_version()
    {
        foreach (var version in new long[] { 1, 2 })
        {
            var bytes = new byte[24];
            BinaryPrimitives.WriteInt64LittleEndian(bytes, version);
            Assert.Null(RecycleBin.ParseInfo(bytes));
        }
    }

    [LinuxFact]
    public void An_info_file_of_70000_bytes_is_read_and_one_of_70001_is_not()
    {
        using var tree = new TempTree();
        var original = @"C:\x\b.bin";
        var info = RecycleBinInfoTests.Version2(original, 3, Deleted);
        tree.Write("at-cap/$IA.bin", Padded(info, 70_000));
        var atCap = tree.Write("at-cap/$RA.bin", "abc"u8.ToArray());
        tree.Write("over-cap/$IA.bin", Padded(info, 70_001));
        var overCap = tree.Write("over-cap/$RA.bin", "abc"u8.ToArray());

        Assert.Equal(atCap, RecycleBin.Locate(tree.PathOf("at-cap"), original, IdentityOf(atCap))?.Path);
        Assert.Null(RecycleBin.Locate(tree.PathOf("over-cap"), original, IdentityOf(overCap)));
    }

    [LinuxFact]
    public void An_info_entry_that_cannot_be_read_is_passed_over()
    {
        using var tree = new TempTree();
        var original = @"C:\x\b.bin";
        tree.Symlink("/nowhere-near/gone", "bin/$IDANGLING.bin"); // listed as a file; reading it fails
        tree.Write("bin/$IMOVED.bin", RecycleBinInfoTests.Version2(original, 3, Deleted));
        var moved = tree.Write("bin/$RMOVED.bin", "abc"u8.ToArray());

        Assert.Equal(moved, RecycleBin.Locate(tree.PathOf("bin"), original, IdentityOf(moved))?.Path);
    }

    [LinuxFact]
    public void IsFile_is_the_regular_file_of_that_identity_only()
    {
        using var tree = new TempTree();
        var file = tree.Write("a.bin", "abc"u8.ToArray());
        var link = tree.Symlink(file, "link.bin");
        Directory.CreateDirectory(tree.PathOf("folder"));

        Assert.True(RecycleBin.IsFile(file, IdentityOf(file)));
        Assert.False(RecycleBin.IsFile(link, IdentityOf(file))); // a link to it is not it
        Assert.False(RecycleBin.IsFile(tree.PathOf("folder"), IdentityOf(tree.PathOf("folder")))); // a folder never is
        Assert.False(RecycleBin.IsFile(tree.PathOf("missing.bin"), IdentityOf(file)));
    }

    /// <summary>A version 2 file whose length field is <paramref name="units"/>, followed by exactly <paramref name="name"/> (no NUL added).</summary>
    private static byte[] Version2Units(string name, int units)
    {
        var encoded = Encoding.Unicode.GetBytes(name);
        var bytes = new byte[28 + encoded.Length];
        BinaryPrimitives.WriteInt64LittleEndian(bytes, 2);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(8), 1);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(16), Deleted.ToFileTimeUtc());
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(24), units);
        encoded.CopyTo(bytes, 28);
        return bytes;
    }

    /// <summary>A version 1 file: 8-byte version, size, FILETIME, then the name in a fixed 520-byte field.</summary>
    private static byte[] Version1(string path, long size, long fileTime)
    {
        var bytes = new byte[24 + 520];
        BinaryPrimitives.WriteInt64LittleEndian(bytes, 1);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(8), size);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(16), fileTime);
        Encoding.Unicode.GetBytes(path).CopyTo(bytes, 24);
        return bytes;
    }

    private static byte[] Padded(byte[] bytes, int length)
    {
        var padded = new byte[length];
        bytes.CopyTo(padded, 0);
        return padded;
    }

    private static FileIdentity IdentityOf(string path) => new(TestNative.Device(path), TestNative.Inode(path));
}
