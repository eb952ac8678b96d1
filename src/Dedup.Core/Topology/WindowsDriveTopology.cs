// Compiled on every platform; untested here (no Windows machine).
using System.Collections.Concurrent;
using System.Runtime.InteropServices;
using System.Runtime.Versioning;
using Dedup.Core.Interop;
using Microsoft.Win32.SafeHandles;
using static Dedup.Core.Topology.WindowsStorageLayout;

namespace Dedup.Core.Topology;

/// <summary>
/// Windows topology. A device id is the 32-bit volume serial number that GetVolumeInformationByHandleW /
/// GetVolumeInformationW report (zero-extended to 64 bits), so files of one volume share it whatever
/// drive letter or folder they are reached through. A serial is resolved by enumerating the local
/// volumes (FindFirstVolumeW): RAM disks and remote drives are settled by GetDriveTypeW, other volumes
/// by asking the volume device for its seek penalty (IOCTL_STORAGE_QUERY_PROPERTY): a penalty means a
/// rotating disk, none an SSD, no answer (spanned volumes, some USB bridges, virtual disks) unknown.
/// </summary>
/// <remarks>
/// Shares have no local volume: their serial is whatever the server reports. When no local volume has
/// the serial, the root it was last read from (by the default enumerator or the builder, through
/// <see cref="TryGetVolumeSerial(string, out uint)"/>, and only if that root has the serial itself)
/// decides: a UNC root or a drive letter mapped to a share is <see cref="DriveKind.Network"/>.
/// Limits: a share whose server volume has a local volume's serial (<c>\\localhost\c$</c>) is taken for
/// that volume; volumes sharing a serial (cloned disks) are one device; a serial neither local nor
/// seen is <see cref="DriveKind.Unknown"/>. Results are cached per instance, as on Linux.
/// </remarks>
[SupportedOSPlatform("windows")]
internal sealed class WindowsDriveTopology : IDriveTopology
{
    /// <summary>Serial → the volume root it was read from; lets shares, which no volume enumeration lists, be recognised.</summary>
    private static readonly ConcurrentDictionary<uint, string> s_rootsBySerial = new();

    private readonly ConcurrentDictionary<ulong, StorageDevice> _cache = new();

    public StorageDevice GetDevice(ulong deviceId) => _cache.GetOrAdd(deviceId, Resolve);

    /// <summary>
    /// Reads the serial of the volume holding <paramref name="path"/> (a folder or file; links and
    /// junctions are followed to where the files really are) and remembers the path's root for it.
    /// </summary>
    public static bool TryGetVolumeSerial(string path, out uint serial) => TryGetVolumeSerial(path, out serial, out _);

    private static unsafe bool TryGetVolumeSerial(string path, out uint serial, out int error)
    {
        serial = 0;
        error = 0;
        uint value = 0;
        var found = false;
        using (var handle = Kernel32.CreateFile(
            WithLongPathPrefix(path),
            0, // no access needed to query the volume, so folders we may only traverse still answer
            Kernel32.FILE_SHARE_READ | Kernel32.FILE_SHARE_WRITE | Kernel32.FILE_SHARE_DELETE,
            0,
            Kernel32.OPEN_EXISTING,
            Kernel32.FILE_FLAG_BACKUP_SEMANTICS, // required to open a folder
            0))
        {
            found = !handle.IsInvalid && Kernel32.GetVolumeInformationByHandle(handle, null, 0, &value, null, null, null, 0);
            error = found ? 0 : Marshal.GetLastPInvokeError(); // read before the handle is closed
        }

        var root = VolumeRootOf(path);
        if (!found && root is not null)
        {
            found = Kernel32.GetVolumeInformation(root, null, 0, &value, null, null, null, 0);
            error = found ? 0 : Marshal.GetLastPInvokeError();
        }

        if (!found)
        {
            return false;
        }

        // Remembered only when the root itself has this serial: a link or mounted folder below a drive
        // letter leads elsewhere, and that drive letter's type would then describe the wrong volume.
        uint rootSerial = 0;
        if (root is not null && Kernel32.GetVolumeInformation(root, null, 0, &rootSerial, null, null, null, 0) && rootSerial == value)
        {
            s_rootsBySerial[value] = root;
        }

        serial = value;
        return true;
    }

    private static StorageDevice Resolve(ulong id)
    {
        if (id > uint.MaxValue)
        {
            // Not a serial: a custom enumerator's own numbering.
            return new StorageDevice(id, id.ToString(System.Globalization.CultureInfo.InvariantCulture), DriveKind.Unknown);
        }

        var serial = (uint)id;
        var matches = new List<StorageDevice>();
        foreach (var (volume, volumeSerial, fileSystem) in EnumerateVolumes())
        {
            if (volumeSerial == serial)
            {
                matches.Add(ClassifyVolume(id, volume, fileSystem));
            }
        }

        if (matches.Count > 0)
        {
            var kind = Combine(matches.ConvertAll(m => m.Kind));
            return new StorageDevice(id, matches[0].Name, kind, matches[0].FileSystemType);
        }

        return s_rootsBySerial.TryGetValue(serial, out var root)
            ? ClassifyUnlistedRoot(id, root)
            : new StorageDevice(id, FormatSerial(serial), DriveKind.Unknown);
    }

