using Dedup.Core.Tests.Infrastructure;
using Dedup.Core.Tests.Linking;
using Dedup.Core.Topology;

namespace Dedup.Core.Tests.Topology;

public sealed class DriveTopologyTests
{
    private static ulong Dev(uint major, uint minor) => ((ulong)major << 32) | minor;

    /// <summary>A sysfs/procfs look-alike in a temporary folder, so every branch is exercised with real files and links.</summary>
    private static TempTree FakeSystem()
    {
        var tree = new TempTree();
        tree.Write("proc/self/mountinfo",
            "27 1 8:1 / / rw - ext4 /dev/sda1 rw\n" +
            "40 27 0:50 / /mnt/nfs rw - nfs4 server:/export rw\n" +
            "41 27 0:51 / /run rw - tmpfs tmpfs rw\n" +
            "42 27 259:0 / /fast rw - xfs /dev/nvme0n1 rw\n" +
            "43 27 252:0 / /raid rw - ext4 /dev/dm-0 rw\n");
        void Disk(string path, string rotational)
        {
            tree.Write($"sys/devices/{path}/queue/rotational", rotational + "\n");
        }

        Disk("pci0/ata1/block/sda", "1");
        tree.Write("sys/devices/pci0/ata1/block/sda/sda1/partition", "1\n");
        Disk("pci0/nvme/block/nvme0n1", "0");
        Disk("virtual/block/dm-0", "0");
        tree.Write("sys/devices/virtual/block/dm-0/slaves/sdb/dev", "8:16\n");
        tree.Write("sys/devices/virtual/block/dm-0/slaves/nvme1n1/dev", "259:1\n");
        Disk("pci0/ata2/block/sdb", "1");
        Disk("pci0/nvme/block/nvme1n1", "0");
        Disk("pci0/virtio1/block/vda", "1");
        Directory.CreateDirectory(tree.PathOf("sys/dev/block"));
        void Link(string devNumber, string target) => File.CreateSymbolicLink(tree.PathOf($"sys/dev/block/{devNumber}"), tree.PathOf($"sys/devices/{target}"));
        Link("8:0", "pci0/ata1/block/sda");
        Link("8:1", "pci0/ata1/block/sda/sda1");
        Link("8:16", "pci0/ata2/block/sdb");
        Link("259:0", "pci0/nvme/block/nvme0n1");
        Link("259:1", "pci0/nvme/block/nvme1n1");
        Link("252:0", "virtual/block/dm-0");
        Link("254:0", "pci0/virtio1/block/vda");
        return tree;
    }

    [LinuxFact]
    public void Classifies_partitions_nvme_network_memory_device_mapper_and_virtio()
    {
        using var tree = FakeSystem();
        var topology = new LinuxDriveTopology(tree.Root);

        Assert.Equal(DriveKind.Hdd, topology.GetDevice(Dev(8, 1)).Kind);    // partition → parent sda, rotational
        Assert.Equal("sda", topology.GetDevice(Dev(8, 1)).Name);
        Assert.Equal("ext4", topology.GetDevice(Dev(8, 1)).FileSystemType);
        Assert.Equal(DriveKind.Ssd, topology.GetDevice(Dev(259, 0)).Kind);
        Assert.Equal(DriveKind.Network, topology.GetDevice(Dev(0, 50)).Kind);
        Assert.Equal(DriveKind.Ram, topology.GetDevice(Dev(0, 51)).Kind);
        Assert.Equal(DriveKind.Hdd, topology.GetDevice(Dev(252, 0)).Kind);  // dm over an HDD and an SSD behaves as an HDD
        Assert.Equal(DriveKind.Unknown, topology.GetDevice(Dev(254, 0)).Kind); // virtio claims rotational: not trusted
        Assert.Equal(DriveKind.Unknown, topology.GetDevice(Dev(9, 9)).Kind);   // no such device
    }

    [LinuxFact]
    public void A_device_mountinfo_does_not_list_is_found_by_its_mount_points_device()
    {
        using var tree = FakeSystem();

        // As on btrfs: the mount lists 0:77, but the folder at its (escaped) mount point reports another number.
        var point = tree.PathOf("mnt/my data");
        Directory.CreateDirectory(point);
        File.AppendAllText(tree.PathOf("proc/self/mountinfo"),
            "60 27 0:77 / /mnt/my\\040data rw - btrfs /dev/sdb rw,subvol=/\n");
        var topology = new LinuxDriveTopology(tree.Root);

        var device = topology.GetDevice(TestNative.Device(point));

        Assert.Equal("btrfs", device.FileSystemType);
    }

    [LinuxFact]
    public void Overrides_win_over_detection()
    {
        using var tree = FakeSystem();
        var topology = DriveTopology.WithOverrides(new LinuxDriveTopology(tree.Root), new Dictionary<ulong, DriveKind> { [Dev(254, 0)] = DriveKind.Ssd });
        Assert.Equal(DriveKind.Ssd, topology.GetDevice(Dev(254, 0)).Kind);
        Assert.Equal(DriveKind.Ssd, topology.GetDevice(Dev(259, 0)).Kind);
    }

