using System.Runtime.InteropServices;
using Dedup.Core.Topology;
using static Dedup.Core.Topology.WindowsStorageLayout;

namespace Dedup.Core.Tests.Topology;

/// <summary>The platform-neutral decoding behind <see cref="WindowsDriveTopology"/>, with the structures' real byte layouts.</summary>
public sealed class WindowsStorageLayoutTests
{
    /// <summary>winioctl.h's STORAGE_PROPERTY_QUERY as the C compiler lays it out.</summary>
    [StructLayout(LayoutKind.Sequential)]
    private struct StoragePropertyQuery
    {
        public int PropertyId;
        public int QueryType;
        public byte AdditionalParameters;
    }

    /// <summary>winioctl.h's DEVICE_SEEK_PENALTY_DESCRIPTOR (BOOLEAN is a BYTE).</summary>
    [StructLayout(LayoutKind.Sequential)]
    private struct DeviceSeekPenaltyDescriptor
    {
        public uint Version;
        public uint Size;
        public byte IncursSeekPenalty;
    }

    [Fact]
    public void Buffer_sizes_match_the_native_structures()
    {
        Assert.Equal(PropertyQuerySize, Marshal.SizeOf<StoragePropertyQuery>());
        Assert.Equal(SeekPenaltyDescriptorSize, Marshal.SizeOf<DeviceSeekPenaltyDescriptor>());
        Assert.Equal(8, Marshal.OffsetOf<DeviceSeekPenaltyDescriptor>(nameof(DeviceSeekPenaltyDescriptor.IncursSeekPenalty)).ToInt32());
    }