    private static StorageDevice ClassifyVolume(ulong id, string volume, string? fileSystem)
    {
        var kind = KindFromDriveType(Kernel32.GetDriveType(volume)) ?? QuerySeekPenalty(DevicePathOf(volume));
        return new StorageDevice(id, FirstMountPath(volume) ?? volume, kind, fileSystem);
    }

    private static unsafe StorageDevice ClassifyUnlistedRoot(ulong id, string root)
    {
        var driveType = Kernel32.GetDriveType(root);
        var kind = KindOfUnlistedRoot(root, driveType);
        if (kind == DriveKind.Unknown && driveType is DRIVE_FIXED or DRIVE_REMOVABLE)
        {
            // A drive letter the volume manager does not list (some encrypted or virtual disks): ask it directly.
            kind = QuerySeekPenalty(DevicePathOf(root));
        }

        var fileSystem = stackalloc char[Kernel32.VolumeBufferLength];
        var fsType = Kernel32.GetVolumeInformation(root, null, 0, null, null, null, fileSystem, Kernel32.VolumeBufferLength)
            ? new string(fileSystem)
            : null;
        return new StorageDevice(id, root, kind, string.IsNullOrEmpty(fsType) ? null : fsType);
    }

    /// <summary>Every local volume that answers GetVolumeInformationW: its <c>\\?\Volume{GUID}\</c> path, serial and file system.</summary>
    internal static unsafe List<(string Volume, uint Serial, string? FileSystem)> EnumerateVolumes()
    {
        var result = new List<(string, uint, string?)>();
        var name = stackalloc char[Kernel32.VolumeBufferLength];
        var fileSystem = stackalloc char[Kernel32.VolumeBufferLength];
        uint oldMode;
        var modeSet = Kernel32.SetThreadErrorMode(Kernel32.SEM_FAILCRITICALERRORS, &oldMode);
        var find = Kernel32.FindFirstVolume(name, Kernel32.VolumeBufferLength);
        try
        {
            if (find == Kernel32.InvalidHandleValue)
            {
                return result;
            }

            do
            {
                var volume = new string(name);
                uint serial;
                fileSystem[0] = '\0';

                // Fails for empty card readers and optical drives: they hold no files to scan.
                if (Kernel32.GetVolumeInformation(volume, null, 0, &serial, null, null, fileSystem, Kernel32.VolumeBufferLength))
                {
                    var fsType = new string(fileSystem);
                    result.Add((volume, serial, fsType.Length == 0 ? null : fsType));
                }
            }
            while (Kernel32.FindNextVolume(find, name, Kernel32.VolumeBufferLength));

            return result;
        }
        finally
        {
            if (find != Kernel32.InvalidHandleValue)
            {
                _ = Kernel32.FindVolumeClose(find);
            }

            if (modeSet)
            {
                _ = Kernel32.SetThreadErrorMode(oldMode, null);
            }
        }
    }

    /// <summary>The volume's first mount path (<c>D:\</c> or a folder), or <see langword="null"/> if it is not mounted anywhere.</summary>
    private static unsafe string? FirstMountPath(string volume)
    {
        var length = 256u;
        for (var attempt = 0; attempt < 3; attempt++)
        {
            var buffer = new char[length];
            uint needed = 0;
            fixed (char* p = buffer)
            {
                if (Kernel32.GetVolumePathNamesForVolumeName(volume, p, length, &needed))
                {
                    return FirstOfMultiString(buffer);
                }
            }

            if (Marshal.GetLastPInvokeError() != Kernel32.ERROR_MORE_DATA || needed <= length)
            {
                return null;
            }

            length = needed; // mount points were added meanwhile: retry with the size asked for
        }

        return null;
    }

    /// <summary>Opens the volume device (no access rights needed for this ioctl) and asks whether it incurs a seek penalty.</summary>
    private static unsafe DriveKind QuerySeekPenalty(string? devicePath)
    {
        if (devicePath is null)
        {
            return DriveKind.Unknown;
        }

        using SafeFileHandle device = Kernel32.CreateFile(devicePath, 0, Kernel32.FILE_SHARE_READ | Kernel32.FILE_SHARE_WRITE, 0, Kernel32.OPEN_EXISTING, 0, 0);
        if (device.IsInvalid)
        {
            return DriveKind.Unknown;
        }

        var query = stackalloc byte[PropertyQuerySize];
        var descriptor = stackalloc byte[SeekPenaltyDescriptorSize];
        WriteSeekPenaltyQuery(new Span<byte>(query, PropertyQuerySize));
        new Span<byte>(descriptor, SeekPenaltyDescriptorSize).Clear();
        uint returned;
        if (!Kernel32.DeviceIoControl(device, Kernel32.IOCTL_STORAGE_QUERY_PROPERTY, query, PropertyQuerySize, descriptor, SeekPenaltyDescriptorSize, &returned, 0))
        {
            return DriveKind.Unknown; // not a storage device, or its driver does not know the property
        }

        return DecodeSeekPenalty(new ReadOnlySpan<byte>(descriptor, (int)Math.Min(returned, (uint)SeekPenaltyDescriptorSize)));
    }
}
