using System.Collections.Concurrent;
using System.Globalization;
using System.Text;
using Dedup.Core.Interop;

namespace Dedup.Core.Topology;

/// <summary>
/// Linux topology: a device number is looked up in <c>/proc/self/mountinfo</c> (network and memory file
/// systems, and the source device of anonymous-device mounts such as btrfs), or, when no entry has that number, by
/// the device its mount point reports (btrfs gives each subvolume its own anonymous number, so a file's
/// <c>st_dev</c> is not the one mountinfo lists), then in
/// <c>/sys/dev/block/MAJ:MIN</c>: a partition's parent disk, dm/md <c>slaves/</c>, a loop device's backing
/// file, and <c>queue/rotational</c>. Virtual disks (virtio, xen) often claim to be rotational; they are
/// reported as <see cref="DriveKind.Unknown"/> rather than trusted.
/// </summary>
internal sealed class LinuxDriveTopology : IDriveTopology
{
    private static readonly HashSet<string> s_network = new(StringComparer.Ordinal) { "nfs", "nfs4", "cifs", "smb3", "smbfs", "fuse.sshfs", "9p", "ceph", "glusterfs", "fuse.glusterfs" };
    private static readonly HashSet<string> s_memory = new(StringComparer.Ordinal) { "tmpfs", "ramfs", "devtmpfs", "shm" };

    private const int AtNoAutomount = 0x800; // an autofs mount point is not mounted just to be looked at

    private readonly string _root;
    private readonly ConcurrentDictionary<ulong, StorageDevice> _cache = new();
    private readonly Lazy<Dictionary<string, (string FsType, string Source)>> _mounts;
    private readonly Lazy<Dictionary<ulong, (string FsType, string Source)>> _mountsByPointDevice;
    private readonly List<(string MountPoint, string Key)> _mountPoints = [];

    /// <param name="root">The file-system root holding <c>proc</c> and <c>sys</c> (<c>/</c>; tests may point elsewhere).</param>
    public LinuxDriveTopology(string root)
    {
        _root = root;
        _mounts = new Lazy<Dictionary<string, (string, string)>>(ReadMountInfo);
        _mountsByPointDevice = new Lazy<Dictionary<ulong, (string, string)>>(StatMountPoints);
    }

    public StorageDevice GetDevice(ulong deviceId) =>
        _cache.GetOrAdd(deviceId, static (id, self) => self.Resolve(id, depth: 0), this);

    private StorageDevice Resolve(ulong id, int depth)
    {
        var major = (uint)(id >> 32);
        var minor = (uint)id;
        var key = string.Create(CultureInfo.InvariantCulture, $"{major}:{minor}");
        string? fsType = null;
        if (_mounts.Value.TryGetValue(key, out var mount) || _mountsByPointDevice.Value.TryGetValue(id, out mount))
        {
            fsType = mount.FsType;
            if (s_network.Contains(fsType))
            {
                return new StorageDevice(id, $"{fsType}:{mount.Source}", DriveKind.Network, fsType);
            }

            if (s_memory.Contains(fsType))
            {
                return new StorageDevice(id, fsType, DriveKind.Ram, fsType);
            }

            // Anonymous device numbers (btrfs, overlay): classify the mount's source block device.
            if (major == 0 && depth < 4 && mount.Source.StartsWith("/dev/", StringComparison.Ordinal) && TryGetRdev(mount.Source, out var rdev))
            {
                var source = Resolve(rdev, depth + 1);
                return new StorageDevice(id, source.Name, source.Kind, fsType);
            }
        }

        var (name, kind) = ClassifyBlock(major, minor, depth);
        return new StorageDevice(id, name, kind, fsType);
    }

    private (string Name, DriveKind Kind) ClassifyBlock(uint major, uint minor, int depth)
    {
        var link = Path.Combine(_root, "sys/dev/block", string.Create(CultureInfo.InvariantCulture, $"{major}:{minor}"));
        string directory;
        try
        {
            var info = new DirectoryInfo(link);
            if (!info.Exists)
            {
                return ($"{major}:{minor}", DriveKind.Unknown);
            }

            directory = info.ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? info.FullName;
        }
        catch (IOException)
        {
            return ($"{major}:{minor}", DriveKind.Unknown);
        }

        if (File.Exists(Path.Combine(directory, "partition")))
        {
            directory = Path.GetDirectoryName(directory)!;
        }

        var name = Path.GetFileName(directory);
        if (name.StartsWith("zram", StringComparison.Ordinal) || name.StartsWith("ram", StringComparison.Ordinal))
        {
            return (name, DriveKind.Ram);
        }

        if (name.StartsWith("loop", StringComparison.Ordinal) && depth < 4)
        {
            var backing = ReadText(Path.Combine(directory, "loop/backing_file"));
            if (backing is not null && DeviceLookup.TryGet(backing, out var backingDevice, out _))
            {
                return (name, Resolve(backingDevice, depth + 1).Kind);
            }

            return (name, DriveKind.Unknown);
        }

        var slaves = Path.Combine(directory, "slaves");
        if (Directory.Exists(slaves) && depth < 4)
        {
            var kinds = new List<DriveKind>();
            foreach (var slave in Directory.EnumerateFileSystemEntries(slaves))
            {
                var dev = ReadText(Path.Combine(slave, "dev"));
                var parts = dev?.Split(':');
                if (parts is { Length: 2 } && uint.TryParse(parts[0], CultureInfo.InvariantCulture, out var sMajor) && uint.TryParse(parts[1], CultureInfo.InvariantCulture, out var sMinor))
                {
                    kinds.Add(ClassifyBlock(sMajor, sMinor, depth + 1).Kind);
                }
            }

            if (kinds.Count > 0)
            {
                // Any rotational member makes the whole device behave like one.
                return (name, kinds.Contains(DriveKind.Hdd) ? DriveKind.Hdd : kinds.TrueForAll(k => k == DriveKind.Ssd) ? DriveKind.Ssd : DriveKind.Unknown);
            }
        }

        var rotational = ReadText(Path.Combine(directory, "queue/rotational"));
        return rotational switch
        {
            "0" => (name, DriveKind.Ssd),
            "1" when directory.Contains("/virtio", StringComparison.Ordinal) || directory.Contains("/xen", StringComparison.Ordinal) || directory.Contains("/devices/virtual/", StringComparison.Ordinal) => (name, DriveKind.Unknown),
            "1" => (name, DriveKind.Hdd),
            _ => (name, DriveKind.Unknown),
        };
    }

