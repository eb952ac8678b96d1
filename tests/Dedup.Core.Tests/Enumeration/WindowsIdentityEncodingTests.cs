using Dedup.Core.Enumeration;

namespace Dedup.Core.Tests.EnumerationTests;

/// <summary>The Windows identity encoding (FileIdentity.FromWindows): pure arithmetic, so checked here on Linux.</summary>
public sealed class WindowsIdentityEncodingTests
{
    [Fact]
    public void A_64_bit_file_ID_is_kept_exactly_and_the_serial_cut_to_the_32_bits_the_volume_calls_report()
    {
        // NTFS: FILE_ID_INFO's ID is the file index zero-extended; its serial is 64-bit, GetVolumeInformationW's the low half.
        var identity = FileIdentity.FromWindows(0x1234_5678_9ABC_DEF0, 0x0005_0000_0000_1A2B, 0);
        Assert.Equal(0x9ABC_DEF0UL, identity.Device);
        Assert.Equal(0x0005_0000_0000_1A2BUL, identity.FileId);
    }

    [Fact]
    public void The_two_calls_give_one_identity_for_an_NTFS_file()
    {
        // FileIdInfo (64-bit serial) and GetFileInformationByHandle (32-bit serial, index) on the same file.
        Assert.Equal(FileIdentity.FromWindows(0xAAAA_0000_1111_2222, 42, 0), FileIdentity.FromWindows(0x1111_2222, 42, 0));
    }

    [Fact]
    public void Full_128_bit_IDs_that_differ_only_in_their_high_half_stay_distinct()
    {
        var ids = new HashSet<ulong>();
        for (ulong high = 0; high < 1000; high++)
        {
            Assert.True(ids.Add(FileIdentity.FromWindows(1, 7, high).FileId));
        }
    }

    [Theory]
    [InlineData(0x1000, true)] // FILE_ATTRIBUTE_OFFLINE
    [InlineData(0x40000, true)] // FILE_ATTRIBUTE_RECALL_ON_OPEN (a cloud placeholder)
    [InlineData(0x400000, true)] // FILE_ATTRIBUTE_RECALL_ON_DATA_ACCESS (OneDrive "files on demand")
    [InlineData(0x400020, true)] // the same, with the archive bit
    [InlineData(0x80, false)] // FILE_ATTRIBUTE_NORMAL
    [InlineData(0x20, false)] // FILE_ATTRIBUTE_ARCHIVE
    [InlineData(0x400, false)] // a reparse point alone (symbolic link, junction): not followed, but not a placeholder
    public void Cloud_placeholders_and_offline_files_are_told_by_their_attributes(int attributes, bool placeholder)
        => Assert.Equal(placeholder, WindowsFileIds.IsPlaceholder((FileAttributes)attributes));
}
