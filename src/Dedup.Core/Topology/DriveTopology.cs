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

    /// <summary>
    /// <paramref name="inner"/> with the declared kinds applied, their paths' devices looked up now: called when a scan
    /// starts, so a finder built before a disk is mounted works once it is.
    /// </summary>
    /// <exception cref="DirectoryNotFoundException">A path does not exist (or its part up to a <c>..</c> leads nowhere).</exception>
    /// <exception cref="IOException">A path's device cannot be told on a platform that tells devices apart.</exception>
    internal static IDriveTopology WithDeclaredKinds(IDriveTopology inner, IReadOnlyList<(string Path, DriveKind Kind)> kinds)
    {
        if (kinds.Count == 0)
        {
            return inner;
        }

        var overrides = new Dictionary<ulong, DriveKind>();
        foreach (var (path, kind) in kinds)
        {
            overrides[DeviceOf(path)] = kind;
        }

        return WithOverrides(inner, overrides);
    }

    private static ulong DeviceOf(string path)
    {
        var full = Paths.KernelPaths.Resolve(path);
        if (!Path.Exists(full))
        {
            throw new DirectoryNotFoundException($"The path '{Paths.PathText.Escape(full)}' given for a drive kind does not exist.");
        }

        // On Windows the volume serial, as the default enumerator reports it for every file below a root; 0 where
        // the platform tells no devices apart.
        if (DeviceLookup.TryGet(full, out var device, out var problem))
        {
            return device;
        }

        return OperatingSystem.IsLinux() || OperatingSystem.IsWindows()
            ? throw new IOException($"Cannot tell the device of '{Paths.PathText.Escape(full)}': {problem}")
            : 0UL;
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
