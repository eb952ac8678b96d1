using System.Collections.Concurrent;
using System.Globalization;
using Dedup.Core.Topology;
using Dedup.Core.WindowsTests.Infrastructure;

namespace Dedup.Core.WindowsTests;

/// <summary>
/// The Windows topology through the public API: a file's device is its volume serial, and the default topology
/// resolves that serial to the local volume (drive type, seek penalty, file system).
/// </summary>
public sealed class TopologyTests
{
    [Fact]
    public async Task The_temp_volume_resolves_to_a_local_kind_with_its_mount_path()
    {
        using var tree = new TempTree();
        var serial = Win32.VolumeSerial(Path.GetPathRoot(tree.Root)!);

        var device = DriveTopology.CreateDefault().GetDevice(await DeviceOfAScanAsync(tree));

        Assert.Equal(serial, device.Id);
        Assert.Contains(device.Kind, new[] { DriveKind.Ssd, DriveKind.Hdd, DriveKind.Unknown }); // local, whatever the disk
        Assert.NotEqual(FormatSerial(serial), device.Name); // found among the local volumes, not named by its serial
        Assert.False(string.IsNullOrEmpty(device.FileSystemType));
    }

    [Fact]
    public async Task The_scan_asks_the_topology_for_the_volume_serial_of_its_files()
    {
        using var tree = new TempTree();
        var recording = new RecordingTopology();
        tree.Write("a.bin", TempTree.RandomBytes(5000, 1));
        tree.Write("sub/b.bin", TempTree.RandomBytes(5000, 1));

        var groups = new List<DuplicateGroup>();
        await foreach (var group in new DuplicateFinderBuilder().AddRoot(tree.Root).UseDriveTopology(recording).Build().FindAsync())
        {
            groups.Add(group);
        }

        Assert.Single(groups);
        Assert.Equal(Win32.VolumeSerial(Path.GetPathRoot(tree.Root)!), Assert.Single(recording.Asked.Keys));
    }

    [Fact]
    public async Task A_drive_kind_override_applies_to_the_device_its_files_report()
    {
        using var tree = new TempTree();
        var device = await DeviceOfAScanAsync(tree);

        var topology = DriveTopology.WithOverrides(DriveTopology.CreateDefault(), new Dictionary<ulong, DriveKind> { [device] = DriveKind.Hdd });

        Assert.Equal(DriveKind.Hdd, topology.GetDevice(device).Kind);
        _ = new DuplicateFinderBuilder().AddRoot(tree.Root).WithDriveKind(tree.Root, DriveKind.Hdd).Build(); // resolves the root's volume
    }

    [Fact]
    public void A_serial_no_volume_has_is_unknown()
    {
        var local = DriveInfo.GetDrives().Where(d => d.IsReady).Select(d => TrySerial(d.RootDirectory.FullName)).ToHashSet();
        var serial = 0xDEDC0DE0u;
        while (local.Contains(serial))
        {
            serial++;
        }

        var topology = DriveTopology.CreateDefault();
        var device = topology.GetDevice(serial);

        Assert.Equal(DriveKind.Unknown, device.Kind);
        Assert.Equal(FormatSerial(serial), device.Name);
        Assert.Equal(DriveKind.Unknown, topology.GetDevice((ulong)uint.MaxValue + 7).Kind); // not a serial at all
    }

    /// <summary>The form Windows shows a serial in (<c>vol</c>, <c>dir</c>): XXXX-XXXX.</summary>
    private static string FormatSerial(uint serial) => string.Create(CultureInfo.InvariantCulture, $"{serial >> 16:X4}-{serial & 0xFFFF:X4}");

    private static uint? TrySerial(string root)
    {
        try
        {
            return Win32.VolumeSerial(root);
        }
        catch (IOException)
        {
            return null;
        }
    }

    private static async Task<ulong> DeviceOfAScanAsync(TempTree tree)
    {
        tree.Write("x/a.bin", TempTree.RandomBytes(1000, 9));
        tree.Write("y/b.bin", TempTree.RandomBytes(1000, 9));
        var group = Assert.Single(await Scans.RawGroupsAsync(tree.Root));
        var device = group.Files[0].Identity.Device;
        Assert.NotEqual(0UL, device);
        return device;
    }

    private sealed class RecordingTopology : IDriveTopology
    {
        public ConcurrentDictionary<ulong, int> Asked { get; } = new();

        public StorageDevice GetDevice(ulong deviceId)
        {
            Asked.AddOrUpdate(deviceId, 1, (_, n) => n + 1);
            return new StorageDevice(deviceId, "recorded", DriveKind.Ssd);
        }
    }
}
