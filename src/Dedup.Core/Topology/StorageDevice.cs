namespace Dedup.Core.Topology;

/// <summary>A physical (or virtual) device that files live on, as an <see cref="IDriveTopology"/> sees it.</summary>
public sealed class StorageDevice
{
    /// <summary>Creates a device description.</summary>
    /// <param name="id">The device number files report (for example <c>statx</c>'s major:minor packed as in <see cref="Enumeration.FileIdentity.Device"/>).</param>
    /// <param name="name">A readable name such as <c>sda</c> or <c>nfs:server:/export</c>.</param>
    /// <param name="kind">The kind of storage.</param>
    /// <param name="fileSystemType">The file-system type, if known.</param>
    public StorageDevice(ulong id, string name, DriveKind kind, string? fileSystemType = null)
    {
        ArgumentNullException.ThrowIfNull(name);
        Id = id;
        Name = name;
        Kind = kind;
        FileSystemType = fileSystemType;
    }

    /// <summary>The device number as files report it.</summary>
    public ulong Id { get; }

    /// <summary>A readable name.</summary>
    public string Name { get; }

    /// <summary>The kind of storage.</summary>
    public DriveKind Kind { get; }

    /// <summary>The file-system type, if known.</summary>
    public string? FileSystemType { get; }

    /// <inheritdoc />
    public override string ToString() => $"{Name} ({Kind}{(FileSystemType is null ? string.Empty : ", " + FileSystemType)})";
}