    [LinuxFact]
    public void The_real_machine_is_classified_and_tmpfs_is_memory()
    {
        var topology = DriveTopology.CreateDefault();
        var shm = DeviceOf("/dev/shm");
        Assert.Equal(DriveKind.Ram, topology.GetDevice(shm).Kind);
        var root = topology.GetDevice(DeviceOf("/"));
        Assert.False(string.IsNullOrEmpty(root.Name));
    }

    [LinuxFact]
    public void Hdd_admits_one_reader_and_ordered_tokens_never_deadlock()
    {
        using var tree = FakeSystem();
        var manager = new DriveAccessManager(new LinuxDriveTopology(tree.Root), parallelism: 4);
        Assert.Equal(1, manager.GetSemaphore(Dev(8, 1)).Readers);
        Assert.Equal(4, manager.GetSemaphore(Dev(259, 0)).Readers);

        using (manager.Enter(Dev(8, 1), CancellationToken.None))
        {
            Assert.Equal(0, manager.GetSemaphore(Dev(8, 1)).Available);
        }

        Assert.Equal(1, manager.GetSemaphore(Dev(8, 1)).Available);

        // Two threads asking for the same two single-reader devices in opposite orders: ordering prevents a cycle.
        var a = Dev(8, 1);
        var b = Dev(8, 16);
        using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var t1 = Task.Run(() => { for (var i = 0; i < 2000; i++) { using var t = manager.Enter(a, b, cts.Token); } });
        var t2 = Task.Run(() => { for (var i = 0; i < 2000; i++) { using var t = manager.Enter(b, a, cts.Token); } });
        Assert.True(Task.WaitAll([t1, t2], TimeSpan.FromSeconds(30)), "token acquisition deadlocked");
        Assert.Equal(1, manager.GetSemaphore(a).Available);
        Assert.Equal(1, manager.GetSemaphore(b).Available);
    }

    [LinuxFact]
    public void Fiemap_reports_a_physical_offset_for_a_real_file()
    {
        using var tree = new TempTree();
        var path = WrittenToDisk(tree, "data.bin", 5);
        using var handle = File.OpenHandle(path);
        var offset = PhysicalOrder.FirstExtentOffset((int)handle.DangerousGetHandle());
        if (SupportsFiemap(tree.Root))
        {
            Assert.True(offset > 0, $"FIEMAP gave {offset} on a file system that supports it");
        }
        else
        {
            Assert.Equal(-1, offset); // tmpfs and others: the documented "unknown"
        }
    }

    [LinuxFact]
    public void On_a_rotational_disk_the_probe_records_each_files_physical_offset()
    {
        using var tree = new TempTree();
        var a = WrittenToDisk(tree, "a/x.bin", 6);
        var b = WrittenToDisk(tree, "b/x.bin", 6);
        var finder = new DuplicateFinderBuilder().AddRoot(tree.Root).WithDriveKind(tree.Root, DriveKind.Hdd).Build();
        var state = new Core.Scanning.ScanContext(finder.Options, new Dedup.Core.Diagnostics.ScanErrorSink());
        state.CaptureDrives(); // the declared kind applies from the scan's start
        var nodes = new[] { a, b }.Select(p => new Core.IO.FileNode(Scanned(p))).ToList();
        using var set = new Core.Scanning.FileComparisonSet(nodes, nodes[0].Primary.Length, state) { RecordPhysicalOffsets = true };

        var unsettled = new List<List<int>>();
        Core.Scanning.ProbeStage.Run(set, Core.Scanning.ReaderFanOut.Single, unsettled, CancellationToken.None);

        Assert.Single(unsettled);
        if (SupportsFiemap(tree.Root))
        {
            Assert.All(nodes, n => Assert.True(n.PhysicalOffset > 0, $"no physical offset recorded for {n.Primary.Path}"));
            Assert.NotEqual(nodes[0].PhysicalOffset, nodes[1].PhysicalOffset);
        }
        else
        {
            Assert.All(nodes, n => Assert.Equal(-1, n.PhysicalOffset)); // tmpfs and others: FileNode's "unknown"
        }
    }

    private static string WrittenToDisk(TempTree tree, string name, int seed)
    {
        var path = tree.Write(name, TempTree.RandomBytes(256 * 1024, seed));
        using (var fs = new FileStream(path, FileMode.Open))
        {
            fs.Flush(flushToDisk: true); // allocate extents now (delayed allocation would report none)
        }

        return path;
    }

    private static bool SupportsFiemap(string path) =>
        DriveTopology.CreateDefault().GetDevice(DeviceOf(path)).FileSystemType is "ext4" or "xfs" or "btrfs";

    private static Enumeration.ScannedFile Scanned(string path)
    {
        var info = new FileInfo(path);
        var identity = new Enumeration.FileIdentity(DeviceOf(path), Inode(path));
        return new Enumeration.ScannedFile(Core.Paths.AbsolutePath.Parse(path), info.Length, identity, 1, info.LastWriteTimeUtc);
    }

    private static ulong Inode(string path)
    {
        var (_, stdout, _) = ProcessRunner.Run("stat", ["-c", "%i", path]);
        return ulong.Parse(stdout.Trim(), System.Globalization.CultureInfo.InvariantCulture);
    }

    private static ulong DeviceOf(string path)
    {
        Assert.True(DeviceLookup.TryGet(path, out var device, out var problem), problem);
        return device;
    }
}
