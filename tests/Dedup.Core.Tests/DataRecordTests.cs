using Dedup.Core.Enumeration;
using Dedup.Core.Paths;
using Dedup.Core.Reporting;
using Dedup.Core.Topology;
using Xunit;

namespace Dedup.Core.Tests;

/// <summary>The plain-data types are records: value equality where it means something, validation in init, no positional Deconstruct.</summary>
public sealed class DataRecordTests
{
    [Fact]
    public void Errors_and_devices_compare_by_value_and_validate_in_init()
    {
        var error = new ScanError("/p", ScanErrorKind.AccessDenied, "Permission denied");
        Assert.Equal(new ScanError("/p", ScanErrorKind.AccessDenied, "Permission denied"), error);
        Assert.NotEqual(error with { Kind = ScanErrorKind.IOError }, error);
        Assert.Equal("/p: Permission denied", error.ToString());
        Assert.Throws<ArgumentNullException>(() => error with { Path = null! });
        Assert.Throws<ArgumentNullException>(() => error with { Message = null! });

        var device = new StorageDevice(7, "sda", DriveKind.Ssd, "ext4");
        Assert.Equal(new StorageDevice(7, "sda", DriveKind.Ssd, "ext4"), device);
        Assert.Equal("sda (Ssd, ext4)", device.ToString());
        Assert.Equal(DriveKind.Hdd, (device with { Kind = DriveKind.Hdd }).Kind);
        Assert.Throws<ArgumentNullException>(() => new StorageDevice(7, null!, DriveKind.Ssd));
        Assert.Throws<ArgumentNullException>(() => device with { Name = null! });
    }

    [Fact]
    public void A_summary_holds_its_totals_and_its_error_list_by_reference()
    {
        ScanError[] errors = [new("/p", ScanErrorKind.NotFound, "gone")];
        var summary = new ScanSummary { FilesScanned = 3, BytesRead = 10, Groups = 1, DuplicateFiles = 1, WastedBytes = 5, Errors = errors, Elapsed = TimeSpan.FromSeconds(1) };

        Assert.Equal(summary with { }, summary);
        Assert.NotEqual(summary with { Errors = [.. errors] }, summary); // same items, another list
        Assert.Throws<ArgumentNullException>(() => summary with { Errors = null! });
    }

    [Fact]
    public void Progress_is_set_by_name()
    {
        var progress = new ScanProgress { Phase = ScanPhase.Comparing, FilesScanned = 2, BytesRead = 3, GroupsFound = 1, Errors = 0 };

        Assert.Equal(progress with { }, progress);
        Assert.Equal(ScanPhase.Comparing, progress.Phase);
        Assert.Null(typeof(ScanProgress).GetMethod("Deconstruct"));
    }

    [Fact]
    public void Duplicate_files_and_groups_compare_by_value()
    {
        var time = new DateTime(2024, 1, 2, 3, 4, 5, DateTimeKind.Utc);
        var file = new DuplicateFile(AbsolutePath.Parse("/a/x"), [AbsolutePath.Parse("/a/y")], new FileIdentity(1, 2), 10, 2, time);
        var same = new DuplicateFile(AbsolutePath.Parse("/a/x"), [AbsolutePath.Parse("/a/y")], new FileIdentity(1, 2), 10, 2, time);
        var other = new DuplicateFile(AbsolutePath.Parse("/a/z"), [], new FileIdentity(1, 3), 10, 1, time);

        Assert.Equal(file, same); // OtherLinks compared name by name
        Assert.Equal(file.GetHashCode(), same.GetHashCode());
        Assert.NotEqual(file, same with { OtherLinks = [] });
        Assert.NotEqual(file, same with { LastChangeTimeUtc = time });
        Assert.Throws<ArgumentNullException>(() => file with { Path = null! });

        var group = new DuplicateGroup(10, [file, other], verifiedByBytes: true);
        var copy = group with { };
        Assert.Equal(group, group);
        Assert.Equal(group, copy); // files compared file by file
        Assert.NotEqual(group, copy with { Files = [file, other with { Length = 11 }] });
        Assert.Equal(group.WastedBytes, copy.WastedBytes);
        Assert.Throws<ArgumentNullException>(() => group with { Files = null! });
    }
}
