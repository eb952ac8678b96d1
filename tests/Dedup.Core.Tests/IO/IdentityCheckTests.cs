using Dedup.Core.Enumeration;
using Dedup.Core.IO;
using Dedup.Core.Paths;
using Xunit;

namespace Dedup.Core.Tests.IO;

/// <summary>
/// A mismatch between the identity an enumerator listed and the one an open found is a replaced file, unless the
/// enumerator is not the library's own and its identities are plainly another encoding: the same inode on another
/// device number, the device as raw <c>st_dev</c>, or nothing but mismatches from the start.
/// </summary>
public sealed class IdentityCheckTests
{
    // Device 8:1 (sda1): statx packs it as (8 << 32) | 1, glibc's st_dev as 0x801.
    private const uint Major = 8;
    private const uint Minor = 1;
    private const ulong Inode = 1234;

    [Fact]
    public void The_librarys_own_identities_are_never_called_foreign_even_with_the_same_inode_on_another_device()
    {
        var check = new IdentityCheck(trusted: true);
        var file = Listed(new FileIdentity(99, Inode));

        for (var i = 0; i < IdentityCheck.ForeignAfter + 2; i++)
        {
            Assert.Equal(
                "File changed during the scan (replaced by another file, or the file enumerator's FileIdentity is not the file system's: listed 0:99/1234, found 8:1/1234); left out",
                check.Explain(file, Major, Minor, Inode));
        }

        Assert.True(check.Trusted);
        Assert.False(new IdentityCheck(trusted: false).Trusted);
    }

    [Fact]
    public void Once_an_open_matched_a_mismatch_is_a_replaced_file()
    {
        var check = new IdentityCheck(trusted: true);
        check.NoteMatch();
        check.NoteMatch();

        Assert.Equal(
            "File changed during the scan (replaced by another file: listed 8:1/1, found 8:1/2); left out",
            check.Explain(Listed(FileIdentity.FromStatx(Major, Minor, 1)), Major, Minor, 2));
    }

    [Fact]
    public void A_foreign_enumerators_same_inode_on_another_device_is_its_encoding()
    {
        var check = new IdentityCheck(trusted: false);
        check.NoteMatch(); // even after matches: the same inode is the same file

        Assert.Equal(
            "The file enumerator's FileIdentity (0:99/1234, Device 99) does not match the file system's (8:1/1234): "
            + $"its Device 99 is not (major << 32) | minor = {FileIdentity.FromStatx(Major, Minor, Inode).Device}. "
            + "Fill it with FileIdentity.FromUnixStat(st_dev, st_ino) or FileIdentity.FromStatx(stx_dev_major, stx_dev_minor, stx_ino); left out",
            check.Explain(Listed(new FileIdentity(99, Inode)), Major, Minor, Inode));
    }

    [Fact]
    public void A_foreign_enumerators_raw_st_dev_is_named_even_for_another_inode()
    {
        var check = new IdentityCheck(trusted: false);
        check.NoteMatch();
        var rawStatDevice = FileIdentity.UnixStatDevice(Major, Minor);
        Assert.Equal(0x801UL, rawStatDevice);

        var explained = check.Explain(Listed(new FileIdentity(rawStatDevice, Inode + 1)), Major, Minor, Inode);

        Assert.StartsWith("The file enumerator's FileIdentity (0:2049/1235, Device 2049) does not match the file system's (8:1/1234): ", explained);
        Assert.Contains("its Device 2049 is stat's st_dev, not (major << 32) | minor. Fill it with", explained);
    }

    [Fact]
    public void A_device_whose_st_dev_and_statx_numbers_agree_is_no_sign_of_raw_st_dev()
    {
        // Device 0:5 (a virtual file system): st_dev and the packed statx number are both 5, so a listed Device 5 with
        // another inode is a replaced file, not an encoding.
        var check = new IdentityCheck(trusted: false);
        check.NoteMatch();
        Assert.Equal(5UL, FileIdentity.UnixStatDevice(0, 5));

        Assert.Equal(
            "File changed during the scan (replaced by another file: listed 0:5/7, found 0:5/8); left out",
            check.Explain(Listed(new FileIdentity(5, 7)), 0, 5, 8));
    }

    [Fact]
    public void A_foreign_enumerator_whose_first_opens_all_mismatch_is_called_foreign_at_the_eighth()
    {
        var check = new IdentityCheck(trusted: false);
        for (var i = 1; i < IdentityCheck.ForeignAfter; i++)
        {
            Assert.StartsWith("File changed during the scan (replaced by another file, or the file enumerator's FileIdentity",
                check.Explain(Listed(FileIdentity.FromStatx(Major, Minor, (ulong)i)), Major, Minor, 1000 + (ulong)i));
        }

        var explained = check.Explain(Listed(FileIdentity.FromStatx(Major, Minor, 1)), Major, Minor, 1001);
        Assert.Contains("): none of the first 8 files opened had the identity the enumerator gave. Fill it with", explained);
        Assert.Equal(8, IdentityCheck.ForeignAfter);
    }

    [Fact]
    public void A_foreign_enumerator_that_matched_once_has_replaced_files_however_many_mismatch()
    {
        var check = new IdentityCheck(trusted: false);
        check.NoteMatch();
        for (var i = 1; i <= IdentityCheck.ForeignAfter + 2; i++)
        {
            Assert.StartsWith("File changed during the scan (replaced by another file: listed",
                check.Explain(Listed(FileIdentity.FromStatx(Major, Minor, (ulong)i)), Major, Minor, 1000 + (ulong)i));
        }
    }

    private static ScannedFile Listed(FileIdentity identity) =>
        new(AbsolutePath.Parse(OperatingSystem.IsWindows() ? @"C:\x\a.bin" : "/x/a.bin"), 10, identity, 1, new DateTime(2026, 1, 1, 0, 0, 0, DateTimeKind.Utc));
}