    [Fact]
    public void The_query_asks_for_the_seek_penalty_property_with_a_standard_query()
    {
        var buffer = new byte[16];
        Array.Fill(buffer, (byte)0xEE);
        WriteSeekPenaltyQuery(buffer);

        Assert.Equal(new byte[] { 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, buffer[..12]);
        Assert.Equal(new byte[] { 0xEE, 0xEE, 0xEE, 0xEE }, buffer[12..]); // nothing written past the structure
        var query = MemoryMarshal.Read<StoragePropertyQuery>(buffer);
        Assert.Equal((7, 0, (byte)0), (query.PropertyId, query.QueryType, query.AdditionalParameters));
    }

    [Theory]
    [InlineData(new byte[] { 12, 0, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0 }, DriveKind.Hdd)] // as a SATA disk answers
    [InlineData(new byte[] { 12, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0 }, DriveKind.Ssd)] // as an NVMe drive answers
    [InlineData(new byte[] { 12, 0, 0, 0, 12, 0, 0, 0, 0xFF, 0, 0, 0 }, DriveKind.Hdd)] // any non-zero BOOLEAN is TRUE
    [InlineData(new byte[] { 12, 0, 0, 0, 12, 0, 0, 0, 0 }, DriveKind.Ssd)] // no padding returned: the flag is there
    [InlineData(new byte[] { 12, 0, 0, 0, 12, 0, 0, 0 }, DriveKind.Unknown)] // cut before the flag
    [InlineData(new byte[] { 12, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0 }, DriveKind.Unknown)] // Size says the flag is not included
    [InlineData(new byte[0], DriveKind.Unknown)]
    public void Seek_penalty_descriptors_decode_to_a_kind(byte[] returned, DriveKind expected)
    {
        Assert.Equal(expected, DecodeSeekPenalty(returned));
    }

    [Fact]
    public void A_descriptor_built_from_the_native_layout_decodes()
    {
        foreach (var (flag, expected) in new[] { ((byte)1, DriveKind.Hdd), ((byte)0, DriveKind.Ssd) })
        {
            var descriptor = new DeviceSeekPenaltyDescriptor { Version = 12, Size = 12, IncursSeekPenalty = flag };
            var bytes = MemoryMarshal.AsBytes(new ReadOnlySpan<DeviceSeekPenaltyDescriptor>(ref descriptor));
            Assert.Equal(expected, DecodeSeekPenalty(bytes));
        }
    }

    [Theory]
    [InlineData(DRIVE_UNKNOWN, null)]
    [InlineData(DRIVE_NO_ROOT_DIR, null)]
    [InlineData(DRIVE_REMOVABLE, null)]
    [InlineData(DRIVE_FIXED, null)]
    [InlineData(DRIVE_REMOTE, DriveKind.Network)]
    [InlineData(DRIVE_CDROM, null)]
    [InlineData(DRIVE_RAMDISK, DriveKind.Ram)]
    public void Drive_types_settle_network_and_ram_and_leave_the_rest_to_the_device(uint driveType, DriveKind? expected)
    {
        Assert.Equal(expected, KindFromDriveType(driveType));
    }

    [Theory]
    [InlineData(@"\\server\share\", DRIVE_REMOTE, DriveKind.Network)]
    [InlineData(@"\\server\share\", DRIVE_NO_ROOT_DIR, DriveKind.Network)] // server unreachable: still a share
    [InlineData(@"Z:\", DRIVE_REMOTE, DriveKind.Network)]                  // a mapped drive letter
    [InlineData(@"R:\", DRIVE_RAMDISK, DriveKind.Ram)]
    [InlineData(@"E:\", DRIVE_FIXED, DriveKind.Unknown)]
    [InlineData(@"\\?\Volume{5d1c7e3a-0000-0000-0000-100000000000}\", DRIVE_FIXED, DriveKind.Unknown)]
    public void Roots_no_local_volume_matched_are_classified_by_form_and_drive_type(string root, uint driveType, DriveKind expected)
    {
        Assert.Equal(expected, KindOfUnlistedRoot(root, driveType));
    }

    [Theory]
    [InlineData(new DriveKind[0], DriveKind.Unknown)]
    [InlineData(new[] { DriveKind.Ssd }, DriveKind.Ssd)]
    [InlineData(new[] { DriveKind.Ssd, DriveKind.Ssd }, DriveKind.Ssd)]
    [InlineData(new[] { DriveKind.Ssd, DriveKind.Hdd }, DriveKind.Hdd)]
    [InlineData(new[] { DriveKind.Unknown, DriveKind.Hdd }, DriveKind.Hdd)]
    [InlineData(new[] { DriveKind.Ssd, DriveKind.Unknown }, DriveKind.Unknown)]
    [InlineData(new[] { DriveKind.Ram, DriveKind.Ssd }, DriveKind.Unknown)]
    public void Volumes_sharing_a_serial_combine_conservatively(DriveKind[] kinds, DriveKind expected)
    {
        Assert.Equal(expected, Combine(kinds));
    }

    [Theory]
    [InlineData(0x1A2B3C4Du, "1A2B-3C4D")]
    [InlineData(0u, "0000-0000")]
    [InlineData(0xFFFFFFFFu, "FFFF-FFFF")]
    public void Serials_print_as_vol_does(uint serial, string expected)
    {
        Assert.Equal(expected, FormatSerial(serial));
    }

    [Fact]
    public void The_first_mount_path_is_read_from_the_double_nul_list()
    {
        Assert.Equal(@"C:\", FirstOfMultiString("C:\\\0D:\\mnt\\data\\\0\0\0\0".AsSpan()));
        Assert.Equal(@"D:\mnt\data\", FirstOfMultiString("D:\\mnt\\data\\\0\0".AsSpan()));
        Assert.Null(FirstOfMultiString("\0\0".AsSpan())); // a volume mounted nowhere
        Assert.Null(FirstOfMultiString(ReadOnlySpan<char>.Empty));
    }

    [Theory]
    [InlineData(@"\\?\Volume{5d1c7e3a-1111-2222-3333-444455556666}\", @"\\?\Volume{5d1c7e3a-1111-2222-3333-444455556666}")]
    [InlineData(@"C:\", @"\\.\C:")]
    [InlineData(@"\\server\share\", null)]
    [InlineData(@"relative\path", null)]
    public void The_volume_device_is_the_root_without_its_trailing_backslash(string root, string? expected)
    {
        Assert.Equal(expected, DevicePathOf(root));
    }

    [Theory]
    [InlineData(@"C:\Users\me\Pictures", @"C:\")]
    [InlineData(@"c:\", @"c:\")]
    [InlineData(@"D:", @"D:\")]
    [InlineData(@"D:/photos/2024", @"D:\")]
    [InlineData(@"\\server\share\photos", @"\\server\share\")]
    [InlineData(@"\\server\share", @"\\server\share\")]
    [InlineData(@"\\?\UNC\server\share\photos", @"\\server\share\")]
    [InlineData(@"\\?\C:\very\long\path", @"C:\")]
    [InlineData(@"\\?\Volume{5d1c7e3a-1111-2222-3333-444455556666}\data", @"\\?\Volume{5d1c7e3a-1111-2222-3333-444455556666}\")]
    [InlineData(@"\\server", null)]
    [InlineData(@"/home/me", null)]
    [InlineData(@"CD:\x", null)]
    public void Volume_roots_are_found_for_drive_letters_shares_and_extended_paths(string path, string? expected)
    {
        Assert.Equal(expected, VolumeRootOf(path));
    }

    [Fact]
    public void Only_paths_past_max_path_get_the_extended_prefix()
    {
        Assert.Equal(@"C:\short", WithLongPathPrefix(@"C:\short"));
        var longLocal = @"C:\" + new string('a', 300);
        Assert.Equal(@"\\?\" + longLocal, WithLongPathPrefix(longLocal));
        var longShare = @"\\server\share\" + new string('b', 300);
        Assert.Equal(@"\\?\UNC\server\share\" + new string('b', 300), WithLongPathPrefix(longShare));
        var already = @"\\?\C:\" + new string('c', 300);
        Assert.Equal(already, WithLongPathPrefix(already));
    }

    [Fact]
    public void Shares_are_told_from_local_and_extended_roots()
    {
        Assert.True(IsUncRoot(@"\\server\share\"));
        Assert.False(IsUncRoot(@"C:\"));
        Assert.False(IsUncRoot(@"\\?\Volume{5d1c7e3a-1111-2222-3333-444455556666}\"));
        Assert.False(IsUncRoot(@"\\.\C:"));
    }
}
