using System.Collections.Concurrent;
using System.Runtime.Versioning;
using Dedup.Core.Enumeration;
using Dedup.Core.Reporting;
using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Topology;

namespace Dedup.Core.Tests.Topology;

/// <summary>The native half of the Windows topology; skipped, with the reason, on other platforms.</summary>
[SupportedOSPlatform("windows")]
public sealed class WindowsDriveTopologyTests
{
    [WindowsFact]
    public void The_system_volume_resolves_to_a_local_kind_with_its_mount_path()
    {
        var root = Path.GetPathRoot(Environment.SystemDirectory)!;
        var id = DeviceOf(root);
        var device = new WindowsDriveTopology().GetDevice(id);

        Assert.Equal(id, device.Id);
        Assert.Contains(device.Kind, new[] { DriveKind.Ssd, DriveKind.Hdd, DriveKind.Unknown }); // local, whatever the disk
        Assert.NotEqual(WindowsStorageLayout.FormatSerial((uint)id), device.Name); // found among the local volumes
        Assert.NotNull(device.FileSystemType);
        Assert.Contains(WindowsDriveTopology.EnumerateVolumes(), v => v.Serial == (uint)id);
    }

    [WindowsFact]
    public async Task A_files_device_from_the_enumerator_is_its_volume_serial_and_the_topologys_id()
    {
        using var tree = new TempTree();
        var file = tree.Write("sub/a.bin", TempTree.RandomBytes(1000, 1));
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).Build();
        var context = Dedup.Core.Scanning.EnumerationContexts.Create(finder.Options, new ScanErrorSink());

        var files = new List<ScannedFile>();
        await foreach (var scanned in new ParallelFileEnumerator().EnumerateAsync(context))
        {
            files.Add(scanned);
        }

        var found = Assert.Single(files);
        Assert.EndsWith("a.bin", found.Path.ToString(), StringComparison.Ordinal);
        Assert.Equal(DeviceOf(file), found.Identity.Device);
        Assert.NotEqual(0UL, found.Identity.Device);
        var device = DriveTopology.CreateDefault().GetDevice(found.Identity.Device);
        Assert.Equal(found.Identity.Device, device.Id);
        Assert.NotEqual(WindowsStorageLayout.FormatSerial((uint)device.Id), device.Name);
    }

    [WindowsFact]
    public void A_drive_kind_override_on_a_root_applies_to_the_device_its_files_report()
    {
        using var tree = new TempTree();
        tree.Write("a.bin", TempTree.RandomBytes(10, 2));
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).WithDriveKind(tree.Root, DriveKind.Hdd).Build();

        var device = DeviceOf(tree.PathOf("a.bin"));
        Assert.Equal(DriveKind.Hdd, finder.Options.Topology.GetDevice(device).Kind);
    }

    [WindowsFact]
    public void A_serial_no_volume_has_is_unknown()
    {
        var local = WindowsDriveTopology.EnumerateVolumes().Select(v => v.Serial).ToHashSet();
        var serial = 0xDEDC0DE0u;
        while (local.Contains(serial))
        {
            serial++;
        }

        var topology = new WindowsDriveTopology();
        var device = topology.GetDevice(serial);
        Assert.Equal(DriveKind.Unknown, device.Kind);
        Assert.Equal(WindowsStorageLayout.FormatSerial(serial), device.Name);
        Assert.Equal(DriveKind.Unknown, topology.GetDevice((ulong)uint.MaxValue + 7).Kind); // not a serial at all
    }

    private static ulong DeviceOf(string path)
    {
        Assert.True(DeviceLookup.TryGet(path, out var device, out var problem), problem);
        return device;
    }
}
