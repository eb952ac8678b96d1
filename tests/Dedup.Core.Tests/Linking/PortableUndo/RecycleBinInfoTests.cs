using System.Buffers.Binary;
using System.Text;
using Dedup.Core.Enumeration;
using Dedup.Core.Linking.Trash;
using Dedup.Core.Tests.Infrastructure;

namespace Dedup.Core.Tests.Linking.PortableUndo;

/// <summary>
/// The Recycle Bin's <c>$I…</c> files, crafted byte for byte as Windows writes them (version 1: Vista to 8.1, version
/// 2: Windows 10 on), and finding the moved file among <c>$R…</c> files by identity. Wine's shell has no Recycle Bin,
/// so this is where the parsing and the matching are tested.
/// </summary>
public sealed class RecycleBinInfoTests
{
    private static readonly DateTime Deleted = new(2026, 11, 30, 3, 4, 5, DateTimeKind.Utc);

    [Fact]
    public void A_version_2_info_file_gives_size_deletion_time_and_original_path()
    {
        var info = RecycleBin.ParseInfo(Version2(@"C:\Users\me\Pictures\b.jpg", 50_000, Deleted));

        Assert.Equal(new RecycleBinInfo(50_000, Deleted, @"C:\Users\me\Pictures\b.jpg"), info);
    }

    [Fact]
    public void A_version_1_info_file_gives_the_path_before_its_NUL()
    {
        var bytes = new byte[24 + 520];
        BinaryPrimitives.WriteInt64LittleEndian(bytes, 1);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(8), 1234);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(16), Deleted.ToFileTimeUtc());
        Encoding.Unicode.GetBytes(@"D:\data\a.bin").CopyTo(bytes, 24);

        Assert.Equal(new RecycleBinInfo(1234, Deleted, @"D:\data\a.bin"), RecycleBin.ParseInfo(bytes));
    }

    [Fact]
    public void Damaged_or_unknown_info_files_are_not_guessed()
    {
        var good = Version2(@"C:\x\a.bin", 1, Deleted);
        var version3 = (byte[])good.Clone();
        BinaryPrimitives.WriteInt64LittleEndian(version3, 3);
        var tooLong = (byte[])good.Clone();
        BinaryPrimitives.WriteInt32LittleEndian(tooLong.AsSpan(24), 1000); // more units than the file holds
        var negativeTime = (byte[])good.Clone();
        BinaryPrimitives.WriteInt64LittleEndian(negativeTime.AsSpan(16), -1);
        var emptyName = Version2(string.Empty, 1, Deleted);
        var shortVersion1 = new byte[100];
        BinaryPrimitives.WriteInt64LittleEndian(shortVersion1, 1);

        Assert.NotNull(RecycleBin.ParseInfo(good));
        foreach (var bad in new[] { version3, tooLong, negativeTime, emptyName, shortVersion1, good[..23], good[..27] })
        {
            Assert.Null(RecycleBin.ParseInfo(bad));
        }
    }

    [Fact]
    public void Data_names_pair_with_info_names_only()
    {
        Assert.Equal("$RABC123.jpg", RecycleBin.DataName("$IABC123.jpg"));
        Assert.Null(RecycleBin.DataName("$RABC123.jpg"));
        Assert.Null(RecycleBin.DataName("$I"));
        Assert.Null(RecycleBin.DataName("desktop.ini"));
    }

    [Fact]
    public void Candidates_are_the_entries_of_the_original_path_in_any_case_newest_first()
    {
        var entries = new[]
        {
            ("$IOLD.bin", new RecycleBinInfo(1, Deleted.AddDays(-1), @"C:\x\b.bin")),
            ("$IOTHER.bin", new RecycleBinInfo(1, Deleted.AddDays(1), @"C:\x\c.bin")),
            ("$INEW.bin", new RecycleBinInfo(1, Deleted, @"c:\X\B.BIN")),
        };

        Assert.Equal(["$INEW.bin", "$IOLD.bin"], RecycleBin.Candidates(entries, @"C:\x\b.bin"));
    }

    [LinuxFact]
    public void Locate_finds_the_moved_file_by_identity_not_by_the_newest_entry_for_its_path()
    {
        using var tree = new TempTree();
        var original = @"C:\x\b.bin";
        // A newer entry for the same path whose $R file is another file (the path reused and trashed again since).
        tree.Write("bin/$INEWER.bin", Version2(original, 3, Deleted.AddMinutes(1)));
        tree.Write("bin/$RNEWER.bin", "new"u8.ToArray());
        tree.Write("bin/$IMOVED.bin", Version2(original, 3, Deleted));
        var moved = tree.Write("bin/$RMOVED.bin", "old"u8.ToArray());

        var location = RecycleBin.Locate(tree.PathOf("bin"), original, IdentityOf(moved));

        Assert.Equal(new Dedup.Core.Linking.Execution.TrashedLocation(moved, tree.PathOf("bin/$IMOVED.bin")), location);
    }

    [LinuxFact]
    public void Locate_falls_back_to_every_entry_when_the_path_was_written_in_another_form()
    {
        using var tree = new TempTree();
        tree.Write("bin/$ISHORT.bin", Version2(@"C:\PROGRA~1\b.bin", 3, Deleted)); // an 8.3 form of the folder
        var moved = tree.Write("bin/$RSHORT.bin", "abc"u8.ToArray());

        Assert.Equal(moved, RecycleBin.Locate(tree.PathOf("bin"), @"C:\Program Files\b.bin", IdentityOf(moved))?.Path);
    }

    [LinuxFact]
    public void Locate_finds_nothing_when_no_entry_is_the_file_or_there_is_no_bin()
    {
        using var tree = new TempTree();
        tree.Write("bin/$IA.bin", Version2(@"C:\x\b.bin", 3, Deleted));
        tree.Write("bin/$RA.bin", "abc"u8.ToArray());
        var elsewhere = tree.Write("elsewhere.bin", "abc"u8.ToArray());

        Assert.Null(RecycleBin.Locate(tree.PathOf("bin"), @"C:\x\b.bin", IdentityOf(elsewhere)));
        Assert.Null(RecycleBin.Locate(tree.PathOf("no-bin"), @"C:\x\b.bin", IdentityOf(elsewhere)));
    }

    /// <summary>A version 2 <c>$I…</c> file: header, size, deletion FILETIME, length in UTF-16 units (NUL included), the path.</summary>
    internal static byte[] Version2(string path, long size, DateTime deletedUtc)
    {
        var name = Encoding.Unicode.GetBytes(path + "\0");
        var bytes = new byte[28 + name.Length];
        BinaryPrimitives.WriteInt64LittleEndian(bytes, 2);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(8), size);
        BinaryPrimitives.WriteInt64LittleEndian(bytes.AsSpan(16), deletedUtc.ToFileTimeUtc());
        BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(24), name.Length / 2);
        name.CopyTo(bytes, 28);
        return bytes;
    }

    private static FileIdentity IdentityOf(string path) => new(TestNative.Device(path), TestNative.Inode(path));
}
