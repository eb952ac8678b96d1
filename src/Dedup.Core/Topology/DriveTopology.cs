using System.Collections.Concurrent;

namespace Dedup.Core.Topology;

/// <summary>Creates the platform's <see cref="IDriveTopology"/>, with optional user overrides.</summary>
public static class DriveTopology
{
    /// <summary>
    /// The topology of this machine: Linux reads <c>/sys/dev/block</c> and <c>/proc/self/mountinfo</c>; Windows
    /// (where a device number is the volume serial) asks each volume for its drive type and seek penalty;
    /// elsewhere every device is <see cref="DriveKind.Unknown"/>.
    /// </summary>
    /// <returns>A caching topology.</returns>
    public static IDriveTopology CreateDefault()
    {
        if (OperatingSystem.IsLinux())
        {
            return new LinuxDriveTopology("/");
        }

        return OperatingSystem.IsWindows() ? new WindowsDriveTopology() : new UnknownDriveTopology();
    }

    /// <summary>Wraps a topology so that the given devices report the given kinds.</summary>
    /// <param name="inner">The topology to consult for other devices.</param>
    /// <param name="overrides">Device number → kind.</param>
    /// <returns>The wrapping topology.</returns>
    public static IDriveTopology WithOverrides(IDriveTopology inner, IReadOnlyDictionary<ulong, DriveKind> overrides)
    {
        ArgumentNullException.ThrowIfNull(inner);
        ArgumentNullException.ThrowIfNull(overrides);
        return overrides.Count == 0 ? inner : new OverridingTopology(inner, overrides);
    }

    private sealed class UnknownDriveTopology : IDriveTopology
    {
        private readonly ConcurrentDictionary<ulong, StorageDevice> _devices = new();

        public StorageDevice GetDevice(ulong deviceId) =>
            _devices.GetOrAdd(deviceId, static id => new StorageDevice(id, $"{id >> 32}:{id & 0xFFFFFFFF}", DriveKind.Unknown));
    }

    private sealed class OverridingTopology(IDriveTopology inner, IReadOnlyDictionary<ulong, DriveKind> overrides) : IDriveTopology
    {
        public StorageDevice GetDevice(ulong deviceId)
        {
            var device = inner.GetDevice(deviceId);
            return overrides.TryGetValue(deviceId, out var kind) && kind != device.Kind
                ? new StorageDevice(device.Id, device.Name, kind, device.FileSystemType)
                : device;
        }
    }
}
