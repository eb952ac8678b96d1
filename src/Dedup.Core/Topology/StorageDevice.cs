namespace Dedup.Core.Topology;

/// <summary>
/// A physical (or virtual) device that files live on, as an <see cref="IDriveTopology"/> sees it. A record: two
/// descriptions are equal when id, name, kind and file-system type are.
/// </summary>
public sealed record StorageDevice
{
    private readonly string _name = string.Empty;

    /// <summary>Creates a device description.</summary>
    /// <param name="id">The device number files report (for example <c>statx</c>'s major:minor packed as in <see cref="Enumeration.FileIdentity.Device"/>).</param>
    /// <param name="name">A readable name such as <c>sda</c> or <c>nfs:server:/export</c>.</param>
    /// <param name="kind">The kind of storage.</param>
    /// <param name="fileSystemType">The file-system type, if known.</param>
    public StorageDevice(ulong id, string name, DriveKind kind, string? fileSystemType = null)
    {
        Id = id;
        Name = name;
        Kind = kind;
        FileSystemType = fileSystemType;
    }

    /// <summary>The device number as files report it.</summary>
    public ulong Id { get; init; }

    /// <summary>A readable name.</summary>
    /// <exception cref="ArgumentNullException">Set to <see langword="null"/>.</exception>
    public string Name
    {
        get => _name;
        init => _name = value ?? throw new ArgumentNullException(nameof(Name));
    }

    /// <summary>The kind of storage.</summary>
    public DriveKind Kind { get; init; }

    /// <summary>The file-system type, if known.</summary>
    public string? FileSystemType { get; init; }

    /// <inheritdoc />
    public override string ToString() => $"{Name} ({Kind}{(FileSystemType is null ? string.Empty : ", " + FileSystemType)})";
}