    private Dictionary<string, (string FsType, string Source)> ReadMountInfo()
    {
        var result = new Dictionary<string, (string, string)>(StringComparer.Ordinal);
        try
        {
            foreach (var line in File.ReadLines(Path.Combine(_root, "proc/self/mountinfo")))
            {
                // id parent major:minor root mountpoint options [optional...] - fstype source superoptions
                var fields = line.Split(' ');
                var dash = Array.IndexOf(fields, "-");
                if (fields.Length < 5 || dash < 0 || dash + 2 >= fields.Length)
                {
                    continue;
                }

                result.TryAdd(fields[2], (fields[dash + 1], fields[dash + 2]));
                _mountPoints.Add((Unescape(fields[4]), fields[2]));
            }
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }

        return result;
    }

    /// <summary>
    /// The device each anonymous-device mount's mount point reports (<c>stat</c>), mapped to its mountinfo entry: on
    /// btrfs that number differs from the one mountinfo lists. Only a miss in mountinfo gets here.
    /// </summary>
    private Dictionary<ulong, (string FsType, string Source)> StatMountPoints()
    {
        var mounts = _mounts.Value;

        // A later mount on the same point hides the earlier ones: only the last is what the point shows.
        var visible = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var (point, key) in _mountPoints)
        {
            visible[point] = key;
        }

        var result = new Dictionary<ulong, (string, string)>();
        foreach (var (point, key) in visible)
        {
            var mount = mounts[key];

            // Network and FUSE mount points are not stat-ed: a dead server would hang the lookup (their numbers match mountinfo anyway).
            if (!key.StartsWith("0:", StringComparison.Ordinal) || s_network.Contains(mount.FsType) || mount.FsType.StartsWith("fuse", StringComparison.Ordinal))
            {
                continue;
            }

            if (Stat(Path.Combine(_root, point.TrimStart('/')), out var stx, AtNoAutomount))
            {
                result.TryAdd(stx.Device, mount);
            }
        }

        return result;
    }

    /// <summary>Undoes mountinfo's octal escapes (<c>\040</c> for a space, also tab, newline and backslash).</summary>
    internal static string Unescape(string field)
    {
        if (!field.Contains('\\', StringComparison.Ordinal))
        {
            return field;
        }

        // The kernel escapes only ASCII (space, tab, newline, backslash), so each escape is one character.
        var builder = new StringBuilder(field.Length);
        for (var i = 0; i < field.Length; i++)
        {
            if (field[i] == '\\' && i + 3 < field.Length && IsOctal(field[i + 1]) && IsOctal(field[i + 2]) && IsOctal(field[i + 3]))
            {
                builder.Append((char)(((field[i + 1] - '0') << 6) | ((field[i + 2] - '0') << 3) | (field[i + 3] - '0')));
                i += 3;
            }
            else
            {
                builder.Append(field[i]);
            }
        }

        return builder.ToString();

        static bool IsOctal(char c) => c is >= '0' and <= '7';
    }

    private static string? ReadText(string path)
    {
        try
        {
            return File.ReadAllText(path).Trim();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    private static unsafe bool TryGetRdev(string path, out ulong device)
    {
        device = 0;
        if (!Stat(path, out var stx))
        {
            return false;
        }

        device = ((ulong)stx.RdevMajor << 32) | stx.RdevMinor;
        return true;
    }

    private static unsafe bool Stat(string path, out StatxBuffer stx, int flags = 0)
    {
        var bytes = Paths.KernelNames.ToNullTerminated(path);
        if (bytes is null)
        {
            stx = default;
            return false;
        }

        fixed (byte* p = bytes)
        fixed (StatxBuffer* s = &stx)
        {
            return Libc.Statx(Libc.AT_FDCWD, p, flags, Libc.STATX_BASIC_STATS, s) == 0;
        }
    }
}
