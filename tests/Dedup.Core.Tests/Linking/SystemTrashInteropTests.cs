using System.Runtime.InteropServices;
using Dedup.Core.Interop;
using Dedup.Core.Linking;
using Dedup.Core.Linking.Trash;

namespace Dedup.Core.Tests.Linking;

/// <summary>
/// The parts of the Windows code that do not need Windows: native struct layouts as a 64-bit process sees them,
/// the SHFileOperationW source list, the paths refused before it is called, the long-path form for CreateFileW.
/// </summary>
public sealed class SystemTrashInteropTests
{
    [Fact]
    public void SHFILEOPSTRUCTW_has_the_64_bit_Windows_layout()
    {
        Assert.True(Environment.Is64BitProcess, "the layout is declared for 64-bit processes");
        Assert.Equal(56, Marshal.SizeOf<ShFileOpStruct>());
        Assert.Equal(
            [0, 8, 16, 24, 32, 36, 40, 48],
            new[] { "Window", "Function", "From", "To", "Flags", "AnyOperationsAborted", "NameMappings", "ProgressTitle" }
                .Select(field => (int)Marshal.OffsetOf<ShFileOpStruct>(field)));
    }

    [Fact]
    public void BY_HANDLE_FILE_INFORMATION_keeps_its_FILETIMEs_unpadded()
    {
        Assert.Equal(52, Marshal.SizeOf<ByHandleFileInformation>());
        Assert.Equal(28, (int)Marshal.OffsetOf<ByHandleFileInformation>(nameof(ByHandleFileInformation.VolumeSerialNumber)));
        Assert.Equal(44, (int)Marshal.OffsetOf<ByHandleFileInformation>(nameof(ByHandleFileInformation.FileIndexHigh)));
        Assert.Equal(48, (int)Marshal.OffsetOf<ByHandleFileInformation>(nameof(ByHandleFileInformation.FileIndexLow)));
    }

    [Fact]
    public void The_source_list_is_the_path_ended_by_two_NULs()
    {
        var list = RecycleBin.SourceList(@"C:\Users\me\b.bin");

        Assert.Equal("C:\\Users\\me\\b.bin\0\0", list);
        Assert.Equal(list.Length - 2, list.IndexOf('\0', StringComparison.Ordinal));
    }

    [Theory]
    [InlineData(@"C:\Users\me\b.bin", null)]
    [InlineData(@"d:\a b\ü.bin", null)]
    [InlineData(@"\\server\share\b.bin", "network (UNC)")]
    [InlineData(@"\\?\C:\b.bin", "network (UNC) or device path")]
    [InlineData(@"b.bin", "not a full path")]
    [InlineData(@"C:b.bin", "not a full path")]
    [InlineData("C:\\a\0b.bin", "NUL")]
    [InlineData(@"C:\a\*.bin", "wildcard")]
    public void Paths_SHFileOperationW_must_not_see_are_refused(string path, string? reason)
    {
        var refusal = RecycleBin.RefusalForPath(path);

        if (reason is null)
        {
            Assert.Null(refusal);
        }
        else
        {
            Assert.NotNull(refusal);
            Assert.Contains(reason, refusal, StringComparison.Ordinal);
            Assert.EndsWith("not moved", refusal, StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Paths_from_MAX_PATH_on_are_refused()
    {
        var longest = @"C:\" + new string('x', 256);
        Assert.Equal(259, longest.Length);
        Assert.Null(RecycleBin.RefusalForPath(longest));
        Assert.Contains("260 characters", RecycleBin.RefusalForPath(longest + "y"), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(@"\\?\Volume{0b1f2c3d-1111-2222-3333-444455556666}\Users\me\b.bin", @"\\?\Volume{0b1f2c3d-1111-2222-3333-444455556666}\")]
    [InlineData(@"\\?\volume{ABC}\x", @"\\?\volume{ABC}\")]
    [InlineData(@"\\?\C:\Users\me\b.bin", null)]
    [InlineData(@"\\?\Volume{unterminated\x", null)]
    [InlineData(@"\\?\Volume{ABC}", null)]
    [InlineData(@"C:\Users\me\b.bin", null)]
    public void The_volume_holding_a_file_is_read_from_its_final_GUID_path(string finalPath, string? expected)
    {
        // The Recycle Bin check classifies this volume root, not the path's drive letter (mount folders, junctions).
        Assert.Equal(expected, RecycleBin.VolumeRootFromFinalPath(finalPath));
    }

    [Fact]
    public void SHFileOperationW_results_are_named_with_their_code()
    {
        Assert.Equal("the path is invalid (SHFileOperationW result 0x7C)", RecycleBin.DescribeResult(0x7C));
        Assert.Equal("the operation was cancelled (SHFileOperationW result 0x75)", RecycleBin.DescribeResult(0x75));
    }

    [Theory]
    [InlineData("C:\\\0\0", "C:\\")]
    [InlineData("D:\\mnt\\vol\\\0E:\\\0\0", "E:\\")] // a folder mount point first, then the letter
    [InlineData("D:\\mnt\\vol\\\0\0", null)] // mounted on a folder only: no letter, so refused
    [InlineData("\0", null)]
    [InlineData("", null)]
    [InlineData("Z:\\", "Z:\\")] // no terminator at the end of the buffer
    public void The_drive_letter_of_a_volume_is_taken_from_its_mount_point_list(string list, string? expected)
        => Assert.Equal(expected, RecycleBin.DriveLetterRoot(list));
}
