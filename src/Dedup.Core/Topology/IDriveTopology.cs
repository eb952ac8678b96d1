namespace Dedup.Core.Topology;

/// <summary>Maps the device number of a file to the storage device behind it and its kind.</summary>
public interface IDriveTopology
{
    /// <summary>Describes the device with this number (as in <see cref="Enumeration.FileIdentity.Device"/>).</summary>
    /// <param name="deviceId">The device number.</param>
    /// <returns>The device; never <see langword="null"/> (unknown devices are <see cref="DriveKind.Unknown"/>).</returns>
    StorageDevice GetDevice(ulong deviceId);
}
